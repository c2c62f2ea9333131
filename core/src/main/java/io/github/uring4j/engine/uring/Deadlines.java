package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Rules;
import io.github.uring4j.ring.Timespec;
import io.github.uring4j.ring.UringException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.InterruptedByTimeoutException;
import java.util.ArrayList;
import java.util.PriorityQueue;

/**
 * The timeouts of requests that wait to start. A request with a timeout runs out of time from when the loop takes it
 * in: in the kernel its {@code IORING_OP_LINK_TIMEOUT} gets what is left of it (so the chunks of a
 * {@code readFully} share one timeout), and while it waits behind its file's in-flight limit or its device's budget
 * (behind reads of a FIFO nobody writes, say) it is kept here. A timer ({@code IORING_OP_TIMEOUT}) wakes the loop
 * at the earliest deadline; a request whose time ran out leaves its queue and fails with
 * {@link InterruptedByTimeoutException}, as it would in the kernel. Loop thread only.
 */
final class Deadlines {
    /** The user_data of the timers. */
    static final long USER_DATA = -3L;
    /** A timeout this long (36 years) never runs out: it is left to the kernel as it is. */
    static final long FOREVER = Long.MAX_VALUE / 4;

    private record Waiting(Request request, int generation, long deadline) {
    }

    private final EventLoop loop;
    private final MemorySegment timespec;
    private final ArrayList<Waiting> waiting = new ArrayList<>();
    /** Deadlines of the timers in the kernel, earliest first. */
    private final PriorityQueue<Long> armed = new PriorityQueue<>();
    /** When {@link #waiting} must be looked at next: its earliest deadline. */
    private long nextCheck;

    Deadlines(EventLoop loop, Arena arena) {
        this.loop = loop;
        this.timespec = arena.allocate(16, 8);
    }

    /** Starts the clock of {@code r}, if it has a timeout, as the loop takes it in. */
    static void start(Request r) {
        if (r.timeoutNanos > 0 && r.timeoutNanos < FOREVER) {
            r.deadline = System.nanoTime() + r.timeoutNanos;
        }
    }

    /** What is left of the timeout of {@code r}, for its linked timeout: at least a nanosecond. */
    static long left(Request r) {
        return r.timeoutNanos >= FOREVER ? r.timeoutNanos : Math.max(1, r.deadline - System.nanoTime());
    }

    /** {@code r} was put in a queue to wait for its turn: kept here if its timeout can run out. */
    void queued(Request r) {
        if (r.timeoutNanos == 0 || r.timeoutNanos >= FOREVER) {
            return;
        }
        waiting.add(new Waiting(r, r.generation(), r.deadline));
        if (waiting.size() == 1 || r.deadline - nextCheck < 0) {
            nextCheck = r.deadline;
            arm();
        }
    }

    /** Fails the waiting requests whose time ran out, when one may have; true if one did. */
    boolean expire() {
        if (waiting.isEmpty()) {
            return false;
        }
        long now = System.nanoTime();
        if (now - nextCheck < 0) {
            arm(); // in case the SQ had no room when the earliest deadline came in
            return false;
        }
        boolean progress = false;
        boolean any = false;
        long earliest = 0;
        for (int i = waiting.size() - 1; i >= 0; i--) {
            Waiting w = waiting.get(i);
            boolean gone = w.request.generation() != w.generation; // ended, maybe reused since
            if (!gone && w.deadline - now <= 0) {
                gone = true;
                if (loop.unqueue(w.request)) {
                    w.request.fail(Rules.timedOut(w.request));
                    progress = true;
                } // else it started meanwhile: its linked timeout has what was left
            }
            if (gone) {
                Waiting last = waiting.remove(waiting.size() - 1);
                if (i < waiting.size()) {
                    waiting.set(i, last);
                }
            } else if (!any || w.deadline - earliest < 0) {
                earliest = w.deadline;
                any = true;
            }
        }
        if (any) {
            nextCheck = earliest;
            arm();
        }
        return progress;
    }

    /** Puts a timer in the SQ for {@link #nextCheck}, unless one in the kernel fires no later. */
    private void arm() {
        try {
            if (loop.closing || (!armed.isEmpty() && armed.peek() - nextCheck <= 0) || !loop.encoder.room()) {
                return;
            }
        } catch (UringException e) {
            return; // the SQ could not be flushed: the next turn tries again
        }
        Timespec.set(timespec, Math.max(1, nextCheck - System.nanoTime())); // the kernel copies it as it submits
        loop.ring.nextSqe().timeout(timespec, 0, 0).userData(USER_DATA);
        loop.expected++;
        armed.add(nextCheck);
    }

    /** A timer's completion came (it fired, or the shutdown cancelled it). */
    void fired() {
        armed.poll();
    }

    /** Timers in the kernel. */
    int armedCount() {
        return armed.size();
    }

    /** The shutdown fails every waiting request. */
    void clear() {
        waiting.clear();
    }
}
