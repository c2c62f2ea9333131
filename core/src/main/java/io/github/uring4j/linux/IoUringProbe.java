package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct io_uring_probe} followed by {@code ops_len} entries of {@code struct io_uring_probe_op}. */
public final class IoUringProbe {
    private IoUringProbe() {
    }

    public static final StructLayout OP_LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("op"), JAVA_BYTE.withName("resv"), JAVA_SHORT.withName("flags"), JAVA_INT.withName("resv2"))
            .withName("io_uring_probe_op");

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("last_op"), JAVA_BYTE.withName("ops_len"), JAVA_SHORT.withName("resv"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv2"))
            .withName("io_uring_probe");

    public static final long LAST_OP = Layouts.offsetOf(LAYOUT, "last_op");
    public static final long OPS_LEN = Layouts.offsetOf(LAYOUT, "ops_len");
    public static final long OPS = LAYOUT.byteSize();
    public static final long OP_OP = Layouts.offsetOf(OP_LAYOUT, "op");
    public static final long OP_FLAGS = Layouts.offsetOf(OP_LAYOUT, "flags");

    /** {@code IO_URING_OP_SUPPORTED}. */
    public static final int OP_SUPPORTED = 1;

    /** Bytes for a probe with room for {@code ops} entries. */
    public static long sizeFor(int ops) {
        return LAYOUT.byteSize() + (long) ops * OP_LAYOUT.byteSize();
    }
}
