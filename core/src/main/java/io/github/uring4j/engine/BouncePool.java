package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Library memory that the kernel reads and writes instead of memory it must not be given: heap buffers (the GC
 * moves objects) and arenas their owner may close. Power-of-two classes from 4 KiB to 1 MiB are kept for reuse, up
 * to 4 MiB per class (1024 buffers of 4 KiB: enough for a deep queue of small reads); larger requests get memory of
 * their own, freed as soon as it comes back: left to the GC, a 64 MiB heap buffer written 75 times held 4.8 GB of
 * native memory (the JDK's channels 0.3 GB). Every segment is 4096-byte aligned, so it also serves {@code O_DIRECT}.
 */
public final class BouncePool {
    public static final int ALIGN = 4096;
    private static final int MIN_SHIFT = 12;
    private static final int MAX_SHIFT = 20;
    /** Bytes kept idle per size class. */
    private static final int KEEP_BYTES = 4 << 20;

    private final MemorySegment[][] idle = new MemorySegment[MAX_SHIFT + 1][];
    private final int[] count = new int[MAX_SHIFT + 1];
    /** The arenas of the segments larger than the largest class, by address: closed when the segment comes back. */
    private final java.util.concurrent.ConcurrentHashMap<Long, Arena> large = new java.util.concurrent.ConcurrentHashMap<>();

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
            Arena a = Arena.ofShared();
            MemorySegment m;
            try {
                m = a.allocate(len, ALIGN);
            } catch (RuntimeException | Error e) {
                a.close();
                throw e;
            }
            large.put(m.address(), a);
            return m;
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

    /** Takes back {@code m} (once: the kernel is done with it, and nothing reads it any more). */
    public void release(MemorySegment m) {
        long size = m.byteSize();
        if (size > 1L << MAX_SHIFT) {
            Arena a = large.remove(m.address());
            if (a != null) {
                a.close();
            }
            return;
        }
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
