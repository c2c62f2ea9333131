package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/** {@code IORING_FEAT_*}: bits of {@link IoUring#features()}, as the kernel reported them at setup. */
public final class Feature {
    private Feature() {
    }

    public static final int SINGLE_MMAP = Uapi.IORING_FEAT_SINGLE_MMAP;
    public static final int NODROP = Uapi.IORING_FEAT_NODROP;
    public static final int SUBMIT_STABLE = Uapi.IORING_FEAT_SUBMIT_STABLE;
    public static final int RW_CUR_POS = Uapi.IORING_FEAT_RW_CUR_POS;
    public static final int CUR_PERSONALITY = Uapi.IORING_FEAT_CUR_PERSONALITY;
    public static final int FAST_POLL = Uapi.IORING_FEAT_FAST_POLL;
    public static final int POLL_32BITS = Uapi.IORING_FEAT_POLL_32BITS;
    public static final int SQPOLL_NONFIXED = Uapi.IORING_FEAT_SQPOLL_NONFIXED;
    public static final int EXT_ARG = Uapi.IORING_FEAT_EXT_ARG;
    public static final int NATIVE_WORKERS = Uapi.IORING_FEAT_NATIVE_WORKERS;
    public static final int RSRC_TAGS = Uapi.IORING_FEAT_RSRC_TAGS;
    public static final int CQE_SKIP = Uapi.IORING_FEAT_CQE_SKIP;
    public static final int LINKED_FILE = Uapi.IORING_FEAT_LINKED_FILE;
    public static final int REG_REG_RING = Uapi.IORING_FEAT_REG_REG_RING;
}
