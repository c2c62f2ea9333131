package io.github.uring4j.engine.threads;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Workers for blocking calls: {@code core} threads, growing to {@code max} while every worker is busy (a call that
 * blocks for long, a read on an empty FIFO, must not hold back other files), shrinking back after 30 s idle.
 */
final class WorkerPool {
    private final ThreadPoolExecutor pool;

    /** Offers fail while the pool may still grow and no worker is idle, so the executor starts a thread. */
    private static final class GrowFirst extends LinkedBlockingQueue<Runnable> {
        private static final long serialVersionUID = 1L;
        transient ThreadPoolExecutor pool;

        @Override
        public boolean offer(Runnable r) {
            ThreadPoolExecutor p = pool;
            if (p != null && p.getPoolSize() < p.getMaximumPoolSize() && p.getActiveCount() >= p.getPoolSize()) {
                return false;
            }
            return super.offer(r);
        }

        boolean force(Runnable r) {
            return super.offer(r);
        }
    }

    WorkerPool(int core, int max, ThreadFactory factory) {
        GrowFirst queue = new GrowFirst();
        this.pool = new ThreadPoolExecutor(core, Math.max(core, max), 30, TimeUnit.SECONDS, queue, factory,
                (r, p) -> {
                    if (p.isShutdown() || !queue.force(r)) {
                        throw new RejectedExecutionException("the threads backend is closed");
                    }
                });
        queue.pool = pool;
    }

    /** @throws RejectedExecutionException once shut down */
    void execute(Runnable r) {
        pool.execute(r);
    }

    /** Queued tasks that never started, removed. */
    java.util.List<Runnable> shutdown() {
        pool.shutdown();
        java.util.List<Runnable> left = new java.util.ArrayList<>();
        pool.getQueue().drainTo(left);
        return left;
    }

    boolean awaitTermination(long nanos) throws InterruptedException {
        return pool.awaitTermination(nanos, TimeUnit.NANOSECONDS);
    }

    int threads() {
        return pool.getPoolSize();
    }
}
