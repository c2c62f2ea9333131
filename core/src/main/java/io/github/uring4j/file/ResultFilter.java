package io.github.uring4j.file;

/**
 * Test seam: rewrites a completion's result before the loop acts on it, to inject what the kernel rarely does
 * on demand (a short write in a linked chain, a short read). Never set in production.
 */
@FunctionalInterface
interface ResultFilter {
    /**
     * @param kind the {@link Op} kind ({@link Op#READ}, {@link Op#WRITE_SYNC}, ...)
     * @param sub  which entry of the op: 0 the main one, 1 the linked second (the fdatasync of WRITE_SYNC)
     * @param res  what the kernel returned
     * @param requested the length the entry asked for
     */
    int filter(int kind, int sub, int res, int requested);
}
