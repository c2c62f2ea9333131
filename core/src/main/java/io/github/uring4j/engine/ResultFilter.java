package io.github.uring4j.engine;

/**
 * Test seam: rewrites a result before the backend acts on it, to inject what the kernel rarely does on demand (a
 * short write in a linked chain, a short read). Never set in production.
 */
@FunctionalInterface
public interface ResultFilter {
    /**
     * @param kind      the {@link Request} kind ({@link Request#READ}, {@link Request#WRITE_SYNC}, ...)
     * @param sub       which part of the request: 0 the transfer, 1 the linked {@code fdatasync} of WRITE_SYNC, 2 the
     *                  link timeout of a transfer with a timeout (io_uring only)
     * @param res       what the kernel (or the system call) returned
     * @param requested the length asked for
     */
    int filter(int kind, int sub, int res, int requested);
}
