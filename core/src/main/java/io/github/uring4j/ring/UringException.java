package io.github.uring4j.ring;

import io.github.uring4j.ErrnoException;

/** A system call or operation of the ring failed; carries the errno and what was being done. */
public class UringException extends ErrnoException {
    private static final long serialVersionUID = 1L;

    public UringException(String operation, int errno) {
        super(operation, errno);
    }

    public UringException(String operation, int errno, String message) {
        super(operation, errno, message);
    }
}
