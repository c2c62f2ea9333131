package io.github.uring4j.ring;

import io.github.uring4j.linux.Errno;
import java.io.IOException;

/** A system call or operation of the ring failed; carries the errno and what was being done. */
public class UringException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String operation;

    public UringException(String operation, int errno) {
        this(operation, errno, Errno.name(errno) + " during " + operation);
    }

    public UringException(String operation, int errno, String message) {
        super(message);
        this.errno = Math.abs(errno);
        this.operation = operation;
    }

    /** The positive errno value. */
    public int errno() {
        return errno;
    }

    /** {@code "EINVAL"}, {@code "EBADF"}, ... */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** What failed, as {@code io_uring_setup} or {@code IORING_OP_READ of /x at 4096}. */
    public String operation() {
        return operation;
    }
}
