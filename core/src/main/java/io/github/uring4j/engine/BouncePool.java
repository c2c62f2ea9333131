package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Direct memory that heap buffers are copied through: the kernel must never see a heap address (the GC moves
 * objects). Power-of-two classes from 4 KiB to 1 MiB are kept for reuse; larger requests get memory of their
 * own that the GC frees. Every segment is 4096-byte aligned, so it also serves {@code O_DIRECT}.
 */
public final class BouncePool {
    public static final int ALIGN = 4096;
    private static final int MIN_SHIFT = 12;
    private static final int MAX_SHIFT = 20;
    private static final int KEEP = 8;

    private final MemorySegment[][] idle = new MemorySegment[MAX_SHIFT + 1][KEEP];
    private final int[] count = new int[MAX_SHIFT + 1];

    private static int shiftFor(long len) {
        int s = 64 - Long.numberOfLeadingZeros(Math.max(1, len) - 1);
        return Math.max(MIN_SHIFT, s);
    }

    public MemorySegment acquire(long len) {
        int s = shiftFor(len);
        if (s > MAX_SHIFT) {
            return Arena.ofAuto().allocate(len, ALIGN);
        }
        synchronized (this) {
            if (count[s] > 0) {
                MemorySegment m = idle[s][--count[s]];
                idle[s][count[s]] = null;
                return m;
            }
        }
        return Arena.ofAuto().allocate(1L << s, ALIGN);
    }

    public void release(MemorySegment m) {
        long size = m.byteSize();
        if (Long.bitCount(size) != 1) {
            return;
        }
        int s = Long.numberOfTrailingZeros(size);
        if (s < MIN_SHIFT || s > MAX_SHIFT) {
            return;
        }
        synchronized (this) {
            if (count[s] < KEEP) {
                idle[s][count[s]++] = m;
            }
        }
    }
}
