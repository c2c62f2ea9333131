package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Iovec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** An array of {@code struct iovec} in native memory, for {@link Sqe#readv} and {@link Sqe#writev}. */
public final class IoVecArray {
    private final MemorySegment iovecs;
    private final int capacity;
    /**
     * The scope of each entry's buffer when it was set from a segment (null for a raw address): an encoder checks
     * them again, since an arena closed between {@code set} and the submission would have the kernel write into freed
     * memory (a {@code readv} into buffers of a closed shared arena aborted the JVM in {@code malloc}).
     */
    private final MemorySegment.Scope[] scopes;
    /** Whether each entry was set from a read-only segment: a {@code readv} into it is refused. */
    private final boolean[] readOnly;

    private IoVecArray(MemorySegment iovecs, int capacity) {
        this.iovecs = iovecs;
        this.capacity = capacity;
        this.scopes = new MemorySegment.Scope[capacity];
        this.readOnly = new boolean[capacity];
    }

    /** Room for {@code capacity} buffers, allocated in {@code arena}. */
    public static IoVecArray allocate(Arena arena, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        return new IoVecArray(arena.allocate(Iovec.LAYOUT, capacity), capacity);
    }

    /** Entry {@code index} describes {@code buffer} (native memory only; a read-only one serves writes only). */
    public IoVecArray set(int index, MemorySegment buffer) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("iovec buffers must be native memory");
        }
        if (!buffer.scope().isAlive()) {
            throw new IllegalStateException("iovec buffer belongs to a closed arena");
        }
        write(index, buffer.address(), buffer.byteSize());
        scopes[index] = buffer.scope();
        readOnly[index] = buffer.isReadOnly();
        return this;
    }

    /**
     * Entry {@code index} describes {@code length} bytes at {@code address} (the caller's to keep valid).
     *
     * @throws IllegalArgumentException for a negative length (the kernel takes it as a huge one), or a null address
     *                                  with a length
     */
    public IoVecArray set(int index, long address, long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative iovec length: " + length);
        }
        if (address == 0 && length > 0) {
            throw new IllegalArgumentException("null address for " + length + " bytes");
        }
        write(index, address, length);
        scopes[index] = null;
        readOnly[index] = false;
        return this;
    }

    private void write(int index, long address, long length) {
        java.util.Objects.checkIndex(index, capacity);
        long b = (long) index * Iovec.LAYOUT.byteSize();
        iovecs.set(JAVA_LONG, b + Iovec.BASE, address);
        iovecs.set(JAVA_LONG, b + Iovec.LEN, length);
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

    /** The array's address for an operation on its first {@code count} entries ({@code read}: into them). */
    long address(int count, boolean read) {
        if (count < 0 || count > capacity) {
            throw new IllegalArgumentException("iovec count " + count + " outside 0.." + capacity);
        }
        for (int i = 0; i < count; i++) {
            MemorySegment.Scope s = scopes[i];
            if (s != null && !s.isAlive()) {
                throw new IllegalStateException("iovec buffer " + i + " belongs to a closed arena");
            }
            if (read && readOnly[i]) {
                throw new IllegalArgumentException("iovec buffer " + i + " is read-only, and a readv would write into it");
            }
        }
        return iovecs.address();
    }
}
