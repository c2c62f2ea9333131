package io.github.uring4j.bench.iops;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.ring.SetupFlag;
import java.util.List;
import java.util.Locale;

/** Names of setup flags on the command line. */
final class RingFlags {
    private RingFlags() {
    }

    static int parse(List<String> names) {
        int flags = 0;
        for (String n : names) {
            switch (n.trim().toLowerCase(Locale.ROOT)) {
                case "" , "none" -> { }
                case "single_issuer" -> flags |= SetupFlag.SINGLE_ISSUER;
                case "defer_taskrun" -> flags |= SetupFlag.DEFER_TASKRUN | SetupFlag.SINGLE_ISSUER;
                case "coop_taskrun" -> flags |= SetupFlag.COOP_TASKRUN;
                case "taskrun_flag" -> flags |= SetupFlag.TASKRUN_FLAG;
                case "sqpoll" -> flags |= SetupFlag.SQPOLL;
                case "no_sqarray" -> flags |= SetupFlag.NO_SQARRAY;
                default -> throw new UsageError("unknown ring flag '" + n
                        + "' (single_issuer, defer_taskrun, coop_taskrun, taskrun_flag, sqpoll, no_sqarray, none)");
            }
        }
        return flags;
    }
}
