package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/** {@code RWF_*}: per-operation flags of reads and writes, for {@link Sqe#rwFlags(int)}. */
public final class RwFlag {
    private RwFlag() {
    }

    public static final int HIPRI = Uapi.RWF_HIPRI;
    public static final int DSYNC = Uapi.RWF_DSYNC;
    public static final int SYNC = Uapi.RWF_SYNC;
    public static final int NOWAIT = Uapi.RWF_NOWAIT;
    public static final int APPEND = Uapi.RWF_APPEND;
}
