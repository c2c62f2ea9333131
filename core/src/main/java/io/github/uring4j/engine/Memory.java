package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;

/**
 * Which memory the kernel may be given, and how: the rule that keeps the safe APIs from ever letting the kernel
 * write into freed memory, whatever the caller does with its arenas and pools.
 *
 * <ul>
 * <li>Memory whose lifetime the library controls goes to the kernel as it is and is held strongly until the
 * request ends: direct {@link ByteBuffer}s of {@link ByteBuffer#allocateDirect}, segments of automatic or global
 * arenas, and a {@link PinnedRegion}'s buffers (pinned, so closing their pool defers the free).</li>
 * <li>Memory the caller can free at any moment (a segment of a shared arena, or a buffer viewing one) is checked at
 * submission and bounced through library memory; a read's copy-back fails the request cleanly if the arena was
 * closed meanwhile. It costs one copy of the bytes moved (cached 4 KiB reads: 0.85 times the rate into direct
 * buffers, {@code AsyncFileBenchmark}).</li>
 * <li>A confined arena's memory may only be touched by its owner thread: a write copies it at the call; a read
 * into it is refused, because the completion arrives on another thread (the JDK's asynchronous channels refuse
 * it too).</li>
 * <li>Heap memory moves with the garbage collector: always bounced.</li>
 * </ul>
 */
public final class Memory {
    /** Memory nobody can free while a reference to it is held (global, automatic, a direct buffer's own). */
    public static final int HELD = 0;
    /** A {@code BufferPool}'s memory: pinned while the kernel uses it. */
    public static final int POOL = 1;
    /** A shared arena's memory: any thread may free it at any moment. */
    public static final int SHARED = 2;
    /** A confined arena's memory: only its owner thread may touch or free it. */
    public static final int CONFINED = 3;

