package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct io_uring_sqe}: one submission queue entry (64 bytes; 128 with {@code IORING_SETUP_SQE128}). */
public final class IoUringSqe {
    private IoUringSqe() {
    }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("opcode"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("ioprio"),
            JAVA_INT.withName("fd"),
            MemoryLayout.unionLayout(
                    JAVA_LONG.withName("off"),
                    JAVA_LONG.withName("addr2"),
                    MemoryLayout.structLayout(JAVA_INT.withName("cmd_op"), JAVA_INT.withName("__pad1")).withName("_cmd"))
                    .withName("_u_off"),
            MemoryLayout.unionLayout(JAVA_LONG.withName("addr"), JAVA_LONG.withName("splice_off_in")).withName("_u_addr"),
            JAVA_INT.withName("len"),
            // The per-opcode flags word: the kernel reads it under whichever name the opcode uses.
            MemoryLayout.unionLayout(
                    JAVA_INT.withName("rw_flags"), JAVA_INT.withName("fsync_flags"), JAVA_SHORT.withName("poll_events"),
                    JAVA_INT.withName("poll32_events"), JAVA_INT.withName("sync_range_flags"), JAVA_INT.withName("msg_flags"),
                    JAVA_INT.withName("timeout_flags"), JAVA_INT.withName("accept_flags"), JAVA_INT.withName("cancel_flags"),
                    JAVA_INT.withName("open_flags"), JAVA_INT.withName("statx_flags"), JAVA_INT.withName("fadvise_advice"),
                    JAVA_INT.withName("splice_flags"), JAVA_INT.withName("rename_flags"), JAVA_INT.withName("unlink_flags"),
                    JAVA_INT.withName("hardlink_flags"), JAVA_INT.withName("xattr_flags"), JAVA_INT.withName("msg_ring_flags"),
                    JAVA_INT.withName("uring_cmd_flags"))
                    .withName("_u_op_flags"),
            JAVA_LONG.withName("user_data"),
            MemoryLayout.unionLayout(JAVA_SHORT.withName("buf_index"), JAVA_SHORT.withName("buf_group")).withName("_u_buf"),
            JAVA_SHORT.withName("personality"),
            MemoryLayout.unionLayout(
                    JAVA_INT.withName("splice_fd_in"),
                    JAVA_INT.withName("file_index"),
                    MemoryLayout.structLayout(JAVA_SHORT.withName("addr_len"), JAVA_SHORT.withName("__pad3")).withName("_al"))
                    .withName("_u_fd_in"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(JAVA_LONG.withName("addr3"), JAVA_LONG.withName("__pad2")).withName("_a3"))
                    .withName("_u_addr3"))
            .withName("io_uring_sqe");

    public static final long OPCODE = Layouts.offsetOf(LAYOUT, "opcode");
    public static final long FLAGS = Layouts.offsetOf(LAYOUT, "flags");
    public static final long IOPRIO = Layouts.offsetOf(LAYOUT, "ioprio");
    public static final long FD = Layouts.offsetOf(LAYOUT, "fd");
    public static final long OFF = Layouts.offsetOf(LAYOUT, "off");
    public static final long ADDR2 = Layouts.offsetOf(LAYOUT, "addr2");
    public static final long ADDR = Layouts.offsetOf(LAYOUT, "addr");
    public static final long SPLICE_OFF_IN = Layouts.offsetOf(LAYOUT, "splice_off_in");
    public static final long LEN = Layouts.offsetOf(LAYOUT, "len");
    public static final long OP_FLAGS = Layouts.offsetOf(LAYOUT, "rw_flags");
    public static final long USER_DATA = Layouts.offsetOf(LAYOUT, "user_data");
    public static final long BUF_INDEX = Layouts.offsetOf(LAYOUT, "buf_index");
    public static final long PERSONALITY = Layouts.offsetOf(LAYOUT, "personality");
    public static final long SPLICE_FD_IN = Layouts.offsetOf(LAYOUT, "splice_fd_in");
    public static final long FILE_INDEX = Layouts.offsetOf(LAYOUT, "file_index");
    public static final long ADDR3 = Layouts.offsetOf(LAYOUT, "addr3");
    public static final long PAD2 = Layouts.offsetOf(LAYOUT, "__pad2");
}
