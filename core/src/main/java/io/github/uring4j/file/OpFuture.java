package io.github.uring4j.file;

import java.util.concurrent.CompletableFuture;

/**
 * The future of one operation. {@link #cancel} completes it at once, as {@link CompletableFuture} promises, and
 * asks the backend to cancel the operation ({@code IORING_OP_ASYNC_CANCEL} on io_uring); the library keeps the
 * buffer and the slot until the kernel's own completion arrives.
 */
final class OpFuture<T> extends CompletableFuture<T> {
    private final Engine engine;
    private final Op op;
    private final int generation;
    private final UringLoop loop;

    OpFuture(Engine engine, Op op, int generation, UringLoop loop) {
        this.engine = engine;
        this.op = op;
        this.generation = generation;
        this.loop = loop;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            engine.cancel(op, generation, loop);
        }
        return cancelled;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}
