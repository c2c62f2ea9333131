package io.github.uring4j.engine;

import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.ring.StatxBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The native memory a client's own system calls need, one set per thread: the reads a caller makes first
 * ({@link CallerReads}) and the syncs a waiting caller makes itself.
 */
public final class CallScratch {
    private static final PerThread<CallScratch> MINE = new PerThread<>(CallScratch::new);

    /** Where {@code errno} is captured. */
    public final MemorySegment capture;
    /** One {@code iovec}. */
    public final MemorySegment iov;
    /** The empty C string ({@code AT_EMPTY_PATH} calls). */
    public final MemorySegment empty;
    public final StatxBuffer statx;
    /** A {@code struct statfs}. */
    public final MemorySegment statfs;

    private CallScratch() {
        Arena a = Arena.ofAuto();
        capture = LeanCalls.allocateCapture(a);
        iov = a.allocate(16, 8);
        empty = a.allocateFrom("");
        statx = StatxBuffer.allocate(a);
        statfs = a.allocate(LeanCalls.STATFS_SIZE, 8);
    }

    /** This thread's. */
    public static CallScratch get() {
        return MINE.get();
    }
}
