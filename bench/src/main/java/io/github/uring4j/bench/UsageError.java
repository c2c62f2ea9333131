package io.github.uring4j.bench;

/** A bad argument or environment the user can fix: printed as one line, exit status 2. */
public final class UsageError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageError(String message) {
        super(message);
    }
}
