package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.CallScratch;
import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Rules;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.channels.AsynchronousCloseException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A sync ({@code force}, {@code writeAndSync}) that the platform thread waiting for it with {@code join()} makes
 * itself when no loop has taken it in yet, as a fork/join task's {@code join} runs the task it waits for.
 *
 * <p>A sync waits for the device (90-110 µs for an {@code fdatasync} on the development machine's virtio disk), so a
 * 50 µs spin ({@link io.github.uring4j.engine.Waits}) does not cover it: the waiter parks, and the loop that ends the
 * sync must wake it, after the waiter's request had woken the loop. One {@code writeAndSync} at a time ran at 0.79-0.84
 * times the JDK's {@code write} + {@code force(false)} loop, which makes the same two calls on its own thread and is
 * woken once, by the device; 0.85-1.06 since the waiter makes them: its request stays in the loop's queue, claimed
 * ({@link Request#claimHelp}), and the loop leaves it there when it meets it ({@link Request#takeIn}); whichever of the
 * two comes last ends it, so that a request is never reused while it is still a node of that queue.
 *
 * <p>Only when no other change of the file (a write, a sync) is still queued or in flight, so that a log that writes
 * records without waiting and then syncs the last one has them all on the device when the sync ends, as when the loop
 * makes them in turn. Only regular files (a write to a pipe may wait for a reader, and a cancel could not end it),
 * without a timeout, without a test's result filter, from a platform thread that is no loop's. The descriptor is
 * duplicated while pinned ({@code F_DUPFD_CLOEXEC}) and the calls made on the copy, so that a close of the file does
 * not wait for the device while it holds its loop, and the calls never reach a descriptor number that another open was
 * given meanwhile.
 */
final class HelpedSyncs {

    private final UringBackend backend;
    private final EngineConfig config;
    /** Syncs made by the threads waiting for them (tests, the statistics). */
    final LongAdder made = new LongAdder();
    /** Threads making a claimed request now: the executor's close waits for them. */
    private final AtomicInteger active = new AtomicInteger();
    /**
     * Per thread: the requests of this executor it makes now, claimed, and whose ends it runs (one within another when
     * a dependent stage joins another sync).
     */
    private final ThreadLocal<int[]> helping = ThreadLocal.withInitial(() -> new int[1]);
    private volatile boolean unavailable;

    HelpedSyncs(UringBackend backend, EngineConfig config) {
        this.backend = backend;
        this.config = config;
    }

    /**
     * Makes generation {@code gen} of {@code r} on this thread if it is a sync this thread may make and no loop has
     * taken it in: true when this thread made it (the request is ended, or the loop ends it with this thread's result
     * when it meets it in its queue).
     */
    boolean help(Request r, int gen) {
        if (unavailable || config.resultFilter != null) {
            return false;
        }
        Thread t = Thread.currentThread();
        if (t.isVirtual() || backend.mustNotBlock(t) || EventLoop.onAnyLoop()) {
            return false; // a virtual thread's carrier stays free while the ring waits; a loop must not wait
        }
        int kind = r.kind;
        if ((kind != Request.WRITE_SYNC && kind != Request.FSYNC) || !(r.handle instanceof UringFile f)
                || f.type == UringFile.TYPE_OTHER || f.home.failure() != null) {
            return false; // read before the claim: if the request was reused since, the claim fails
        }
        if (f.changesOutstanding() != 1) {
            // An earlier write (or sync) of the file is still queued or in flight: made here, this sync could come
            // before it and not cover it, as it would when the loop makes them in turn. Left to the loop.
            return false;
        }
        if (f.type == UringFile.TYPE_UNKNOWN && !regular(f)) {
            return false;
        }
        active.incrementAndGet();
        int[] mine = helping.get();
        mine[0]++;
        try {
            if (!r.claimHelp(gen)) {
                return false;
            }
            Outcome o = make(r, f, kind);
            made.increment();
            // What the result runs (the future's dependent stages) may close the executor, whose close waits for the
            // other threads making calls, not for this one (helping).
            r.helped(o.value, o.error);
            return true;
        } finally {
            mine[0]--;
            active.decrementAndGet();
        }
    }

    /** What the calls of a claimed request came to: {@code error}, or else {@code value}. */
    private record Outcome(long value, Throwable error) {
    }

    /** Threads making a request they claimed, now. */
    int active() {
        return active.get();
    }

    /**
     * Waits until no other thread makes a claimed request or ends one, or {@code nanos} passed (a sync waiting for a
     * device that does not answer): true when none does.
     */
    boolean awaitIdle(long nanos) {
        long end = System.nanoTime() + nanos;
        int self = helping.get()[0]; // a close made by what this thread's own syncs ran
        for (int i = 0; active.get() > self; i++) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            if (i < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(100_000);
            }
        }
        return true;
    }

    /** Makes the calls of the claimed {@code r} ({@code kind}) on {@code f} here. */
    private Outcome make(Request r, UringFile f, int kind) {
        // Claimed: the fields are this generation's, and no loop changes them now.
        long value = 0;
        Throwable error = null;
        int fd = -1;
        CallScratch sc = null;
        try {
            sc = CallScratch.get();
            if (!f.tryPin()) {
                error = new AsynchronousCloseException(); // closing: as the loop would say
            } else {
                try {
                    fd = LeanCalls.dup(sc.capture, f.fd);
                } finally {
                    f.unpin();
                }
                if (fd < 0) {
                    error = Rules.failure(r, -fd, false, false, config.errors);
                } else if (kind == Request.WRITE_SYNC) {
                    value = writeAll(r, fd, sc);
                    if (value < 0) {
                        error = Rules.failure(r, (int) -value, false, false, config.errors);
                    } else {
                        int res = LeanCalls.fsync(sc.capture, fd, false);
                        if (res < 0) {
                            error = Rules.syncFailure(r, -res, false, config.errors);
                        }
                    }
                } else {
                    int res = LeanCalls.fsync(sc.capture, fd, r.metaData);
                    if (res < 0) {
                        error = Rules.failure(r, -res, false, false, config.errors);
                    }
                }
            }
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true; // the calls cannot be made on this thread: the loops make them from now on
            error = new IOException(r.name() + " of " + r.pathForErrors() + " could not be made: " + e, e);
        } catch (IOException | RuntimeException e) {
            error = e;
        } finally {
            if (fd >= 0) {
                LeanCalls.close(sc.capture, fd);
            }
        }
        return new Outcome(value, error);
    }

    /** Whether {@code f} is a regular file, asked of its descriptor (pinned) the first time. */
    private static boolean regular(UringFile f) {
        if (!f.tryPin()) {
            return false;
        }
        try {
            CallScratch sc = CallScratch.get();
            int res = LeanCalls.statx(sc.capture, f.fd, sc.empty, Uapi.AT_EMPTY_PATH, Statx.STATX_TYPE,
                    sc.statx.segment());
            int t = res == 0 && sc.statx.isRegularFile() ? UringFile.TYPE_REGULAR : UringFile.TYPE_OTHER;
            f.type = t;
            return t == UringFile.TYPE_REGULAR;
        } catch (IllegalStateException | LinkageError e) {
            return false;
        } finally {
            f.unpin();
        }
    }

    /** The write of a {@code writeAndSync} until all of it is written: the bytes written, or {@code -errno}. */
    private long writeAll(Request r, int fd, CallScratch sc) throws IOException {
        for (;;) {
            sc.iov.set(ValueLayout.JAVA_LONG, 0, r.address);
            sc.iov.set(ValueLayout.JAVA_LONG, 8, r.length);
            long w = LeanCalls.pwritev2(sc.capture, fd, sc.iov, 1, r.position, 0);
            if (w == -Errno.EINTR) {
                continue;
            }
            if (w < 0) {
                return w;
            }
            long v = Rules.afterChunk(r, w, config.errors);
            if (v != Rules.MORE) {
                return v; // else short: the rest, at the offset after it
            }
        }
    }
}
