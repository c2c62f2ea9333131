package io.github.uring4j.file;

/** What an {@link IoExecutor} runs its operations on: io_uring event loops, or a thread pool. */
abstract class Engine {
    final IoExecutor executor;

    Engine(IoExecutor executor) {
        this.executor = executor;
    }

    abstract Backend backend();

    /** Chooses where {@code op} runs (sets {@link Op#loop}); called before the op's future exists. */
    abstract void route(Op op);

    /** Hands {@code op} over; it completes (possibly failing) exactly once. */
    abstract void execute(Op op);

    /** The caller cancelled the future of {@code op} while it had generation {@code gen}. */
    abstract void cancel(Op op, int gen, UringLoop loop);

    /** Registers {@code pool}'s buffers for fixed I/O; returns null, or why they stay unregistered. */
    abstract String registerBuffers(BufferPool pool);

    abstract void unregisterBuffers(BufferPool pool);

    /** Stops accepting work, ends what is in flight, frees everything; blocks unless called from a loop. */
    abstract void shutdown();

    abstract boolean isOpen();

    /** Operations holding a slot or a worker right now (tests and diagnostics). */
    abstract int inFlight();
}
