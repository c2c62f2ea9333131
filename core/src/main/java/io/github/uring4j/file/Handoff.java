package io.github.uring4j.file;

import io.github.uring4j.engine.Log;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands future completions to the executor the builder named ({@link IoExecutor.Builder#futureExecutor}) without a
 * task per completion: they wait in a queue that tasks on that executor drain. A loop submits a drain task only
 * when none is waiting to start, so a burst of completions costs the executor one wake-up, not one each (on a
 * {@link java.util.concurrent.ForkJoinPool} of one worker, a task per completion spent most of the worker's time
 * parking and waking). Before it runs a completion while more wait, a drain task makes sure another is waiting to
 * start: a stage that blocks (or joins another operation's future) holds back only itself, and an executor with
 * more threads drains with as many as have work. When the executor refuses a task (it was shut down) or throws, or
 * is an {@link ExecutorService} shut down while a task waited in it (which {@code shutdownNow} drops), the thread
 * handing over runs the completions, so every future is still completed. When no completion comes after such a
 * shutdown, a watch that looks every {@value Watch#PERIOD_MILLIS} ms at the hand-offs whose task waits in an
 * {@code ExecutorService} runs the stranded completions on a thread of the library's own. The watch also hands the
 * task over again when a {@link java.util.concurrent.ThreadPoolExecutor} dropped it without a word (a discarding
 * saturation policy): an executor of another kind that drops tasks silently strands the completions queued behind.
 */
final class Handoff implements Executor {
    private final Executor executor;
    /** The executor when it can be shut down (and so drop a waiting drain task), else null. */
    private final ExecutorService service;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** A drain task was handed to the executor and has not started yet. */
    private final AtomicBoolean waiting = new AtomicBoolean();
    /** In {@link Watch#watched}. */
    private final AtomicBoolean watched = new AtomicBoolean();
    private final Runnable drain = this::drain;

    private Handoff(Executor executor) {
        this.executor = executor;
        this.service = executor instanceof ExecutorService s && s != ForkJoinPool.commonPool() ? s : null;
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
            if (service == null) {
                return true;
            }
            if (service.isShutdown()) {
                return false;
            }
            watch();
            return true;
        }
        try {
            executor.execute(drain);
            watch();
            return true;
        } catch (RuntimeException | Error refused) {
            // RejectedExecutionException (shut down), a broken executor, or one out of threads (a ThreadPoolExecutor
            // throws OutOfMemoryError when it cannot start a worker): as a refusal. An Error let through killed the
            // loop, and left this hand-off waiting for a drain task that never came (its futures never completed).
            waiting.set(false);
            return false;
        }
    }

    /** Puts this hand-off under the watch, if its executor can be shut down and it is not watched yet. */
    private void watch() {
        if (service != null && !watched.get() && watched.compareAndSet(false, true)) {
            Watch.add(this);
        }
    }

    /**
     * The watch's look at this hand-off: once nothing waits, it leaves the watch; if its executor was shut down with
     * the drain task still waiting (dropped by {@code shutdownNow}, or run later by {@code shutdown}), the queued
     * completions run on a thread of the library's own.
     */
    private void check() {
        if (!waiting.get() || queue.isEmpty()) {
            Watch.watched.remove(this);
            watched.set(false);
            // A drain task handed over meanwhile found this hand-off still watched: watch it again.
            if (waiting.get() && !queue.isEmpty() && watched.compareAndSet(false, true)) {
                Watch.add(this);
            }
            return;
        }
        if (service.isShutdown() && waiting.compareAndSet(true, false)) {
            Results.Handover.POOL.execute(this::runQueued);
            return;
        }
        // A ThreadPoolExecutor's saturation policy may drop the waiting drain task without a word (DiscardPolicy,
        // DiscardOldestPolicy): not in its queue, not started (drain() clears waiting first thing), at two looks in a
        // row, it is handed over again (at worst a second drain task runs beside one whose start was slow: harmless)
        if (service instanceof java.util.concurrent.ThreadPoolExecutor tpe && !tpe.getQueue().contains(drain)) {
            if (missing && waiting.compareAndSet(true, false)) {
                missing = false;
                if (!schedule()) {
                    Results.Handover.POOL.execute(this::runQueued);
                }
            } else {
                missing = true;
            }
        } else {
            missing = false;
        }
    }

    /** The watch found the drain task neither queued nor started at its last look (only the watch uses it). */
    private boolean missing;

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

    /** The hand-offs whose drain task waits in an {@link ExecutorService}; one daemon thread looks at them. */
    private static final class Watch {
        static final long PERIOD_MILLIS = 50;
        static final Set<Handoff> watched = ConcurrentHashMap.newKeySet();
        /** Started on first use, not in the class's initializer (a thread that could not start there failed the class). */
        private static volatile Thread thread;

        static void add(Handoff h) {
            watched.add(h);
            Thread t = thread;
            if (t == null) {
                synchronized (Watch.class) {
                    t = thread;
                    if (t == null) {
                        try {
                            t = io.github.uring4j.engine.LibraryThreads.shared("uring4j-handoff-watch", Watch::run);
                            t.start();
                        } catch (OutOfMemoryError | RuntimeException noThread) {
                            return; // no thread now (the thread limit): the next hand-off watched tries again
                        }
                        thread = t;
                    }
                }
            }
            LockSupport.unpark(t);
        }

        private static void run() {
            while (true) {
                if (watched.isEmpty()) {
                    LockSupport.park(); // until add
                } else {
                    LockSupport.parkNanos(PERIOD_MILLIS * 1_000_000L);
                }
                for (Handoff h : watched) {
                    try {
                        h.check();
                    } catch (Throwable t) { // the library's pool refused (out of threads): look again next time
                        Log.completionFailed(t);
                    }
                }
            }
        }
    }
}
