package io.github.uring4j;

import io.github.uring4j.linux.Errno;
import java.io.IOException;

/**
 * A system call or kernel operation failed with an errno for which the JDK has no exception of its own. The one
 * base shared by every layer: the ring ({@link io.github.uring4j.ring.UringException}) and the file API on either
 * backend ({@link io.github.uring4j.file.FileIOException}).
 */
public class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String operation;

    /** A message of the form {@code EBADF during READ}. */
    public ErrnoException(String operation, int errno) {
        this(operation, errno, name(check(errno)) + " during " + operation);
    }

    /** @throws IllegalArgumentException for {@code Integer.MIN_VALUE}, which is no errno and has no positive value */
    public ErrnoException(String operation, int errno, String message) {
        super(message);
        this.errno = Math.abs(check(errno));
        this.operation = operation;
    }

    private static int check(int errno) {
        if (errno == Integer.MIN_VALUE) {
            throw new IllegalArgumentException("no errno is " + errno);
        }
        return errno;
    }

    /** The positive errno value. */
    public int errno() {
        return errno;
    }

    /** {@code "EINVAL"}, {@code "EBADF"}, ... */
    public String errnoName() {
        return name(errno);
    }

    /** What failed: {@code io_uring_setup}, {@code READ}, {@code OPEN}, ... */
    public String operation() {
        return operation;
    }

    /** The symbolic name of an errno value ({@code "EBADF"} for 9 or -9; {@code "errno 200"} when unknown). */
    public static String name(int errno) {
        return Errno.name(errno);
    }
}
