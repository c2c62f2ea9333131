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
    private static final VarHandle INLINE_WRITES;
    private static final VarHandle INLINE_BLOCKED;
    private static final VarHandle INLINE_SYNCS;
    private static final VarHandle INLINE_OPENS;
    private static final VarHandle INLINE_SIZES;
    private static final VarHandle INLINE_READS;
    private static final VarHandle FILE_SYSTEMS_ASKED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            IN_FLIGHT = l.findVarHandle(LoopStats.class, "inFlight", int.class);
            FIXED_OPS = l.findVarHandle(LoopStats.class, "fixedOps", long.class);
            COMPLETED = l.findVarHandle(LoopStats.class, "completed", long.class);
            QUEUED = l.findVarHandle(LoopStats.class, "queued", int.class);
            INLINE_WRITES = l.findVarHandle(LoopStats.class, "inlineWrites", long.class);
            INLINE_BLOCKED = l.findVarHandle(LoopStats.class, "inlineBlocked", long.class);
            INLINE_SYNCS = l.findVarHandle(LoopStats.class, "inlineSyncs", long.class);
            INLINE_OPENS = l.findVarHandle(LoopStats.class, "inlineOpens", long.class);
            INLINE_SIZES = l.findVarHandle(LoopStats.class, "inlineSizes", long.class);
            INLINE_READS = l.findVarHandle(LoopStats.class, "inlineReads", long.class);
            FILE_SYSTEMS_ASKED = l.findVarHandle(LoopStats.class, "fileSystemsAsked", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private int inFlight;
    private long fixedOps;
    private long completed;
    private int queued;
    private long inlineWrites;
    private long inlineBlocked;
    private long inlineSyncs;
    private long inlineOpens;
    private long inlineSizes;
    private long inlineReads;
    private long fileSystemsAsked;

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

    /** Loop thread: one more write made by the loop itself (see {@link InlineWrites}). */
    void inlineWriteOne() {
        INLINE_WRITES.setOpaque(this, inlineWrites + 1);
    }

    /** Loop thread: one more {@code fsync}/{@code fdatasync} made by the idle loop itself (see {@link InlineWrites}). */
    void inlineSyncOne() {
        INLINE_SYNCS.setOpaque(this, inlineSyncs + 1);
    }

    /** Loop thread: one more open that creates or truncates, made by the idle loop itself (see {@link InlineWrites}). */
    void inlineOpenOne() {
        INLINE_OPENS.setOpaque(this, inlineOpens + 1);
    }

    /** Opens the loop made itself. */
    long inlineOpens() {
        return (long) INLINE_OPENS.getOpaque(this);
    }

    /** Loop thread: one more {@code statx} for a size, made by the idle loop itself (see {@link InlineWrites}). */
    void inlineSizeOne() {
        INLINE_SIZES.setOpaque(this, inlineSizes + 1);
    }

    /** Sizes the loop asked of the kernel itself. */
    long inlineSizes() {
        return (long) INLINE_SIZES.getOpaque(this);
    }

    /** Loop thread: one more read of a file in memory, made by the loop itself (see {@link InlineWrites#read}). */
    void inlineReadOne() {
        INLINE_READS.setOpaque(this, inlineReads + 1);
    }

    /** Reads the loop made itself. */
    long inlineReads() {
        return (long) INLINE_READS.getOpaque(this);
    }

    /** Loop thread: one more {@code fstatfs} of a file read, to learn whether it lives in memory. */
    void fileSystemAskedOne() {
        FILE_SYSTEMS_ASKED.setOpaque(this, fileSystemsAsked + 1);
    }

    /** The file systems of files read that the loop asked ({@code fstatfs}). */
    long fileSystemsAsked() {
        return (long) FILE_SYSTEMS_ASKED.getOpaque(this);
    }

    /** Syncs the loop made itself. */
    long inlineSyncs() {
        return (long) INLINE_SYNCS.getOpaque(this);
    }

    /** Loop thread: one more loop-made write or sync that held the loop longer than {@link InlineWrites#BLOCKED_NANOS}. */
    void inlineBlockedOne() {
        INLINE_BLOCKED.setOpaque(this, inlineBlocked + 1);
    }

    /** Writes the loop made itself. */
    long inlineWrites() {
        return (long) INLINE_WRITES.getOpaque(this);
    }

    /** Loop-made writes and syncs that held the loop too long. */
    long inlineBlocked() {
        return (long) INLINE_BLOCKED.getOpaque(this);
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
