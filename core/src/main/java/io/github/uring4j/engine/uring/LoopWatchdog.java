package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Log;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Says when an event loop has been kept from its work: a {@code CompletionHandler} or a future's continuation that
 * blocks on the loop (waiting for a lock, a latch, the network, another operation of the same loop) stops every
 * file of that loop, and the program sees only operations that never end. One daemon thread for the JVM, running
 * while some loop wants watching, looks at each loop every so often: a loop that has not turned for its
 * {@linkplain io.github.uring4j.engine.EngineConfig#blockedWarnNanos threshold} while not asleep in the kernel is
 * named in a warning with its thread's stack (where it is stuck), once per stall, and again when it moves on.
 *
 * <p>What it costs the loop: an opaque counter increment per turn and two opaque writes around each sleep.
 */
final class LoopWatchdog {
    private static final List<Watched> WATCHED = new ArrayList<>();
    private static Thread thread;

    /** One loop's state as the watchdog last saw it. */
    private static final class Watched {
        final EventLoop loop;
        final long thresholdNanos;
        long lastTurn = -1;
        long sameSince;
        long warnedAt;

        Watched(EventLoop loop, long thresholdNanos) {
            this.loop = loop;
            this.thresholdNanos = thresholdNanos;
        }
    }

    private LoopWatchdog() {
    }

    /** Watches {@code loop} until it terminates (nothing when its threshold is 0). */
    static void watch(EventLoop loop, long thresholdNanos) {
        if (thresholdNanos <= 0) {
            return;
        }
        synchronized (WATCHED) {
            WATCHED.add(new Watched(loop, thresholdNanos));
            if (thread == null) {
                // no lambda: a JVM that writes a class archive as it exits must not be linking one on this thread
                thread = io.github.uring4j.engine.LibraryThreads.shared("uring4j-loop-watchdog", new Runnable() {
                    @Override
                    public void run() {
                        LoopWatchdog.run();
                    }
                });
                thread.start();
            }
        }
    }

    private static void run() {
        try {
            while (true) {
                try {
                    watchWhileLoopsLive();
                    return;
                } catch (OutOfMemoryError e) {
                    // the heap is full for a moment: the loops stay watched (the thread ended here, and the loops
                    // already watched were never looked at again)
                    try {
                        TimeUnit.MILLISECONDS.sleep(100);
                    } catch (Throwable ignored) {
                        // look again now
                    }
                }
            }
        } finally {
            synchronized (WATCHED) {
                if (thread == Thread.currentThread()) {
                    thread = null; // ended by an error of its own: the next loop to be watched starts another
                }
            }
        }
    }

    private static void watchWhileLoopsLive() {
        while (true) {
            long tick;
            List<Watched> now;
            synchronized (WATCHED) {
                for (java.util.Iterator<Watched> i = WATCHED.iterator(); i.hasNext(); ) {
                    if (i.next().loop.terminated.isDone()) {
                        i.remove();
                    }
                }
                if (WATCHED.isEmpty()) {
                    thread = null; // the next loop to be watched starts a new one
                    return;
                }
                now = new ArrayList<>(WATCHED);
                tick = Long.MAX_VALUE;
                for (Watched w : now) {
                    tick = Math.min(tick, w.thresholdNanos / 4);
                }
            }
            long t = System.nanoTime();
            for (Watched w : now) {
                try {
                    look(w, t);
                } catch (RuntimeException | LinkageError e) {
                    // a logger of the program's that throws: the watch goes on (and keeps pruning ended loops)
                }
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.max(TimeUnit.MILLISECONDS.toNanos(10),
                        Math.min(tick, TimeUnit.SECONDS.toNanos(1))));
            } catch (InterruptedException e) {
                // nobody interrupts it; look again
            }
        }
    }

    private static void look(Watched w, long now) {
        EventLoop loop = w.loop;
        long turn = loop.turns();
        if (turn != w.lastTurn || loop.asleepInKernel()) {
            if (w.warnedAt != 0) {
                Log.warn("event loop " + loop.name + " runs again, after about "
                        + TimeUnit.NANOSECONDS.toMillis(now - w.sameSince) + " ms");
                w.warnedAt = 0;
            }
            w.lastTurn = turn;
            w.sameSince = now;
            return;
        }
        if (w.warnedAt == 0 && now - w.sameSince >= w.thresholdNanos) {
            w.warnedAt = now;
            Thread t = loop.thread;
            StringBuilder where = new StringBuilder();
            for (StackTraceElement e : t.getStackTrace()) {
                where.append("\n\tat ").append(e);
            }
            Log.warn("event loop " + loop.name + " (" + t.getName() + ") has not turned for "
                    + TimeUnit.NANOSECONDS.toMillis(now - w.sameSince) + " ms, and the operations of its files wait"
                    + " for it. Where the stack below shows code of yours that waits (a CompletionHandler or a"
                    + " continuation waiting for a lock, a latch, I/O), run that code elsewhere: on a future executor"
                    + " (IoExecutor.Builder.futureExecutor) or a thread of its own. Where it shows a system call (a"
                    + " sync the loop makes itself), the device is that slow. The loop is here:" + where);
        }
    }
}
