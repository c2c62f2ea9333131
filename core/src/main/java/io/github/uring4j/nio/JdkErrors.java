package io.github.uring4j.nio;

import io.github.uring4j.ErrnoException;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** Failures worded and typed as the JDK's file channels report them. */
final class JdkErrors {
    /**
     * Loads this class: {@link UringFileChannel} does so when it is loaded, so that the error of an open at the
     * descriptor limit can be said. From a class path of directories every class is a file to open, and a class first
     * needed there would fail to load ({@code NoClassDefFoundError}, for good at that call site) instead.
     */
    static void load() {
    }

    private JdkErrors() {
    }

    /**
     * A failed {@code open(2)} of {@code path} with {@code flags}, as the JDK's file system provider reports it:
     * a link met with {@code O_NOFOLLOW} is a plain {@link IOException} naming the option, a directory met by
     * {@code CREATE_NEW} exists.
     */
    static IOException open(int errno, String path, int flags) {
        int e = Math.abs(errno);
        if (e == Errno.ELOOP && (flags & io.github.uring4j.linux.Uapi.O_NOFOLLOW) != 0
                && (flags & io.github.uring4j.linux.Uapi.O_EXCL) == 0) {
            return new IOException(LeanCalls.strerror(e) + " (NOFOLLOW_LINKS specified)");
        }
        if (e == Errno.EISDIR && (flags & io.github.uring4j.linux.Uapi.O_EXCL) != 0) {
            e = Errno.EEXIST;
        }
        return open(e, path);
    }

    /** A failed {@code open(2)} of {@code path}, as the JDK's file system provider reports it. */
    static IOException open(int errno, String path) {
        int e = Math.abs(errno);
        return switch (e) {
            case Errno.EACCES -> new AccessDeniedException(path);
            case Errno.ENOENT -> new NoSuchFileException(path);
            case Errno.EEXIST -> new FileAlreadyExistsException(path);
            case Errno.ELOOP -> new FileSystemException(path, null,
                    LeanCalls.strerror(e) + " or unable to access attributes of symbolic link");
            default -> new FileSystemException(path, null, LeanCalls.strerror(e));
        };
    }

    /** A failed read, write or other call on an open channel: the JDK's plain {@link IOException}. */
    static IOException io(int errno) {
        return new IOException(LeanCalls.strerror(Math.abs(errno)));
    }

    /** An engine failure in the JDK's words, where it carries an errno; others as they are. */
    static Throwable fromEngine(Throwable t) {
        if (t instanceof ErrnoException e && !(t instanceof java.nio.file.FileSystemException)) {
            IOException io = io(e.errno());
            io.initCause(t);
            return io;
        }
        return t;
    }
}
