package io.github.uring4j.file;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * <p>{@link #acquire()} and {@link #release} are thread-safe. Closing the pool while the kernel still uses one of
 * its buffers is the caller's error: release every buffer (after its operation completed) first.
 */
public final class BufferPool implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment region;
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

    private BufferPool(Builder b) {
        if (Integer.bitCount(b.alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two: " + b.alignment);
        }
        this.alignment = b.alignment;
        this.bufferSize = (int) ((b.bufferSize + (long) alignment - 1) / alignment * alignment);
        this.count = b.count;
        this.arena = Arena.ofShared();
        this.region = arena.allocate((long) bufferSize * count, Math.max(alignment, 4096));
        this.slices = new MemorySegment[count];
        this.views = new ByteBuffer[count];
        this.out = new boolean[count];
        this.idle = new int[count];
        for (int i = 0; i < count; i++) {
            slices[i] = region.asSlice((long) i * bufferSize, bufferSize);
            views[i] = slices[i].asByteBuffer();
            idle[i] = count - 1 - i;
        }
        this.idleCount = count;
        String failure = null;
        IoExecutor with = null;
        if (b.register != null) {
            b.register.checkOpen();
            failure = b.register.engine.registerBuffers(this);
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

    private synchronized int take() {
        if (closed) {
            throw new IllegalStateException("BufferPool is closed");
        }
        if (idleCount == 0) {
            return -1;
        }
        int i = idle[--idleCount];
        out[i] = true;
        return i;
    }

    /** Gives back a segment from {@link #acquire()} (or a slice starting at its beginning). */
    public void release(MemorySegment buffer) {
        give(indexOf(buffer.address()));
    }

    /** Gives back a buffer from {@link #acquireBuffer()}, whatever its position. */
    public void release(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("not a buffer of this pool (heap buffer)");
        }
        give(indexOf(MemorySegment.ofBuffer(buffer).address() - buffer.position()));
    }

    private int indexOf(long address) {
        long off = address - region.address();
        if (off < 0 || off >= region.byteSize() || off % bufferSize != 0) {
            throw new IllegalArgumentException("not a buffer of this pool: 0x" + Long.toHexString(address));
        }
        return (int) (off / bufferSize);
    }

    private synchronized void give(int i) {
        if (!out[i]) {
            throw new IllegalStateException("buffer " + i + " released twice");
        }
        out[i] = false;
        idle[idleCount++] = i;
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

    public synchronized int available() {
        return idleCount;
    }

    /** True when the buffers are registered with an executor's rings (fixed-buffer I/O). */
    public boolean isRegistered() {
        return registeredWith != null;
    }

    /** Why registration was asked for and did not happen (for example the memlock limit), else empty. */
    public Optional<String> registrationFailure() {
        return Optional.ofNullable(registrationFailure);
    }

    long base() {
        return region.address();
    }

    MemorySegment[] segmentsForRegistration() {
        return slices.clone();
    }

    /** Unregisters from the rings and frees the memory. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (registeredWith != null && registeredWith.isOpen()) {
            registeredWith.engine.unregisterBuffers(this);
        }
        arena.close();
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

        /** Registers the buffers with {@code executor}'s rings for {@code READ_FIXED}/{@code WRITE_FIXED}. */
        public Builder register(IoExecutor executor) {
            this.register = Objects.requireNonNull(executor);
            return this;
        }

        public BufferPool build() {
            return new BufferPool(this);
        }
    }
}
