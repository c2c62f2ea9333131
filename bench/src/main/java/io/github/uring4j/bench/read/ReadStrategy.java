package io.github.uring4j.bench.read;

import io.github.uring4j.bench.data.DataSet;
import java.io.IOException;

/**
 * A way to read random 4 KiB blocks of a data set. {@link #open} prepares what the workers share (open files,
 * mappings); each worker then runs on its own thread until the deadline. New rows (the async API, the drop-in
 * channels) are new implementations of this interface.
 */
public interface ReadStrategy {

    /** Short name used on the command line and in tables. */
    String name();

    /** Whether workers run on virtual threads. */
    default boolean virtualThreads() {
        return false;
    }

    /** Why this strategy cannot run with these settings, or null when it can. */
    default String unsupported(ReadConfig cfg) {
        return null;
    }

    /** Operations each worker keeps in flight (1 for blocking strategies). */
    default int inFlightPerWorker(ReadConfig cfg) {
        return 1;
    }

    /** Number of workers for these settings. */
    default int workers(ReadConfig cfg) {
        return cfg.threads();
    }

    Session open(DataSet ds, ReadConfig cfg) throws IOException;

    /** State shared by the workers of one run. */
    interface Session extends AutoCloseable {
        /** Runs one worker on the calling thread until {@code ctx.end()}. */
        void run(int worker, WorkerContext ctx) throws Exception;

        @Override
        void close() throws IOException;
    }
}
