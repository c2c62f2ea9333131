package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct io_uring_cqe}: one completion (16 bytes; 32 with {@code IORING_SETUP_CQE32}). */
public final class IoUringCqe {
    private IoUringCqe() {
    }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("user_data"),
            JAVA_INT.withName("res"),
            JAVA_INT.withName("flags"))
            .withName("io_uring_cqe");

    public static final long USER_DATA = Layouts.offsetOf(LAYOUT, "user_data");
    public static final long RES = Layouts.offsetOf(LAYOUT, "res");
    public static final long FLAGS = Layouts.offsetOf(LAYOUT, "flags");
}
