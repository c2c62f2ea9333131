package io.github.uring4j.engine;

import io.github.uring4j.linux.LeanCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Library memory that the kernel reads and writes instead of memory it must not be given: heap buffers (the GC
 * moves objects) and arenas their owner may close. Power-of-two classes from 4 KiB to 1 MiB are kept for reuse, up
 * to 4 MiB per class (1024 buffers of 4 KiB: enough for a deep queue of small reads). Memory beyond that (more in
 * flight than a class keeps, or larger than its largest class) is freed as soon as it comes back: left to the GC,
 * a 64 MiB heap buffer written 75 times held 4.8 GB of native memory (the JDK's channels 0.3 GB), and bursts of 256
 * heap writes of 1 MiB, the same buffers each time, grew the process by 40 MiB a burst, to 2.4 GB. Every segment is
 * 4096-byte aligned, so it also serves {@code O_DIRECT}.
 *
 * <p>What is freed at once comes from the C heap ({@code aligned_alloc}) where native calls are allowed, and from a
 * shared arena of its own otherwise; a segment that never comes back (its request lost to an
 * {@code OutOfMemoryError}) is freed when the GC finds it unreachable.
 */
public final class BouncePool {
    public static final int ALIGN = 4096;
    private static final int MIN_SHIFT = 12;
    private static final int MAX_SHIFT = 20;
    /** Bytes kept idle per size class. */
    private static final int KEEP_BYTES = 4 << 20;

    private final MemorySegment[][] idle = new MemorySegment[MAX_SHIFT + 1][];
    private final int[] count = new int[MAX_SHIFT + 1];
    /** Segments of each class made to be kept (idle or lent out now): at most as many as the class keeps idle. */
    private final int[] kept = new int[MAX_SHIFT + 1];
    /**
     * The memory freed when it comes back, by address: its arena (a shared arena of its own), or its state (C heap),
     * which its cleaner shares so that the memory is freed once, by whichever comes first.
     */
    private final java.util.concurrent.ConcurrentHashMap<Long, Object> once = new java.util.concurrent.ConcurrentHashMap<>();
    /** Whether the C heap can be asked: false once a call failed (no native access). */
    private static volatile boolean cHeap = true;

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
            return freedWhenBack(len);
        }
        synchronized (this) {
            if (count[s] > 0) {
                MemorySegment m = idle[s][--count[s]];
                idle[s][count[s]] = null;
                return m;
            }
            if (kept[s] >= idle[s].length) {
                s = -s; // more in flight than the class keeps
            } else {
                kept[s]++;
            }
        }
        if (s < 0) {
            return freedWhenBack(1L << -s);
        }
        try {
            return Arena.ofAuto().allocate(1L << s, ALIGN);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                kept[s]--;
            }
            throw e;
        }
    }

    /** Takes back {@code m} (once: the kernel is done with it, and nothing reads it any more). */
    public void release(MemorySegment m) {
        Object owner = once.remove(m.address());
        if (owner instanceof Arena a) {
            a.close();
            return;
        }
        if (owner instanceof CHeap c) {
            c.free();
            return;
        }
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
            } else {
                kept[s]--; // not expected: a kept segment always has its place
            }
        }
    }

    /** Segments lent out now that are freed when they come back (for tests). */
    int freedWhenBackNow() {
        return once.size();
    }

    private MemorySegment freedWhenBack(long len) {
        if (cHeap) {
            try {
                return fromCHeap(len);
            } catch (IllegalStateException | LinkageError e) {
                cHeap = false; // no native access here: arenas of their own
            }
        }
        Arena a = Arena.ofShared();
        MemorySegment m;
        try {
            m = a.allocate(len, ALIGN);
        } catch (RuntimeException | Error e) {
            a.close();
            throw e;
        }
        once.put(m.address(), a);
        return m;
    }

    private MemorySegment fromCHeap(long len) {
        long size = (len + ALIGN - 1) & -ALIGN; // aligned_alloc wants a multiple of the alignment
        long address = LeanCalls.alignedAlloc(ALIGN, size);
        if (address == 0) {
            throw new OutOfMemoryError("no native memory for a " + len + "-byte bounce buffer");
        }
        CHeap c = new CHeap(address, once);
        MemorySegment m;
        try {
            m = MemorySegment.ofAddress(address).reinterpret(len, Arena.ofAuto(), c::cleaned);
            once.put(address, c);
        } catch (RuntimeException | Error e) {
            c.free();
            throw e;
        }
        return m;
    }

    /**
     * Memory of the C heap, freed once: by {@link #release}, or by the GC's cleaner of a segment that never came
     * back. The cleaner holds this, not the pool: a pool dropped with memory lent out does not stay reachable.
     */
    private static final class CHeap extends java.util.concurrent.atomic.AtomicBoolean {
        private final long address;
        private final java.util.Map<Long, Object> owners;

        CHeap(long address, java.util.Map<Long, Object> owners) {
            this.address = address;
            this.owners = owners;
        }

        void free() {
            if (compareAndSet(false, true)) {
                LeanCalls.free(address);
            }
        }

        void cleaned(MemorySegment unused) {
            owners.remove(address, this);
            free();
        }
    }
}
