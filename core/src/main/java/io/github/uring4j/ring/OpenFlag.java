package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/**
 * {@code O_*}: flags for {@link Sqe#openat} and {@code open_how.flags}, with the kernel's values (x86-64 and arm64
 * share them). Combine the access mode ({@link #RDONLY}, {@link #WRONLY}, {@link #RDWR}) with the others by OR.
 */
public final class OpenFlag {
    private OpenFlag() {
    }

    public static final int RDONLY = Uapi.O_RDONLY;
    public static final int WRONLY = Uapi.O_WRONLY;
    public static final int RDWR = Uapi.O_RDWR;
    public static final int CREAT = Uapi.O_CREAT;
    public static final int EXCL = Uapi.O_EXCL;
    public static final int TRUNC = Uapi.O_TRUNC;
    public static final int APPEND = Uapi.O_APPEND;
    public static final int NONBLOCK = Uapi.O_NONBLOCK;
    public static final int DSYNC = Uapi.O_DSYNC;
    /** Bypass the page cache: buffers, offsets and lengths must be aligned ({@link StatxBuffer#dioOffsetAlign()}). */
    public static final int DIRECT = Uapi.O_DIRECT;
    public static final int DIRECTORY = Uapi.O_DIRECTORY;
    public static final int NOFOLLOW = Uapi.O_NOFOLLOW;
    public static final int NOATIME = Uapi.O_NOATIME;
    /** Not inherited by child processes; the kernel refuses it for an open into a registered-file slot. */
    public static final int CLOEXEC = Uapi.O_CLOEXEC;
    public static final int SYNC = Uapi.O_SYNC;
    public static final int PATH = Uapi.O_PATH;
}
