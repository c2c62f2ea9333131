package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A region of native memory the library owns and lends out (a {@code BufferPool}'s buffers): requests pin it while
 * the kernel may use it, and its memory is freed only once it is closed, nothing is pinned and nothing is lent.
 * Open regions are registered here so that a segment of one is recognised (and goes to the kernel directly) by
 * its scope.
 */
public final class PinnedRegion {
    private static final long CLOSED = 1L << 62;
    /**
     * The open regions while there are at most {@link #SCAN} of them (a scan of a few is quicker than a lookup), null
     * while there are more: then {@link #BY_SCOPE} answers. Remade under the class's lock only while it is that small:
     * a copy of every open region per region made or freed cost each pool built or dropped time in the number of pools
     * open, under one lock, and dropped pools piled up faster than the cleaner could free them (a hostile probe: 15,000
     * pools of 64 KiB built and dropped, 600 MB not yet freed).
     */
    private static volatile PinnedRegion[] few = new PinnedRegion[0];
    /** Every open region by scope (written under the class's lock): a region is in it until it has been freed. */
    private static final java.util.Map<MemorySegment.Scope, PinnedRegion> BY_SCOPE =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int SCAN = 8;

    /** Bytes of the regions not freed yet. */
    private static final AtomicLong OPEN_BYTES = new AtomicLong();

    private final Arena arena;
    private final MemorySegment memory;
    private final int bufferSize;
    private final int count;
    /** Pins and loans; {@link #CLOSED} added when the owner closed the region. */
    private final AtomicLong users = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicBoolean freed = new java.util.concurrent.atomic.AtomicBoolean();

    public PinnedRegion(long bytes, long alignment, int bufferSize, int count) {
        this.arena = Arena.ofShared();
        this.memory = arena.allocate(bytes, alignment);
        OPEN_BYTES.addAndGet(bytes);
        this.bufferSize = bufferSize;
        this.count = count;
        synchronized (PinnedRegion.class) {
            BY_SCOPE.put(memory.scope(), this);
            few = fewOrNull();
        }
        retryBusy();
    }

    /** The open regions as an array if there are at most {@link #SCAN}, else null (under the class's lock). */
    private static PinnedRegion[] fewOrNull() {
        return BY_SCOPE.size() <= SCAN ? BY_SCOPE.values().toArray(new PinnedRegion[0]) : null;
    }

    /** Bytes of the regions not freed yet, in all. */
    public static long openBytes() {
        return OPEN_BYTES.get();
    }

    /** Regions not freed yet, in all (tests and diagnostics). */
    public static int openRegions() {
        return BY_SCOPE.size();
    }

    /** The open region {@code scope} belongs to, or null. */
    static PinnedRegion of(MemorySegment.Scope scope) {
        PinnedRegion[] regions = few;
        if (regions == null) {
            return BY_SCOPE.get(scope);
        }
        for (PinnedRegion r : regions) {
            if (r.memory.scope() == scope) {
                return r;
            }
        }
        return null;
    }

    public MemorySegment memory() {
        return memory;
    }

    public long base() {
        return memory.address();
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int count() {
        return count;
    }

    /** Counts one more user (a request, a loan); false once the region is closed. */
    public boolean pin() {
        long u = users.incrementAndGet();
        if ((u & CLOSED) != 0) {
            unpin();
            return false;
        }
        return true;
    }

    /** The last user of a closed region frees it. */
    public void unpin() {
        if (users.decrementAndGet() == CLOSED) {
            free();
        }
    }

    /** Closes the region: freed now if nobody uses it, else when the last user lets go. Idempotent. */
    public void close() {
        while (true) {
            long u = users.get();
            if ((u & CLOSED) != 0) {
                return;
            }
            if (users.compareAndSet(u, u | CLOSED)) {
                if (u == 0) {
                    free();
                }
                return;
            }
        }
    }

    public boolean isClosed() {
        return (users.get() & CLOSED) != 0;
    }

    /** Users right now (requests in flight and buffers lent out). */
    public long users() {
        return users.get() & ~CLOSED;
    }

    private void free() {
        if (!freed.compareAndSet(false, true)) {
            return; // a pin that lost the race with close() let go after the region was already freed
        }
        synchronized (PinnedRegion.class) {
            BY_SCOPE.remove(memory.scope());
            few = fewOrNull();
        }
        OPEN_BYTES.addAndGet(-memory.byteSize());
        retryBusy();
        closeArena();
    }

    /**
     * Regions freed while the JDK still held their memory for an operation of its own (a channel's read or write into
     * a buffer the program went on using after giving it back): their arenas are closed by a later region's free.
     */
    private static final java.util.concurrent.ConcurrentLinkedQueue<PinnedRegion> BUSY =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Closes the arena, or keeps the region for a later try while the JDK holds the memory (it refuses the close). */
    private boolean closeArena() {
        try {
            arena.close();
            return true;
        } catch (IllegalStateException inUse) {
            // "Session is acquired by 1 clients": the memory is freed once that operation ends, by a later free
            BUSY.add(this);
            return false;
        }
    }

    private static void retryBusy() {
        for (int n = BUSY.size(); n > 0; n--) {
            PinnedRegion r = BUSY.poll();
            if (r == null) {
                return;
            }
            r.closeArena();
        }
    }
}
