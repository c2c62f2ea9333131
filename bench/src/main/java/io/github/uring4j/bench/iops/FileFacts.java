package io.github.uring4j.bench.iops;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.StatxBuffer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;

/** What the kernel says about a file, asked through a ring. */
final class FileFacts {
    private FileFacts() {
    }

    /** The O_DIRECT offset/length alignment from {@code STATX_DIOALIGN}; 512 when the kernel does not say. */
    static int directIoAlignment(Path f) throws IOException {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            StatxBuffer st = StatxBuffer.allocate(arena);
            ring.nextSqe().statx(-100, arena.allocateFrom(f.toAbsolutePath().toString()), 0,
                    StatxBuffer.MASK_BASIC | StatxBuffer.MASK_DIOALIGN, st.segment()).userData(1);
            ring.submitAndWait(1);
            int[] res = {0};
            ring.reap((ud, r, fl) -> res[0] = r);
            if (res[0] < 0) {
                throw new UsageError("statx of " + f + " failed: errno " + -res[0]);
            }
            int a = st.dioOffsetAlign();
            if (a == 0 && (st.mask() & StatxBuffer.MASK_DIOALIGN) != 0) {
                throw new UsageError(f + " does not support O_DIRECT on this file system (use -O0)");
            }
            return a > 0 ? a : 512;
        }
    }
}
