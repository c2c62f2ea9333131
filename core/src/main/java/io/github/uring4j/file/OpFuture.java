package io.github.uring4j.file;

import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Waits;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of one operation, and of the stages derived from it. {@link #cancel} marks the operation cancelled (after
 * a delivery of its result into the caller's buffer that has begun), asks the backend to cancel it
 * ({@code IORING_OP_ASYNC_CANCEL} on io_uring) and completes the future at once, as {@link CompletableFuture}
 * promises; the library keeps the buffer until the kernel's own completion arrives. Waiting for it on an event loop
 * thread ({@link #join()}, {@link #get()}) would stop the loop that has to complete it: that call fails at once with
 * {@link IllegalStateException} instead. On a platform thread they spin for a while before they park
 * ({@link IoExecutor.Builder#waitSpinMicros}).
 */
class OpFuture<T> extends CompletableFuture<T> {
    private final IoBackend backend;
    private final Request request;
    private final int generation;
    /** Where the operation's end completes this future ({@link IoExecutor.Builder#futureExecutor}); null: the loop. */
    private final Handoff completer;
    /** How long {@link #join()} and {@link #get()} spin before they park ({@link Waits}). */
    private final long spinNanos;

    OpFuture(IoExecutor executor, Request request, int generation) {
        this(executor.backend, request, generation, executor.futureExecutor, executor.waitSpinNanos);
    }

    private OpFuture(IoBackend backend, Request request, int generation, Handoff completer, long spinNanos) {
        this.backend = backend;
        this.request = request;
        this.generation = generation;
        this.completer = completer;
        this.spinNanos = spinNanos;
    }

    /** A derived stage: it knows the loops, but has no operation to cancel. */
    private OpFuture(OpFuture<?> from) {
        this(from.backend, null, 0, null, from.spinNanos);
    }

    /** The hand-off to the executor the builder named; null: futures complete on the loop. */
    Handoff completer() {
        return completer;
    }

    /**
     * Runs {@code completion} (which completes this future) on the executor the builder named, or here when it
     * named none, or refuses the task (shut down): the future is completed either way.
     */
    void deliver(Runnable completion) {
        Handoff e = completer;
        if (e == null) {
            completion.run();
            return;
        }
        e.execute(completion);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        // The request first, then the future: an end that has not begun to deliver into the caller's buffer leaves
        // it alone, and one delivering is waited for (the future completed first let a read fill the buffer, and
        // move its position, after cancel had returned true).
        if (request != null && !isDone()) {
            backend.cancel(request, generation);
        }
        return super.cancel(mayInterruptIfRunning);
    }

    /** Refuses a wait that would wait for ever (see the class's comment). */
    void checkMayWait() {
        if (!isDone() && Waits.mayNotWait(backend)) {
            throw new IllegalStateException("waiting for an uring4j operation on the event loop thread "
                    + Thread.currentThread().getName() + " would stop that loop (the one that completes it, or one"
                    + " whose operations another loop may be waiting for): chain the next step (thenApply,"
                    + " thenCompose, whenComplete) or use the CompletionHandler form instead of join()/get()");
        }
    }

    @Override
    public T join() {
        checkMayWait();
        if (request != null && !isDone()) {
            backend.help(request, generation); // a sync no loop has begun yet: made on this thread
        }
        Waits.spin(this, spinNanos);
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        checkMayWait();
        Waits.spin(this, spinNanos);
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        checkMayWait();
        Waits.spin(this, Math.min(spinNanos, unit.toNanos(timeout)));
        return super.get(timeout, unit);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new OpFuture<>(this);
    }
}
