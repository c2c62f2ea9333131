package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/** {@code IORING_OP_*}: the opcodes uring4j encodes, for {@link Probe#supports(int)} and messages. */
public final class Opcode {
    private Opcode() {
    }

    public static final int NOP = Uapi.IORING_OP_NOP;
    public static final int READV = Uapi.IORING_OP_READV;
    public static final int WRITEV = Uapi.IORING_OP_WRITEV;
    public static final int FSYNC = Uapi.IORING_OP_FSYNC;
    public static final int READ_FIXED = Uapi.IORING_OP_READ_FIXED;
    public static final int WRITE_FIXED = Uapi.IORING_OP_WRITE_FIXED;
    public static final int SYNC_FILE_RANGE = Uapi.IORING_OP_SYNC_FILE_RANGE;
    public static final int TIMEOUT = Uapi.IORING_OP_TIMEOUT;
    public static final int ASYNC_CANCEL = Uapi.IORING_OP_ASYNC_CANCEL;
    public static final int LINK_TIMEOUT = Uapi.IORING_OP_LINK_TIMEOUT;
    public static final int FALLOCATE = Uapi.IORING_OP_FALLOCATE;
    public static final int OPENAT = Uapi.IORING_OP_OPENAT;
    public static final int CLOSE = Uapi.IORING_OP_CLOSE;
    public static final int STATX = Uapi.IORING_OP_STATX;
    public static final int READ = Uapi.IORING_OP_READ;
    public static final int WRITE = Uapi.IORING_OP_WRITE;
    public static final int FADVISE = Uapi.IORING_OP_FADVISE;
    public static final int MADVISE = Uapi.IORING_OP_MADVISE;
    public static final int OPENAT2 = Uapi.IORING_OP_OPENAT2;
    public static final int SPLICE = Uapi.IORING_OP_SPLICE;
    public static final int RENAMEAT = Uapi.IORING_OP_RENAMEAT;
    public static final int UNLINKAT = Uapi.IORING_OP_UNLINKAT;
    public static final int MKDIRAT = Uapi.IORING_OP_MKDIRAT;
    public static final int MSG_RING = Uapi.IORING_OP_MSG_RING;
    public static final int FILES_UPDATE = Uapi.IORING_OP_FILES_UPDATE;
    public static final int FTRUNCATE = Uapi.IORING_OP_FTRUNCATE;

    /** {@code "IORING_OP_READ"} for {@link #READ}. */
    public static String name(int opcode) {
        return Uapi.opName(opcode);
    }
}
