package io.github.uring4j.file;

import io.github.uring4j.engine.Log;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands future completions to the executor the builder named ({@link IoExecutor.Builder#futureExecutor}) without a
 * task per completion: they wait in a queue that tasks on that executor drain. A loop submits a drain task only
 * when none is waiting to start, so a burst of completions costs the executor one wake-up, not one each (on a
 * {@link java.util.concurrent.ForkJoinPool} of one worker, a task per completion spent most of the worker's time
 * parking and waking). Before it runs a completion while more wait, a drain task makes sure another is waiting to
 * start: a stage that blocks (or joins another operation's future) holds back only itself, and an executor with
 * more threads drains with as many as have work. When the executor refuses a task (it was shut down) or throws, or
 * is an {@link ExecutorService} shut down while a task waited in it (which {@code shutdownNow} drops), the thread
 * handing over runs the completions, so every future is still completed.
 */
final class Handoff implements Executor {
    private final Executor executor;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** A drain task was handed to the executor and has not started yet. */
    private final AtomicBoolean waiting = new AtomicBoolean();
    private final Runnable drain = this::drain;

    private Handoff(Executor executor) {
        this.executor = executor;
    }

    /** The hand-off to {@code executor}, or null (complete on the loop) when it is null. */
    static Handoff to(Executor executor) {
        return executor == null ? null : new Handoff(executor);
    }

    @Override
    public void execute(Runnable completion) {
        queue.offer(completion);
        if (!schedule()) {
            runQueued();
        }
    }

    /**
     * Makes sure a drain task waits to start; false when none will come (the executor refused it or threw, or was
     * shut down while one waited, which {@code shutdownNow} drops): then the caller drains.
     */
    private boolean schedule() {
        if (waiting.get() || !waiting.compareAndSet(false, true)) {
            return !(executor instanceof ExecutorService s && s.isShutdown());
        }
        try {
            executor.execute(drain);
            return true;
        } catch (RuntimeException refused) { // RejectedExecutionException (shut down), or a broken executor
            waiting.set(false);
            return false;
        }
    }

    private void drain() {
        waiting.set(false);
        runQueued();
    }

    private void runQueued() {
        Runnable r;
        while ((r = queue.poll()) != null) {
            if (!queue.isEmpty()) {
                schedule(); // refused: nothing to do, this thread goes on draining
            }
            try {
                r.run();
            } catch (Throwable t) {
                // a completion only completes a future (which keeps its stages' exceptions); this is a bug's trace
                Log.completionFailed(t);
            }
        }
    }
}