    private static final Class<?> GLOBAL_SCOPE = Arena.global().scope().getClass();
    private static final Class<?> AUTO_SCOPE = Arena.ofAuto().scope().getClass();
    private static final Class<?> BUFFER_SCOPE = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(1)).scope().getClass();
    private static final Class<?> CONFINED_SCOPE;

    static {
        try (Arena a = Arena.ofConfined()) {
            CONFINED_SCOPE = a.scope().getClass();
        }
    }

    private Memory() {
    }

    private static final String CONFINED_READ = "an asynchronous read cannot fill memory of a confined arena: it"
            + " completes on another thread, which may not touch that memory; use Arena.ofShared() or Arena.ofAuto(),"
            + " a BufferPool buffer or a direct ByteBuffer";

    /** How the kernel may use {@code scope}'s memory. */
    private static int kindOf(MemorySegment.Scope scope) {
        Class<?> c = scope.getClass();
        if (c == GLOBAL_SCOPE || c == AUTO_SCOPE || c == BUFFER_SCOPE) {
            return HELD;
        }
        if (PinnedRegion.of(scope) != null) {
            return POOL;
        }
        return c == CONFINED_SCOPE ? CONFINED : SHARED;
    }

    private static IllegalStateException freed(String what) {
        return new IllegalStateException(what + " belongs to a closed arena or BufferPool: its memory is freed");
    }

    /** A buffer still lent by a pool that was closed: its memory is alive, but no new operation may use it. */
    private static IllegalStateException poolClosed(String what) {
        return new IllegalStateException(what + " belongs to a closed BufferPool: a closed pool's buffers take part in"
                + " no new operation (its memory is freed once every buffer lent out is released)");
    }

    // ------------------------------------------------------------------------------------------ segments

    /** Points {@code r} at {@code seg} for a transfer of {@code len} bytes (a read into it, or a write from it). */
    public static void segment(Request r, MemorySegment seg, int len, boolean read, BouncePool bounces) {
        r.keep = seg;
        if (!seg.isNative()) {
            bounce(r, seg, len, read, bounces);
            return;
        }
        MemorySegment.Scope scope = seg.scope();
        if (!scope.isAlive()) {
            throw freed("the segment");
        }
        switch (kindOf(scope)) {
            case HELD -> r.address = seg.address();
            case POOL -> {
                PinnedRegion region = PinnedRegion.of(scope);
                if (region == null) {
                    throw freed("the segment");
                }
                if (!region.pin()) {
                    throw poolClosed("the segment");
                }
                r.pinned = region;
                r.address = seg.address();
            }
            case CONFINED -> {
                if (read) {
                    throw new IllegalArgumentException(CONFINED_READ);
                }
                bounce(r, seg, len, false, bounces);
            }
            default -> bounce(r, seg, len, read, bounces);
        }
    }

    private static void bounce(Request r, MemorySegment seg, int len, boolean read, BouncePool bounces) {
        MemorySegment b = bounces.acquire(len);
        try {
            if (read) {
                r.copyBackTo = seg;
            } else {
                MemorySegment.copy(seg, 0, b, 0, len);
            }
        } catch (RuntimeException e) {
            bounces.release(b);
            throw e;
        }
        r.bounce = b;
        r.address = b.address();
    }

    // ------------------------------------------------------------------------------------------ ByteBuffers

    /**
     * Points {@code r} at {@code buf}'s remaining bytes; its position advances by the bytes moved when the request
     * succeeds.
     */
    public static void buffer(Request r, ByteBuffer buf, boolean read, BouncePool bounces) {
        int len = buf.remaining();
        r.keep = buf;
        r.advance = buf;
        if (!buf.isDirect()) {
            bounceBuffer(r, buf, len, read, bounces);
            return;
        }
        Base b = base(buf);
        switch (b.kind) {
            case HELD -> r.address = b.base + buf.position();
            case POOL -> {
                if (!b.region.pin()) {
                    throw poolClosed("the buffer");
                }
                r.pinned = b.region;
                r.address = b.base + buf.position();
            }
            case CONFINED -> {
                if (read) {
                    throw new IllegalArgumentException(CONFINED_READ);
                }
                bounceBuffer(r, buf, len, false, bounces);
            }
            default -> {
                if (!b.scope.isAlive()) {
                    throw freed("the buffer");
                }
                bounceBuffer(r, buf, len, read, bounces);
            }
        }
    }

    private static void bounceBuffer(Request r, ByteBuffer buf, int len, boolean read, BouncePool bounces) {
        MemorySegment b = bounces.acquire(len);
        try {
            if (read) {
                r.copyBackTo = buf;
            } else if (buf.isDirect()) {
                MemorySegment.copy(whole(buf), buf.position(), b, 0, len);
            } else if (buf.hasArray()) { // copied as an array: cheaper than a segment over the buffer
                MemorySegment.copy(buf.array(), buf.arrayOffset() + buf.position(), b, ValueLayout.JAVA_BYTE, 0, len);
            } else {
                MemorySegment.copy(MemorySegment.ofBuffer(buf), 0, b, 0, len); // read-only
            }
        } catch (RuntimeException e) {
            bounces.release(b);
            throw e;
        }
        r.bounce = b;
        r.address = b.address();
    }

    /**
     * The address of a direct buffer's position for a vectored request, which cannot bounce: only memory the
     * library can hold is accepted. {@code r.pinned} takes the buffers' pool, if any (one pool per request).
     */
    public static long vectorBuffer(Request r, ByteBuffer buf, int index) {
        if (!buf.isDirect()) {
            throw new IllegalArgumentException("vectored I/O needs direct buffers (buffer " + index + " is on the heap)");
        }
        Base b = base(buf);
        switch (b.kind) {
            case HELD -> {
                // held through r.advanceAll
            }
            case POOL -> {
                if (r.pinned == null) {
                    if (!b.region.pin()) {
                        throw poolClosed("buffer " + index);
                    }
                    r.pinned = b.region;
                } else if (r.pinned != b.region) {
                    throw new IllegalArgumentException("vectored I/O takes buffers of one BufferPool at a time");
                }
            }
            default -> throw new IllegalArgumentException("vectored I/O needs buffers whose memory the library can"
                    + " hold until the kernel is done (ByteBuffer.allocateDirect, Arena.ofAuto(), Arena.global() or a"
                    + " BufferPool); buffer " + index + " belongs to an arena its owner can close");
        }
        return b.base + buf.position();
    }

    /**
     * Where a direct buffer's memory starts and whose it is, remembered per buffer: {@link MemorySegment#ofBuffer}
     * allocates each call, which the handler path must not. Weak, so a cached buffer can still be freed; a slot lost
     * to a race or a hash collision only costs a recomputation.
     */
    private static final class Base extends WeakReference<ByteBuffer> {
        final long base;
        final int kind;
        /** The memory's scope; null for {@link #HELD} memory, which stays alive as long as its buffer. */
        final MemorySegment.Scope scope;
        final PinnedRegion region;
        /** All of the buffer's memory as a segment (bounced kinds only: the copies go through it). */
        final MemorySegment whole;

        Base(ByteBuffer b, long base, int kind, MemorySegment.Scope scope, PinnedRegion region, MemorySegment whole) {
            super(b);
            this.base = base;
            this.kind = kind;
            this.scope = scope;
            this.region = region;
            this.whole = whole;
        }
    }

    private static final Base[] BASES = new Base[8192];

    private static Base base(ByteBuffer b) {
        int h = System.identityHashCode(b) & (BASES.length - 1);
        Base e = BASES[h];
        if (e != null && e.get() == b && (e.kind == HELD || e.scope.isAlive())) {
            return e;
        }
        MemorySegment seg = MemorySegment.ofBuffer(b);
        MemorySegment.Scope scope = seg.scope();
        if (!scope.isAlive()) {
            throw freed("the buffer");
        }
        int kind = kindOf(scope);
        MemorySegment whole = kind == SHARED || kind == CONFINED
                ? MemorySegment.ofBuffer(b.duplicate().clear()) : null;
        // Not a held buffer's scope: the scope of an allocateDirect buffer's segment refers to the buffer (and an
        // automatic arena's keeps its memory), so a cached entry holding it kept every such buffer ever used, up to
        // the cache's size, from being freed (a drop-in AsynchronousFileChannel read into 300 buffers of 1 MiB, each
        // dropped with its channel, held all 300 MiB after GCs). The scopes of the other kinds are arenas' and
        // pools', which refer to no buffer.
        Base n = new Base(b, seg.address() - b.position(), kind, kind == HELD ? null : scope,
                kind == POOL ? PinnedRegion.of(scope) : null, whole);
        BASES[h] = n;
        return n;
    }

    /**
     * Throws what the JDK's channels throw before a vector's call moves anything, if direct buffer {@code index} of
     * it may not be used by this thread: {@link IllegalStateException} when its memory is freed (its arena or pool
     * closed), {@link WrongThreadException} when a confined arena of another thread owns it. No allocation for a
     * buffer of another kind whose base is cached.
     */
    public static void checkUsable(ByteBuffer direct, int index) {
        Base b;
        try {
            b = base(direct);
        } catch (IllegalStateException e) {
            throw freed("buffer " + index + " of the array");
        }
        if (b.kind == CONFINED && !MemorySegment.ofBuffer(direct).isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("buffer " + index + " of the array belongs to a confined arena of another"
                    + " thread");
        }
    }

    /** Whose a direct buffer's memory is: {@link #HELD}, {@link #POOL}, {@link #SHARED} or {@link #CONFINED}. */
    public static int kind(ByteBuffer direct) {
        return base(direct).kind;
    }

    /** The pool region of a {@link #POOL} buffer. */
    public static PinnedRegion region(ByteBuffer direct) {
        return base(direct).region;
    }

    /** A direct buffer's whole memory as a segment, from the cache (no allocation on a hit). */
    public static MemorySegment whole(ByteBuffer b) {
        Base e = base(b);
        return e.whole != null ? e.whole : MemorySegment.ofBuffer(b.duplicate().clear());
    }

    /** The address of a direct buffer's position (its memory must be alive). */
    public static long address(ByteBuffer b) {
        return base(b).base + b.position();
    }

    // ------------------------------------------------------------------------------------------ the end

    /**
     * After a successful transfer of {@code n > 0} bytes: copies a bounced read back and advances buffers. Returns
     * the failure when the copy-back target's memory was freed (or may not be touched here) meanwhile.
     */
    static Throwable finish(Request r, long n) {
        try {
            return deliver(r, n);
        } catch (RuntimeException e) {
            // The caller changed the buffer while the operation ran (its limit, its position: a pool buffer released
            // and lent to another operation does that). The request must still end, and its memory be released: an
            // exception out of here would leave it (and its client) waiting forever.
            return new IllegalStateException("the " + r.name() + " moved " + n + " bytes, but its buffer was changed"
                    + " while it ran (its position or limit moved, or it was lent out again), so they cannot be"
                    + " delivered: " + e, e);
        }
    }

    private static Throwable deliver(Request r, long n) {
        Object to = r.copyBackTo;
        if (to != null && r.bounce != null) {
            try {
                if (to instanceof ByteBuffer b) {
                    if (b.isDirect()) {
                        MemorySegment.copy(r.bounce, 0, whole(b), b.position(), n);
                    } else {
                        MemorySegment.copy(r.bounce, ValueLayout.JAVA_BYTE, 0, b.array(), b.arrayOffset() + b.position(),
                                Math.toIntExact(n));
                    }
                } else {
                    MemorySegment.copy(r.bounce, 0, (MemorySegment) to, 0, n);
                }
            } catch (IllegalStateException | WrongThreadException e) {
                return new IllegalStateException("the " + r.name() + " completed but its target's memory was freed"
                        + " (or may not be touched by this thread) before the data could be delivered: " + e.getMessage(),
                        e);
            }
        }
        ByteBuffer b = r.advance;
        if (b != null) {
            b.position(b.position() + (int) n);
        }
        ByteBuffer[] all = r.advanceAll;
        if (all != null) {
            long left = n;
            for (ByteBuffer x : all) {
                if (left <= 0) {
                    break;
                }
                int step = (int) Math.min(x.remaining(), left);
                x.position(x.position() + step);
                left -= step;
            }
        }
        return null;
    }

    /** Gives back the library memory a request used; called once, when the kernel is done with it. */
    static void release(Request r, BouncePool bounces) {
        MemorySegment b = r.bounce;
        if (b != null) {
            r.bounce = null;
            bounces.release(b);
        }
        PinnedRegion p = r.pinned;
        if (p != null) {
            r.pinned = null;
            p.unpin();
        }
    }
}
