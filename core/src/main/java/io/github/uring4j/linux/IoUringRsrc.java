package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The resource-registration argument structs: {@code io_uring_files_update}, {@code io_uring_rsrc_register},
 * {@code io_uring_rsrc_update2}, and {@code io_uring_getevents_arg} for {@code IORING_ENTER_EXT_ARG}.
 */
public final class IoUringRsrc {
    private IoUringRsrc() {
    }

    /** {@code struct io_uring_files_update} ({@code IORING_REGISTER_FILES_UPDATE}). */
    public static final StructLayout FILES_UPDATE = MemoryLayout.structLayout(
            JAVA_INT.withName("offset"), JAVA_INT.withName("resv"), JAVA_LONG.withName("fds"))
            .withName("io_uring_files_update");

    /** {@code struct io_uring_rsrc_register} ({@code IORING_REGISTER_FILES2}, {@code IORING_REGISTER_BUFFERS2}). */
    public static final StructLayout RSRC_REGISTER = MemoryLayout.structLayout(
            JAVA_INT.withName("nr"), JAVA_INT.withName("flags"), JAVA_LONG.withName("resv2"),
            JAVA_LONG.withName("data"), JAVA_LONG.withName("tags"))
            .withName("io_uring_rsrc_register");

    /** {@code struct io_uring_rsrc_update2} ({@code IORING_REGISTER_FILES_UPDATE2}). */
    public static final StructLayout RSRC_UPDATE2 = MemoryLayout.structLayout(
            JAVA_INT.withName("offset"), JAVA_INT.withName("resv"), JAVA_LONG.withName("data"),
            JAVA_LONG.withName("tags"), JAVA_INT.withName("nr"), JAVA_INT.withName("resv2"))
            .withName("io_uring_rsrc_update2");

    /** {@code struct io_uring_getevents_arg} ({@code IORING_ENTER_EXT_ARG}). */
    public static final StructLayout GETEVENTS_ARG = MemoryLayout.structLayout(
            JAVA_LONG.withName("sigmask"), JAVA_INT.withName("sigmask_sz"), JAVA_INT.withName("pad"),
            JAVA_LONG.withName("ts"))
            .withName("io_uring_getevents_arg");

    public static final long FILES_UPDATE_OFFSET = Layouts.offsetOf(FILES_UPDATE, "offset");
    public static final long FILES_UPDATE_FDS = Layouts.offsetOf(FILES_UPDATE, "fds");

    public static final long RSRC_REGISTER_NR = Layouts.offsetOf(RSRC_REGISTER, "nr");
    public static final long RSRC_REGISTER_FLAGS = Layouts.offsetOf(RSRC_REGISTER, "flags");
    public static final long RSRC_REGISTER_DATA = Layouts.offsetOf(RSRC_REGISTER, "data");
    public static final long RSRC_REGISTER_TAGS = Layouts.offsetOf(RSRC_REGISTER, "tags");

    public static final long RSRC_UPDATE2_OFFSET = Layouts.offsetOf(RSRC_UPDATE2, "offset");
    public static final long RSRC_UPDATE2_DATA = Layouts.offsetOf(RSRC_UPDATE2, "data");
    public static final long RSRC_UPDATE2_TAGS = Layouts.offsetOf(RSRC_UPDATE2, "tags");
    public static final long RSRC_UPDATE2_NR = Layouts.offsetOf(RSRC_UPDATE2, "nr");

    public static final long GETEVENTS_SIGMASK = Layouts.offsetOf(GETEVENTS_ARG, "sigmask");
    public static final long GETEVENTS_SIGMASK_SZ = Layouts.offsetOf(GETEVENTS_ARG, "sigmask_sz");
    public static final long GETEVENTS_TS = Layouts.offsetOf(GETEVENTS_ARG, "ts");

    /** {@code IORING_RSRC_REGISTER_SPARSE}. */
    public static final int REGISTER_SPARSE = 1;
    /** {@code IORING_REGISTER_FILES_SKIP}: leave this slot as it is in an update. */
    public static final int FILES_SKIP = -2;
}
