package io.github.uring4j.bench.iops;

/** How {@code iops} moves its blocks. */
enum Engine {
    /** uring4j's ring API: prepare, submit, reap. */
    RING("io_uring", "uring4j ring API"),
    /** JDK {@code FileChannel} positional reads/writes, one at a time per thread (what {@code -S1} selects). */
    SYNC("filechannel", "JDK FileChannel (sync pread)"),
    /** JDK {@code AsynchronousFileChannel} with a {@code CompletionHandler}, {@code -d} operations in flight. */
    AFC("afc", "JDK AsynchronousFileChannel"),
    /** uring4j {@code AsyncFile} with a {@code CompletionHandler} per operation (no allocation). */
    HANDLER("handler", "uring4j AsyncFile (CompletionHandler)"),
    /** uring4j {@code AsyncFile} returning a {@code CompletableFuture} per operation. */
    FUTURE("future", "uring4j AsyncFile (CompletableFuture)");

    final String key;
    final String label;

    Engine(String key, String label) {
        this.key = key;
        this.label = label;
    }

    static Engine parse(String s) {
        for (Engine e : values()) {
            if (e.key.equalsIgnoreCase(s) || e.name().equalsIgnoreCase(s)) {
                return e;
            }
        }
        throw new io.github.uring4j.bench.UsageError("unknown engine '" + s + "' (io_uring, filechannel, afc, handler, future)");
    }

    /** True when the engine keeps {@code -d} operations in flight (else one at a time). */
    boolean queued() {
        return this != SYNC;
    }
}
