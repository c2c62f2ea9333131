package io.github.uring4j.file;

import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Log;
import io.github.uring4j.engine.PinnedRegion;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;

/**
 * A fixed set of equal, aligned, direct buffers carved from one native region. Aligned for {@code O_DIRECT}
 * (the file's {@code STATX_DIOALIGN} with {@link Builder#alignmentFor}, else 4096). Optionally registered with an
 * executor's rings: {@link AsyncFile} then reads and writes these buffers with {@code READ_FIXED}/{@code WRITE_FIXED}
 * (no page pinning per operation). Registered memory counts against the locked-memory limit; when registration
 * fails the pool still works, unregistered, and {@link #registrationFailure()} says why (with the limit).
 *
 * <p>{@link #acquire()} and {@link #release} are thread-safe. The library owns the memory: {@link #close()} stops
 * lending and frees the region only once every buffer lent out has been released and every operation using one has
 * completed, so closing a pool early never lets the kernel write into freed memory. A buffer used in a new operation
 * after the pool closed is refused ({@link IllegalStateException}), whether or not its memory is freed yet (a drop-in
 * {@code FileChannel} copies to or from it instead, as the JDK's channel would, while its memory lives). A pool
 * dropped without {@code close()} is closed once it is unreachable, as if {@code close()} had been called then: its
 * memory is freed when the operations using its buffers have completed and the buffers lent out are given back or
 * unreachable. A buffer of a closed pool that is still lent out keeps the memory while it (the {@code MemorySegment}
 * or the {@code ByteBuffer} lent, or a {@code ByteBuffer} sliced or duplicated from it) is reachable, as a direct
 * {@code ByteBuffer} keeps its memory; a segment sliced from it with {@code asSlice} does not keep it, and fails with
 * {@link IllegalStateException} once the memory is freed. Past the heap's size of pools' memory not freed yet,
 * building a pool first asks for a garbage collection, so that dropped pools are found, as the JDK's direct buffers do.
 */
public final class BufferPool implements AutoCloseable {
    private final PinnedRegion region;
    private final int bufferSize;
    private final int count;
    private final int alignment;
    private final MemorySegment[] slices;
    private final ByteBuffer[] views;
    private final boolean[] out;
    private final int[] idle;
    private int idleCount;
    private final IoExecutor registeredWith;
    private final String registrationFailure;
    private boolean closed;
    private final Cleaner.Cleanable cleanable;
    /** Loans of a closed pool that ended because their buffer was collected (guarded by {@link #out}). */
    private final boolean[] collected;


    /**
     * Unregisters and closes the region, once: by {@link #close()} or when the pool became unreachable. A buffer still
     * lent out then ends its loan when it becomes unreachable itself (nobody can give it back any more), so that the
     * memory is freed once the last lent buffer is collected; the pool lets go of its buffers, so that a closed pool
     * the program still holds does not keep them reachable. {@code out} is the pool's lending state and lock;
     * {@code collected} marks the loans that ended so.
     */
    private record Closing(PinnedRegion region, IoBackend registeredWith, MemorySegment[] slices, ByteBuffer[] views,
            boolean[] out, boolean[] collected) implements Runnable {
        @Override
        public void run() {
            if (registeredWith != null && registeredWith.isOpen()) {
                registeredWith.unregisterBuffers(region);
            }
            if (slices != null) {
                synchronized (out) {
                    for (int i = 0; i < out.length; i++) {
                        if (out[i]) {
                            // the segment lent, or the one behind the ByteBuffer lent (which holds it)
                            io.github.uring4j.engine.Cleaners.POOLS.register(slices[i],
                                    new LoanEnd(region, out, collected, i));
                        }
                    }
                    java.util.Arrays.fill(slices, null);
                    java.util.Arrays.fill(views, null);
                }
            }
            region.close();
        }
    }

    /** Ends the loan of buffer {@code index} of a closed pool once the buffer is unreachable, if it is still lent. */
    private record LoanEnd(PinnedRegion region, boolean[] out, boolean[] collected, int index) implements Runnable {
        @Override
        public void run() {
            boolean lent;
            synchronized (out) {
                lent = out[index];
                out[index] = false;
                collected[index] = lent;
            }
            if (lent) {
                region.unpin();
            }
        }
    }

    /**
     * Native memory of pools not freed yet beyond which building a pool first asks for a garbage collection, so that
     * pools dropped without {@code close()} (or closed with buffers lent out and dropped) are found and freed: their
     * memory is out of sight of the collector, which otherwise ran too seldom to free them (a hostile probe's 6,000
     * dropped pools of 512 KiB held 3 GB until a collection; 40,000 held 20 GB). The JDK's direct buffers count against
     * {@code -XX:MaxDirectMemorySize}, by default the heap's size, and trigger a collection past it: the same bound.
     */
    private static final long COLLECT_PAST = Runtime.getRuntime().maxMemory();
    /** The pools' memory after the last collection asked for here. */
    private static final java.util.concurrent.atomic.AtomicLong AFTER_LAST_COLLECTION =
            new java.util.concurrent.atomic.AtomicLong();

