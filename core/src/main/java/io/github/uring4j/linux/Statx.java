package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** {@code struct statx} (256 bytes), as filled by {@code statx(2)} and {@code IORING_OP_STATX}. */
public final class Statx {
    private Statx() {
    }

    public static final StructLayout TIMESTAMP = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"), JAVA_INT.withName("tv_nsec"), JAVA_INT.withName("__reserved"))
            .withName("statx_timestamp");

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("stx_mask"), JAVA_INT.withName("stx_blksize"), JAVA_LONG.withName("stx_attributes"),
            JAVA_INT.withName("stx_nlink"), JAVA_INT.withName("stx_uid"), JAVA_INT.withName("stx_gid"),
            JAVA_SHORT.withName("stx_mode"), MemoryLayout.sequenceLayout(1, JAVA_SHORT).withName("__spare0"),
            JAVA_LONG.withName("stx_ino"), JAVA_LONG.withName("stx_size"), JAVA_LONG.withName("stx_blocks"),
            JAVA_LONG.withName("stx_attributes_mask"),
            TIMESTAMP.withName("stx_atime"), TIMESTAMP.withName("stx_btime"), TIMESTAMP.withName("stx_ctime"),
            TIMESTAMP.withName("stx_mtime"),
            JAVA_INT.withName("stx_rdev_major"), JAVA_INT.withName("stx_rdev_minor"),
            JAVA_INT.withName("stx_dev_major"), JAVA_INT.withName("stx_dev_minor"),
            JAVA_LONG.withName("stx_mnt_id"),
            JAVA_INT.withName("stx_dio_mem_align"), JAVA_INT.withName("stx_dio_offset_align"),
            MemoryLayout.sequenceLayout(12, JAVA_LONG).withName("__spare3"))
            .withName("statx");

    public static final long MASK = Layouts.offsetOf(LAYOUT, "stx_mask");
    public static final long BLKSIZE = Layouts.offsetOf(LAYOUT, "stx_blksize");
    public static final long MODE = Layouts.offsetOf(LAYOUT, "stx_mode");
    public static final long INO = Layouts.offsetOf(LAYOUT, "stx_ino");
    public static final long SIZE = Layouts.offsetOf(LAYOUT, "stx_size");
    public static final long BLOCKS = Layouts.offsetOf(LAYOUT, "stx_blocks");
    public static final long MTIME_SEC = Layouts.offsetOf(LAYOUT, "stx_mtime.tv_sec");
    public static final long MTIME_NSEC = Layouts.offsetOf(LAYOUT, "stx_mtime.tv_nsec");
    public static final long DIO_MEM_ALIGN = Layouts.offsetOf(LAYOUT, "stx_dio_mem_align");
    public static final long DEV_MAJOR = Layouts.offsetOf(LAYOUT, "stx_dev_major");
    public static final long DEV_MINOR = Layouts.offsetOf(LAYOUT, "stx_dev_minor");
    public static final long DIO_OFFSET_ALIGN = Layouts.offsetOf(LAYOUT, "stx_dio_offset_align");

    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    /**
     * The size of the file {@code fd} whose {@code statx} result (asked with {@link #STATX_TYPE} among the mask) is
     * {@code sx}: {@code stx_size}, or for a block device, whose {@code stx_size} is 0, the device's size
     * ({@code BLKGETSIZE64}, which the JDK's channels report too), written into {@code sx}'s {@code stx_size};
     * {@code -errno} when that fails.
     */
    public static long size(Syscalls sys, int fd, MemorySegment sx) {
        if ((Short.toUnsignedInt(sx.get(JAVA_SHORT, MODE)) & S_IFMT) == S_IFBLK) {
            int r = sys.ioctl(fd, Uapi.BLKGETSIZE64, sx.asSlice(SIZE, 8));
            if (r < 0) {
                return r;
            }
        }
        return sx.get(JAVA_LONG, SIZE);
    }

    public static final int STATX_TYPE = 0x1;
    public static final int STATX_MODE = 0x2;
    public static final int STATX_INO = 0x100;
    public static final int STATX_SIZE = 0x200;
    public static final int STATX_BASIC_STATS = 0x7ff;
    /** Direct I/O alignment (Linux 6.1). */
    public static final int STATX_DIOALIGN = 0x2000;
}
