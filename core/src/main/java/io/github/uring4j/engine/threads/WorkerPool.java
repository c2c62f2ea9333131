package io.github.uring4j.engine.threads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workers for blocking calls: {@code core} threads, growing to {@code max} while there are more calls than
 * workers (a call that blocks for long, a read on an empty FIFO, must not hold back other files), shrinking back
 * after 30 s idle.
 */
final class WorkerPool {
    private final ThreadPoolExecutor pool;
    private final GrowFirst queue;
    /** Tasks handed in and not yet finished: more than there are workers means every worker is taken. */
    private final AtomicInteger pending = new AtomicInteger();

    /** Offers fail while there are more tasks than workers and the pool may grow, so the executor adds one. */
    private final class GrowFirst extends LinkedBlockingQueue<Runnable> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean offer(Runnable r) {
            ThreadPoolExecutor p = pool;
            if (p != null && pending.get() > p.getPoolSize() && p.getPoolSize() < p.getMaximumPoolSize()) {
                return false;
            }
            return super.offer(r);
        }

        boolean force(Runnable r) {
            return super.offer(r);
        }
    }

    /** A task that counts itself out when it finishes. */
    private final class Counted implements Runnable {
        final Runnable task;

        Counted(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } catch (Throwable t) {
                // Kept from the worker: a worker that died of it (an OutOfMemoryError the task could not get past)
                // was replaced only if a thread could be made then, and with none left the queued calls waited for
                // ever. The task's own request ended already or is told by its close.
                try {
                    io.github.uring4j.engine.Log.warn("a call of the threads backend threw; its worker goes on: " + t);
                } catch (Throwable full) {
                    // the heap is full: nothing to say it with
                }
            } finally {
                pending.decrementAndGet();
            }
        }
    }

    WorkerPool(int core, int max, ThreadFactory factory) {
        GrowFirst queue = new GrowFirst();
        this.queue = queue;
        this.pool = new ThreadPoolExecutor(core, Math.max(core, max), 30, TimeUnit.SECONDS, queue, factory,
                (r, p) -> {
                    if (p.isShutdown() || !queue.force(r)) {
                        throw new RejectedExecutionException("the threads backend is closed");
                    }
                });
    }

    /** Starts a worker now (the thread factory's failure is thrown here). */
    void startOne() {
        pool.prestartCoreThread();
    }

    /** @throws RejectedExecutionException once shut down */
    void execute(Runnable r) {
        pending.incrementAndGet();
        Counted task = new Counted(r);
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) {
            pending.decrementAndGet();
            throw e;
        } catch (RuntimeException | Error e) {
            // No new worker (the thread factory failed, or a thread limit was met): the workers there are take it
            // in turn; with none, the caller is told.
            if (pool.getPoolSize() > 0 && !pool.isShutdown() && queue.force(task)) {
                return;
            }
            pending.decrementAndGet();
            throw e;
        }
    }

    /** Shuts down; returns the tasks that never started. */
    List<Runnable> shutdown() {
        pool.shutdown();
        List<Runnable> queued = new ArrayList<>();
        pool.getQueue().drainTo(queued);
        List<Runnable> left = new ArrayList<>(queued.size());
        for (Runnable r : queued) {
            pending.decrementAndGet();
            left.add(((Counted) r).task);
        }
        return left;
    }

    boolean awaitTermination(long nanos) throws InterruptedException {
        return pool.awaitTermination(nanos, TimeUnit.NANOSECONDS);
    }

    int threads() {
        return pool.getPoolSize();
    }

    /** Tasks waiting for a worker. */
    int queued() {
        return pool.getQueue().size();
    }
}
