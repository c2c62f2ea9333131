package io.github.uring4j.engine;

/**
 * How a client learns how a request ended: the engine calls it once per request, after the request went back to
 * its pool, with what the client put into {@link Request#target} and {@link Request#attachment}. Implementations
 * are stateless singletons (one per kind of result), so telling allocates nothing.
 */
@FunctionalInterface
public interface Completion {
    /**
     * @param target     the client's future or handler
     * @param attachment the client's attachment
     * @param value      the result: bytes moved, a size, -1 at end of file, 0 for void operations
     * @param opened     the new file of a successful open, else null
     * @param error      the failure, or null on success
     */
    void complete(Object target, Object attachment, long value, FileHandle opened, Throwable error);
}
