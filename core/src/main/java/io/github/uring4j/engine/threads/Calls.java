package io.github.uring4j.engine.threads;

import io.github.uring4j.engine.Request;
import java.io.IOException;

/**
 * The blocking calls behind each request kind, on a worker thread: {@link NativeCalls} through the system-call
 * layer, or {@link JdkCalls} through the JDK's own {@code FileChannel} where native access is denied. Each returns
 * the value the request succeeds with, or throws what it fails with.
 */
interface Calls {
    /** Opens the file of an {@link Request#OPEN}. */
    ThreadsFile open(ThreadsBackend backend, Request r) throws IOException;

    /**
     * Reads, writes and write-and-sync of {@code t}'s request, finishing short transfers where the request asks for
     * it.
     */
    long transfer(Task t, ThreadsFile f) throws Throwable;

    /**
     * A scattering read or gathering write of {@code t}'s request, one buffer at a time; stops at the first short
     * transfer. A file without offsets (a FIFO) moves what one buffer takes, as a single read or write of it would.
     */
    long vector(Task t, ThreadsFile f) throws Throwable;

    /** fsync, truncate, allocate, advise, sync-range, size. */
    long other(Request r, ThreadsFile f) throws Throwable;

    /** Closes the file; the failure, or null. */
    IOException close(ThreadsFile f);
}