    /**
     * Before a pool of {@code bytes} is made: past {@link #COLLECT_PAST}, and half of it more than after the last
     * collection asked for here, a collection, and the pools it found unreachable freed on this thread.
     */
    private static void makeRoom(long bytes) {
        long open = PinnedRegion.openBytes() + bytes;
        long after = AFTER_LAST_COLLECTION.get();
        if (open <= COLLECT_PAST || open - after <= COLLECT_PAST / 2
                || !AFTER_LAST_COLLECTION.compareAndSet(after, open)) {
            return;
        }
        System.gc();
        // the references are queued by the JVM's reference thread a moment after the collection
        for (int quiet = 0; quiet < 10; ) {
            if (io.github.uring4j.engine.Cleaners.POOLS.help(Integer.MAX_VALUE) == 0) {
                quiet++;
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        AFTER_LAST_COLLECTION.set(PinnedRegion.openBytes() + bytes);
    }

    private BufferPool(Builder b) {
        if (Integer.bitCount(b.alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + b.alignment);
        }
        this.alignment = b.alignment;
        long rounded = ((long) b.bufferSize + alignment - 1) / alignment * alignment;
        if (rounded > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("bufferSize " + b.bufferSize + " rounded up to the alignment (" + alignment
                    + ") is " + rounded + " bytes, more than one buffer may hold (2 GiB - 1)");
        }
        this.bufferSize = (int) rounded;
        this.count = b.count;
        long total = rounded * count;
        if (b.register != null) {
            b.register.checkOpen(); // before the memory is made: a pool refused here held all of it for good
        }
        // pools dropped without close() and found unreachable: two released here before one more is made, so that
        // a program dropping them faster than the cleaner's thread releases them pays for them as it goes
        io.github.uring4j.engine.Cleaners.POOLS.help(2);
        makeRoom(total);
        PinnedRegion made = new PinnedRegion(total, Math.max(alignment, 4096), bufferSize, count);
        this.region = made;
        IoExecutor with = null;
        boolean built = false;
        try {
            this.slices = new MemorySegment[count];
            this.views = new ByteBuffer[count];
            this.out = new boolean[count];
            this.collected = new boolean[count];
            this.idle = new int[count];
            MemorySegment memory = made.memory();
            for (int i = 0; i < count; i++) {
                slices[i] = memory.asSlice((long) i * bufferSize, bufferSize);
                views[i] = slices[i].asByteBuffer();
                idle[i] = count - 1 - i;
            }
            this.idleCount = count;
            String failure = null;
            if (b.register != null) {
                b.register.checkOpen();
                failure = b.register.backend.registerBuffers(made);
                if (failure == null) {
                    with = b.register;
                } else if (b.register.backend() == Backend.IO_URING) {
                    failure = "registering " + count + " buffers of " + bufferSize + " bytes failed, so I/O uses them"
                            + " unregistered: " + failure;
                    Log.warn(failure);
                }
            }
            this.registeredWith = with;
            this.registrationFailure = failure;
            this.cleanable = io.github.uring4j.engine.Cleaners.POOLS.register(this,
                    new Closing(made, with == null ? null : with.backend, slices, views, out, collected));
            built = true;
        } finally {
            if (!built) {
                // refused (the executor closed meanwhile) or out of memory or threads: nothing holds the memory
                new Closing(made, with == null ? null : with.backend, null, null, null, null).run();
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code count} unregistered buffers of {@code bufferSize} bytes, 4096-aligned. */
    public static BufferPool create(int bufferSize, int count) {
        return builder().bufferSize(bufferSize).count(count).build();
    }

    /** A buffer, or null when all are out. */
    public MemorySegment acquire() {
        int i = take();
        return i < 0 ? null : slices[i];
    }

    /** A buffer as a cleared direct ByteBuffer, or null when all are out. */
    public ByteBuffer acquireBuffer() {
        int i = take();
        return i < 0 ? null : views[i].clear();
    }

    private int take() {
        synchronized (out) {
            if (closed) {
                throw new IllegalStateException("BufferPool is closed");
            }
            if (idleCount == 0) {
                return -1;
            }
            if (!region.pin()) {
                throw new IllegalStateException("BufferPool is closed");
            }
            int i = idle[--idleCount];
            out[i] = true;
            return i;
        }
    }

    /** Gives back a segment from {@link #acquire()} (or a slice starting at its beginning). */
    public void release(MemorySegment buffer) {
        ours(buffer);
        give(indexOf(buffer.address()));
    }

    /**
     * Refuses memory that only has a buffer's address (a segment made with {@code MemorySegment.ofAddress} of another
     * thread's buffer was taken, and that buffer lent twice): the pool's own buffers share its memory's scope.
     */
    private void ours(MemorySegment buffer) {
        if (buffer.scope() != region.memory().scope()) {
            throw new IllegalArgumentException("not a buffer of this pool: 0x" + Long.toHexString(buffer.address())
                    + " is not of its memory");
        }
    }

    /** Gives back a buffer from {@link #acquireBuffer()}, whatever its position. */
    public void release(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("not a buffer of this pool (heap buffer)");
        }
        // Its start from a copy at position 0, not from its address less its position: an operation still using it
        // (the caller's mistake) may move the position between the two reads, and the pool took it for a stranger.
        MemorySegment whole = MemorySegment.ofBuffer(buffer.duplicate().clear());
        ours(whole);
        give(indexOf(whole.address()));
    }

    /** Whether buffer {@code i}'s loan ended because the buffer was collected (under {@link #out}'s lock). */
    private boolean collectedLoan(int i) {
        boolean was = collected[i];
        collected[i] = false; // a second release of it is one too many
        return was;
    }

    private int indexOf(long address) {
        long off = address - region.base();
        if (off < 0 || off >= (long) bufferSize * count || off % bufferSize != 0) {
            throw new IllegalArgumentException("not a buffer of this pool: 0x" + Long.toHexString(address));
        }
        return (int) (off / bufferSize);
    }

    private void give(int i) {
        synchronized (out) {
            if (!out[i]) {
                if (collectedLoan(i)) {
                    // its loan ended when the buffer lent was collected (this is a slice of it): nothing to give
                    return;
                }
                throw new IllegalStateException("buffer " + i + " released twice");
            }
            out[i] = false;
            idle[idleCount++] = i;
        }
        region.unpin();
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int count() {
        return count;
    }

    public int alignment() {
        return alignment;
    }

    public int available() {
        synchronized (out) {
            return idleCount;
        }
    }

    /** True when the buffers are registered with an executor's rings (fixed-buffer I/O). */
    public boolean isRegistered() {
        return registeredWith != null;
    }

    /** Why registration was asked for and did not happen (for example the memlock limit), else empty. */
    public Optional<String> registrationFailure() {
        return Optional.ofNullable(registrationFailure);
    }

    /**
     * Stops lending and unregisters from the rings. The memory is freed now if no buffer is lent out and no
     * operation uses one, else when the last is released or completes.
     */
    @Override
    public void close() {
        synchronized (out) {
            if (closed) {
                return;
            }
            closed = true;
        }
        cleanable.clean();
    }

    /** True once the region's memory is actually freed (tests). */
    boolean isFreed() {
        return region.isClosed() && region.users() == 0;
    }

    /** Settings for a {@link BufferPool}. */
    public static final class Builder {
        private int bufferSize = 64 * 1024;
        private int count = 16;
        private int alignment = 4096;
        private IoExecutor register;

        private Builder() {
        }

        /** Bytes per buffer (rounded up to the alignment); default 64 KiB. */
        public Builder bufferSize(int bufferSize) {
            if (bufferSize <= 0) {
                throw new IllegalArgumentException("bufferSize must be positive: " + bufferSize);
            }
            this.bufferSize = bufferSize;
            return this;
        }

        /** Number of buffers; default 16. */
        public Builder count(int count) {
            if (count <= 0 || count > 16384) {
                throw new IllegalArgumentException("count must be 1..16384: " + count);
            }
            this.count = count;
            return this;
        }

        /** Alignment of every buffer, a power of two; default 4096. */
        public Builder alignment(int alignment) {
            if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
                throw new IllegalArgumentException("alignment must be a power of two: " + alignment);
            }
            this.alignment = alignment;
            return this;
        }

        /** The alignment {@code O_DIRECT} needs for {@code file} (from {@code STATX_DIOALIGN}, else 4096). */
        public Builder alignmentFor(AsyncFile file) {
            int a = Math.max(file.directIoAlignment(), file.directIoMemoryAlignment());
            this.alignment = Integer.bitCount(a) == 1 ? a : Integer.highestOneBit(a) << 1;
            return this;
        }

        /**
         * Registers the buffers with {@code executor}'s rings for {@code READ_FIXED}/{@code WRITE_FIXED}. Several pools
         * may be registered with one executor at once, 16384 buffers in all (each ring's table of registered buffers;
         * a closed pool's slots serve the next). Where they cannot be registered (the table is full, the locked-memory
         * limit, a kernel before 5.19 with another pool registered: {@code EBUSY}), the pool is used unregistered
         * (plain {@code READ}/{@code WRITE}) after one warning that says why. {@link BufferPool#isRegistered()} says
         * which. A pool built on an event loop (in a completion) does not wait for the executor's other loops: it is
         * registered with its own loop's ring at once and with the others' in their turn, before any operation queued
         * to them after the build; a loop that cannot register it then says why in a warning and uses it unregistered.
         */
        public Builder register(IoExecutor executor) {
            this.register = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Makes the pool. Up to two pools dropped without {@code close()} and found unreachable are closed here first,
         * as {@code close()} would (a program that drops them faster than the library's cleaner thread frees them
         * pays for them as it goes, instead of piling up native memory).
         */
        public BufferPool build() {
            return new BufferPool(this);
        }
    }
}
