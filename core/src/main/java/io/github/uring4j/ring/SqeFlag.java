package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/**
 * {@code IOSQE_*}: bits for {@link Sqe#flags(int)}. {@code IOSQE_FIXED_FILE} is not here: the encoders set it from
 * the {@link FileTarget}.
 */
public final class SqeFlag {
    private SqeFlag() {
    }

    public static final int IO_DRAIN = Uapi.IOSQE_IO_DRAIN;
    public static final int IO_LINK = Uapi.IOSQE_IO_LINK;
    public static final int IO_HARDLINK = Uapi.IOSQE_IO_HARDLINK;
    public static final int ASYNC = Uapi.IOSQE_ASYNC;
    public static final int CQE_SKIP_SUCCESS = Uapi.IOSQE_CQE_SKIP_SUCCESS;
}
