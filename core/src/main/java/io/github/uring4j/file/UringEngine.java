package io.github.uring4j.file;

import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.ring.UringException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The io_uring backend: a fixed set of event loops; a file stays on the loop that opened it. */
final class UringEngine extends Engine {
    private final UringLoop[] loops;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean open = true;

    /** Starts the loops and waits until each has its ring, or throws the first setup failure. */
    UringEngine(IoExecutor executor, IoExecutor.Config config, Syscalls sys, ThreadFactory factory, String name)
            throws UringException {
        super(executor);
        loops = new UringLoop[config.loops];
        for (int i = 0; i < loops.length; i++) {
            UringLoop l = new UringLoop(this, name + "-" + i, sys, config);
            Thread t = factory.newThread(l);
            l.thread = t;
            loops[i] = l;
        }
        for (UringLoop l : loops) {
            l.thread.start();
        }
        Throwable failure = null;
        for (UringLoop l : loops) {
            try {
                l.started.get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = e;
            }
        }
        if (failure != null) {
            open = false;
            for (UringLoop l : loops) {
                l.beginClose();
            }
            for (UringLoop l : loops) {
                l.terminatedFuture.join();
            }
            if (failure instanceof UringException u) {
                throw u;
            }
            if (failure instanceof RuntimeException r) {
                throw r;
            }
            if (failure instanceof Error err) {
                throw err;
            }
            throw new CompletionException(failure);
        }
    }

    @Override
    Backend backend() {
        return Backend.IO_URING;
    }

    UringLoop[] loops() {
        return loops;
    }

    UringLoop pick() {
        int n = loops.length;
        return n == 1 ? loops[0] : loops[Math.floorMod(next.getAndIncrement(), n)];
    }

    @Override
    void route(Op op) {
        if (op.loop == null) {
            op.loop = op.file != null ? op.file.loop : pick();
        }
    }

    @Override
    void execute(Op op) {
        route(op);
        op.loop.enqueue(op);
    }

    @Override
    void cancel(Op op, int gen, UringLoop loop) {
        Op req = executor.ops.acquire();
        req.kind = Op.CANCEL;
        req.target = op;
        req.targetGeneration = gen;
        loop.enqueue(req);
    }

    @Override
    String registerBuffers(BufferPool pool) {
        CompletableFuture<?>[] done = new CompletableFuture<?>[loops.length];
        for (int i = 0; i < loops.length; i++) {
            done[i] = loops[i].runOnLoop(l -> l.registerBuffers(pool), executor.ops);
        }
        String failure = null;
        for (int i = 0; i < loops.length; i++) {
            try {
                done[i].join();
            } catch (CompletionException e) {
                Throwable c = e.getCause();
                if (failure == null) {
                    failure = c instanceof UringException u ? u.getMessage() : String.valueOf(c);
                }
            }
        }
        if (failure != null) {
            unregisterBuffers(pool);
        }
        return failure;
    }

    @Override
    void unregisterBuffers(BufferPool pool) {
        CompletableFuture<?>[] done = new CompletableFuture<?>[loops.length];
        for (int i = 0; i < loops.length; i++) {
            done[i] = loops[i].runOnLoop(l -> l.unregisterBuffers(pool), executor.ops);
        }
        for (CompletableFuture<?> f : done) {
            try {
                f.join();
            } catch (CompletionException e) {
                // closed loop: its ring (and registration) is gone already
            }
        }
    }

    @Override
    void shutdown() {
        open = false;
        for (UringLoop l : loops) {
            l.beginClose();
        }
        Thread me = Thread.currentThread();
        for (UringLoop l : loops) {
            if (l.thread == me) {
                return; // called from a completion callback: the loops finish on their own
            }
        }
        boolean interrupted = false;
        for (UringLoop l : loops) {
            while (true) {
                try {
                    l.terminatedFuture.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    boolean isOpen() {
        return open;
    }

    @Override
    int inFlight() {
        int n = 0;
        for (UringLoop l : loops) {
            n += l.inFlightCount;
        }
        return n;
    }
}
