package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/**
 * The {@code *at} calls' directory argument and flags: {@link #FDCWD} for {@link Sqe#openat}, {@link Sqe#statx},
 * {@link Sqe#unlinkat}, ...; {@link #EMPTY_PATH}, {@link #REMOVEDIR}, {@link #SYMLINK_NOFOLLOW} for their flags.
 */
public final class At {
    private At() {
    }

    /** {@code AT_FDCWD}: resolve a relative path against the working directory. */
    public static final int FDCWD = Uapi.AT_FDCWD;
    /** {@code AT_EMPTY_PATH}: with an empty path, the call is about the directory descriptor itself. */
    public static final int EMPTY_PATH = Uapi.AT_EMPTY_PATH;
    /** {@code AT_REMOVEDIR}: {@link Sqe#unlinkat} removes a directory. */
    public static final int REMOVEDIR = Uapi.AT_REMOVEDIR;
    /** {@code AT_SYMLINK_NOFOLLOW}: do not follow a final symbolic link. */
    public static final int SYMLINK_NOFOLLOW = Uapi.AT_SYMLINK_NOFOLLOW;
}
