package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Iovec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** An array of {@code struct iovec} in native memory, for {@link Sqe#readv} and {@link Sqe#writev}. */
public final class IoVecArray {
    private final MemorySegment iovecs;
    private final int capacity;

    private IoVecArray(MemorySegment iovecs, int capacity) {
        this.iovecs = iovecs;
        this.capacity = capacity;
    }

    /** Room for {@code capacity} buffers, allocated in {@code arena}. */
    public static IoVecArray allocate(Arena arena, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        return new IoVecArray(arena.allocate(Iovec.LAYOUT, capacity), capacity);
    }

    /** Entry {@code index} describes {@code buffer} (native memory only). */
    public IoVecArray set(int index, MemorySegment buffer) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("iovec buffers must be native memory");
        }
        if (!buffer.scope().isAlive()) {
            throw new IllegalStateException("iovec buffer belongs to a closed arena");
        }
        return set(index, buffer.address(), buffer.byteSize());
    }

    /** Entry {@code index} describes {@code length} bytes at {@code address}. */
    public IoVecArray set(int index, long address, long length) {
        long b = (long) index * Iovec.LAYOUT.byteSize();
        iovecs.set(JAVA_LONG, b + Iovec.BASE, address);
        iovecs.set(JAVA_LONG, b + Iovec.LEN, length);
        return this;
    }

    public int capacity() {
        return capacity;
    }

    /** The sum of the first {@code count} lengths. */
    public long totalLength(int count) {
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += iovecs.get(JAVA_LONG, i * Iovec.LAYOUT.byteSize() + Iovec.LEN);
        }
        return t;
    }

    public MemorySegment segment() {
        return iovecs;
    }

    long address(int count) {
        if (count < 0 || count > capacity) {
            throw new IllegalArgumentException("iovec count " + count + " outside 0.." + capacity);
        }
        return iovecs.address();
    }
}
