package io.github.uring4j.engine.uring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters one loop writes and any thread reads. Opaque stores keep the hot path free of fences; a reader sees a
 * recent value, which is all a statistic needs.
 */
final class LoopStats {
    private static final VarHandle IN_FLIGHT;
    private static final VarHandle FIXED_OPS;
    private static final VarHandle COMPLETED;
    private static final VarHandle QUEUED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            IN_FLIGHT = l.findVarHandle(LoopStats.class, "inFlight", int.class);
            FIXED_OPS = l.findVarHandle(LoopStats.class, "fixedOps", long.class);
            COMPLETED = l.findVarHandle(LoopStats.class, "completed", long.class);
            QUEUED = l.findVarHandle(LoopStats.class, "queued", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private int inFlight;
    private long fixedOps;
    private long completed;
    private int queued;

    /** Loop thread: slots in use now. */
    void inFlight(int n) {
        IN_FLIGHT.setOpaque(this, n);
    }

    /** Loop thread: one more READ_FIXED/WRITE_FIXED entry. */
    void fixedOne() {
        FIXED_OPS.setOpaque(this, fixedOps + 1);
    }

    /** Loop thread: one more request ended. */
    void completedOne() {
        COMPLETED.setOpaque(this, completed + 1);
    }

    /** Loop thread: requests waiting behind a file's limit or for SQ room changed by {@code delta}. */
    void queued(int delta) {
        QUEUED.setOpaque(this, queued + delta);
    }

    /** Requests waiting behind a file's in-flight limit or for room in the SQ. */
    int queued() {
        return (int) QUEUED.getOpaque(this);
    }

    /** Requests in the kernel or between entries. */
    int inFlight() {
        return (int) IN_FLIGHT.getOpaque(this);
    }

    /** READ_FIXED/WRITE_FIXED entries prepared. */
    long fixedOps() {
        return (long) FIXED_OPS.getOpaque(this);
    }

    /** Requests ended. */
    long completed() {
        return (long) COMPLETED.getOpaque(this);
    }
}
