package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.github.uring4j.linux.Statx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A {@code struct statx} for {@link Sqe#statx}, with readers for the fields uring4j uses. */
public final class StatxBuffer {
    /** {@code STATX_BASIC_STATS}. */
    public static final int MASK_BASIC = Statx.STATX_BASIC_STATS;
    /** {@code STATX_SIZE}. */
    public static final int MASK_SIZE = Statx.STATX_SIZE;
    /** {@code STATX_DIOALIGN} (6.1): direct-I/O memory and offset alignment. */
    public static final int MASK_DIOALIGN = Statx.STATX_DIOALIGN;

    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;

    private final MemorySegment segment;

    private StatxBuffer(MemorySegment segment) {
        this.segment = segment;
    }

    public static StatxBuffer allocate(Arena arena) {
        return new StatxBuffer(arena.allocate(Statx.LAYOUT));
    }

    /** The 256 bytes to hand to {@link Sqe#statx}. */
    public MemorySegment segment() {
        return segment;
    }

    /** {@code stx_mask}: which fields the kernel filled. */
    public int mask() {
        return segment.get(JAVA_INT, Statx.MASK);
    }

    public long size() {
        return segment.get(JAVA_LONG, Statx.SIZE);
    }

    public int mode() {
        return Short.toUnsignedInt(segment.get(JAVA_SHORT, Statx.MODE));
    }

    public boolean isRegularFile() {
        return (mode() & S_IFMT) == S_IFREG;
    }

    public int blockSize() {
        return segment.get(JAVA_INT, Statx.BLKSIZE);
    }

    /** {@code stx_dev_major}: the major number of the device the file lives on (always filled). */
    public int deviceMajor() {
        return segment.get(JAVA_INT, Statx.DEV_MAJOR);
    }

    /** {@code stx_dev_minor}: the minor number of the device the file lives on (always filled). */
    public int deviceMinor() {
        return segment.get(JAVA_INT, Statx.DEV_MINOR);
    }

    /** Required buffer alignment for {@code O_DIRECT}, or 0 when the kernel or file system did not say. */
    public int dioMemAlign() {
        return (mask() & Statx.STATX_DIOALIGN) != 0 ? segment.get(JAVA_INT, Statx.DIO_MEM_ALIGN) : 0;
    }

    /** Required offset and length alignment for {@code O_DIRECT}, or 0 when unknown. */
    public int dioOffsetAlign() {
        return (mask() & Statx.STATX_DIOALIGN) != 0 ? segment.get(JAVA_INT, Statx.DIO_OFFSET_ALIGN) : 0;
    }
}
