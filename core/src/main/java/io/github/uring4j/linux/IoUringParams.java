package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct io_uring_params} with its nested {@code io_sqring_offsets} and {@code io_cqring_offsets}: passed in
 * to {@code io_uring_setup}, copied back with the sizes and ring offsets the kernel chose.
 */
public final class IoUringParams {
    private IoUringParams() {
    }

    /** {@code struct io_sqring_offsets}: where each SQ ring field lives inside the SQ ring mapping. */
    public static final StructLayout SQ_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("flags"), JAVA_INT.withName("dropped"),
            JAVA_INT.withName("array"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("resv2"))
            .withName("io_sqring_offsets");

    /** {@code struct io_cqring_offsets}: where each CQ ring field lives inside the CQ ring mapping. */
    public static final StructLayout CQ_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("overflow"), JAVA_INT.withName("cqes"),
            JAVA_INT.withName("flags"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("resv2"))
            .withName("io_cqring_offsets");

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("sq_entries"), JAVA_INT.withName("cq_entries"), JAVA_INT.withName("flags"),
            JAVA_INT.withName("sq_thread_cpu"), JAVA_INT.withName("sq_thread_idle"), JAVA_INT.withName("features"),
            JAVA_INT.withName("wq_fd"), MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
            SQ_OFFSETS.withName("sq_off"),
            CQ_OFFSETS.withName("cq_off"))
            .withName("io_uring_params");

    public static final long SQ_ENTRIES = Layouts.offsetOf(LAYOUT, "sq_entries");
    public static final long CQ_ENTRIES = Layouts.offsetOf(LAYOUT, "cq_entries");
    public static final long FLAGS = Layouts.offsetOf(LAYOUT, "flags");
    public static final long SQ_THREAD_CPU = Layouts.offsetOf(LAYOUT, "sq_thread_cpu");
    public static final long SQ_THREAD_IDLE = Layouts.offsetOf(LAYOUT, "sq_thread_idle");
    public static final long FEATURES = Layouts.offsetOf(LAYOUT, "features");
    public static final long WQ_FD = Layouts.offsetOf(LAYOUT, "wq_fd");

    public static final long SQ_OFF_HEAD = Layouts.offsetOf(LAYOUT, "sq_off.head");
    public static final long SQ_OFF_TAIL = Layouts.offsetOf(LAYOUT, "sq_off.tail");
    public static final long SQ_OFF_RING_MASK = Layouts.offsetOf(LAYOUT, "sq_off.ring_mask");
    public static final long SQ_OFF_RING_ENTRIES = Layouts.offsetOf(LAYOUT, "sq_off.ring_entries");
    public static final long SQ_OFF_FLAGS = Layouts.offsetOf(LAYOUT, "sq_off.flags");
    public static final long SQ_OFF_DROPPED = Layouts.offsetOf(LAYOUT, "sq_off.dropped");
    public static final long SQ_OFF_ARRAY = Layouts.offsetOf(LAYOUT, "sq_off.array");

    public static final long CQ_OFF_HEAD = Layouts.offsetOf(LAYOUT, "cq_off.head");
    public static final long CQ_OFF_TAIL = Layouts.offsetOf(LAYOUT, "cq_off.tail");
    public static final long CQ_OFF_RING_MASK = Layouts.offsetOf(LAYOUT, "cq_off.ring_mask");
    public static final long CQ_OFF_RING_ENTRIES = Layouts.offsetOf(LAYOUT, "cq_off.ring_entries");
    public static final long CQ_OFF_OVERFLOW = Layouts.offsetOf(LAYOUT, "cq_off.overflow");
    public static final long CQ_OFF_CQES = Layouts.offsetOf(LAYOUT, "cq_off.cqes");
    public static final long CQ_OFF_FLAGS = Layouts.offsetOf(LAYOUT, "cq_off.flags");
}
