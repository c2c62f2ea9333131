package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Library memory that the kernel reads and writes instead of memory it must not be given: heap buffers (the GC
 * moves objects) and arenas their owner may close. Power-of-two classes from 4 KiB to 1 MiB are kept for reuse, up
 * to 4 MiB per class (1024 buffers of 4 KiB: enough for a deep queue of small reads); larger requests get memory of
 * their own that the GC frees. Every segment is 4096-byte aligned, so it also serves {@code O_DIRECT}.
 */
public final class BouncePool {
    public static final int ALIGN = 4096;
    private static final int MIN_SHIFT = 12;
    private static final int MAX_SHIFT = 20;
    /** Bytes kept idle per size class. */
    private static final int KEEP_BYTES = 4 << 20;

    private final MemorySegment[][] idle = new MemorySegment[MAX_SHIFT + 1][];
    private final int[] count = new int[MAX_SHIFT + 1];

    public BouncePool() {
        for (int s = MIN_SHIFT; s <= MAX_SHIFT; s++) {
            idle[s] = new MemorySegment[Math.max(4, KEEP_BYTES >> s)];
        }
    }

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
            if (count[s] < idle[s].length) {
                idle[s][count[s]++] = m;
            }
        }
    }
}
