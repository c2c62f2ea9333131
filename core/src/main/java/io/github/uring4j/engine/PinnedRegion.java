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
    private static volatile PinnedRegion[] open = new PinnedRegion[0];
    /**
     * The open regions by scope, looked up once there are more than {@link #SCAN} (a program with thousands of pools
     * looked through all of them for each operation on a segment). A region is in it before it is in {@link #open}
     * and until it has left it.
     */
    private static final java.util.Map<MemorySegment.Scope, PinnedRegion> BY_SCOPE =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final int SCAN = 8;

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
        this.bufferSize = bufferSize;
        this.count = count;
        synchronized (PinnedRegion.class) {
            BY_SCOPE.put(memory.scope(), this);
            PinnedRegion[] now = open;
            PinnedRegion[] next = java.util.Arrays.copyOf(now, now.length + 1);
            next[now.length] = this;
            open = next;
        }
    }

    /** Regions not freed yet, in all (tests and diagnostics). */
    public static int openRegions() {
        return open.length;
    }

    /** The open region {@code scope} belongs to, or null. */
    static PinnedRegion of(MemorySegment.Scope scope) {
        PinnedRegion[] regions = open;
        if (regions.length > SCAN) {
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
            PinnedRegion[] now = open;
            int n = 0;
            PinnedRegion[] next = new PinnedRegion[Math.max(0, now.length - 1)];
            for (PinnedRegion r : now) {
                if (r != this && n < next.length) {
                    next[n++] = r;
                }
            }
            open = n == next.length ? next : java.util.Arrays.copyOf(next, n);
            BY_SCOPE.remove(memory.scope());
        }
        arena.close();
    }
}
