package io.github.uring4j.linux;

/**
 * Constants of the kernel's user ABI ({@code linux/io_uring.h}, {@code fcntl.h}, {@code mman.h}, ...), under their C
 * names. Values past the 6.1 header are marked with the release that introduced them.
 */
public final class Uapi {
    private Uapi() {
    }

    // ---- io_uring syscalls: the same numbers on every architecture (added to the unified table in 5.1)
    public static final long SYS_io_uring_setup = 425;
    public static final long SYS_io_uring_enter = 426;
    public static final long SYS_io_uring_register = 427;

    // ---- opcodes (enum io_uring_op)
    public static final int IORING_OP_NOP = 0;
    public static final int IORING_OP_READV = 1;
    public static final int IORING_OP_WRITEV = 2;
    public static final int IORING_OP_FSYNC = 3;
    public static final int IORING_OP_READ_FIXED = 4;
    public static final int IORING_OP_WRITE_FIXED = 5;
    public static final int IORING_OP_POLL_ADD = 6;
    public static final int IORING_OP_POLL_REMOVE = 7;
    public static final int IORING_OP_SYNC_FILE_RANGE = 8;
    public static final int IORING_OP_SENDMSG = 9;
    public static final int IORING_OP_RECVMSG = 10;
    public static final int IORING_OP_TIMEOUT = 11;
    public static final int IORING_OP_TIMEOUT_REMOVE = 12;
    public static final int IORING_OP_ACCEPT = 13;
    public static final int IORING_OP_ASYNC_CANCEL = 14;
    public static final int IORING_OP_LINK_TIMEOUT = 15;
    public static final int IORING_OP_CONNECT = 16;
    public static final int IORING_OP_FALLOCATE = 17;
    public static final int IORING_OP_OPENAT = 18;
    public static final int IORING_OP_CLOSE = 19;
    public static final int IORING_OP_FILES_UPDATE = 20;
    public static final int IORING_OP_STATX = 21;
    public static final int IORING_OP_READ = 22;
    public static final int IORING_OP_WRITE = 23;
    public static final int IORING_OP_FADVISE = 24;
    public static final int IORING_OP_MADVISE = 25;
    public static final int IORING_OP_SEND = 26;
    public static final int IORING_OP_RECV = 27;
    public static final int IORING_OP_OPENAT2 = 28;
    public static final int IORING_OP_EPOLL_CTL = 29;
    public static final int IORING_OP_SPLICE = 30;
    public static final int IORING_OP_PROVIDE_BUFFERS = 31;
    public static final int IORING_OP_REMOVE_BUFFERS = 32;
    public static final int IORING_OP_TEE = 33;
    public static final int IORING_OP_SHUTDOWN = 34;
    public static final int IORING_OP_RENAMEAT = 35;
    public static final int IORING_OP_UNLINKAT = 36;
    public static final int IORING_OP_MKDIRAT = 37;
    public static final int IORING_OP_SYMLINKAT = 38;
    public static final int IORING_OP_LINKAT = 39;
    public static final int IORING_OP_MSG_RING = 40;
    public static final int IORING_OP_FSETXATTR = 41;
    public static final int IORING_OP_SETXATTR = 42;
    public static final int IORING_OP_FGETXATTR = 43;
    public static final int IORING_OP_GETXATTR = 44;
    public static final int IORING_OP_SOCKET = 45;
    public static final int IORING_OP_URING_CMD = 46;
    public static final int IORING_OP_SEND_ZC = 47;
    public static final int IORING_OP_SENDMSG_ZC = 48;
    /** 6.7 */
    public static final int IORING_OP_READ_MULTISHOT = 49;
    /** 6.7 */
    public static final int IORING_OP_WAITID = 50;
    /** 6.7 */
    public static final int IORING_OP_FUTEX_WAIT = 51;
    /** 6.7 */
    public static final int IORING_OP_FUTEX_WAKE = 52;
    /** 6.7 */
    public static final int IORING_OP_FUTEX_WAITV = 53;
    /** 6.8 */
    public static final int IORING_OP_FIXED_FD_INSTALL = 54;
    /** 6.9 */
    public static final int IORING_OP_FTRUNCATE = 55;

    /** Names of the opcodes, indexed by value, for messages. */
    private static final String[] OP_NAMES = {
        "NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED", "POLL_ADD", "POLL_REMOVE",
        "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE", "ACCEPT", "ASYNC_CANCEL",
        "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX", "READ", "WRITE",
        "FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2", "EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS",
        "REMOVE_BUFFERS", "TEE", "SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT", "MSG_RING",
        "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET", "URING_CMD", "SEND_ZC", "SENDMSG_ZC",
        "READ_MULTISHOT", "WAITID", "FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "FIXED_FD_INSTALL", "FTRUNCATE",
    };

    /** {@code IORING_OP_READ} for 22; {@code IORING_OP_<n>} for an opcode newer than this table. */
    public static String opName(int opcode) {
        return "IORING_OP_" + (opcode >= 0 && opcode < OP_NAMES.length ? OP_NAMES[opcode] : Integer.toString(opcode));
    }

    // ---- sqe->flags
    public static final int IOSQE_FIXED_FILE = 1 << 0;
    public static final int IOSQE_IO_DRAIN = 1 << 1;
    public static final int IOSQE_IO_LINK = 1 << 2;
    public static final int IOSQE_IO_HARDLINK = 1 << 3;
    public static final int IOSQE_ASYNC = 1 << 4;
    public static final int IOSQE_BUFFER_SELECT = 1 << 5;
    public static final int IOSQE_CQE_SKIP_SUCCESS = 1 << 6;

    // ---- io_uring_setup flags
    public static final int IORING_SETUP_IOPOLL = 1 << 0;
    public static final int IORING_SETUP_SQPOLL = 1 << 1;
    public static final int IORING_SETUP_SQ_AFF = 1 << 2;
    public static final int IORING_SETUP_CQSIZE = 1 << 3;
    public static final int IORING_SETUP_CLAMP = 1 << 4;
    public static final int IORING_SETUP_ATTACH_WQ = 1 << 5;
    public static final int IORING_SETUP_R_DISABLED = 1 << 6;
    public static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
    public static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
    public static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;
    public static final int IORING_SETUP_SQE128 = 1 << 10;
    public static final int IORING_SETUP_CQE32 = 1 << 11;
    public static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;
    public static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;
    /** 6.5 */
    public static final int IORING_SETUP_NO_MMAP = 1 << 14;
    /** 6.5 */
    public static final int IORING_SETUP_REGISTERED_FD_ONLY = 1 << 15;
    /** 6.6 */
    public static final int IORING_SETUP_NO_SQARRAY = 1 << 16;

    // ---- io_uring_enter flags
    public static final int IORING_ENTER_GETEVENTS = 1 << 0;
    public static final int IORING_ENTER_SQ_WAKEUP = 1 << 1;
    public static final int IORING_ENTER_SQ_WAIT = 1 << 2;
    public static final int IORING_ENTER_EXT_ARG = 1 << 3;
    public static final int IORING_ENTER_REGISTERED_RING = 1 << 4;

    // ---- sq_ring->flags
    public static final int IORING_SQ_NEED_WAKEUP = 1 << 0;
    public static final int IORING_SQ_CQ_OVERFLOW = 1 << 1;
    public static final int IORING_SQ_TASKRUN = 1 << 2;

    // ---- cq_ring->flags
    public static final int IORING_CQ_EVENTFD_DISABLED = 1 << 0;

    // ---- cqe->flags
    public static final int IORING_CQE_F_BUFFER = 1 << 0;
    public static final int IORING_CQE_F_MORE = 1 << 1;

    // ---- io_uring_params->features
    public static final int IORING_FEAT_SINGLE_MMAP = 1 << 0;
    public static final int IORING_FEAT_NODROP = 1 << 1;
    public static final int IORING_FEAT_SUBMIT_STABLE = 1 << 2;
    public static final int IORING_FEAT_RW_CUR_POS = 1 << 3;
    public static final int IORING_FEAT_CUR_PERSONALITY = 1 << 4;
    public static final int IORING_FEAT_FAST_POLL = 1 << 5;
    public static final int IORING_FEAT_POLL_32BITS = 1 << 6;
    public static final int IORING_FEAT_SQPOLL_NONFIXED = 1 << 7;
    public static final int IORING_FEAT_EXT_ARG = 1 << 8;
    public static final int IORING_FEAT_NATIVE_WORKERS = 1 << 9;
    public static final int IORING_FEAT_RSRC_TAGS = 1 << 10;
    public static final int IORING_FEAT_CQE_SKIP = 1 << 11;
    public static final int IORING_FEAT_LINKED_FILE = 1 << 12;
    /** 6.3 */
    public static final int IORING_FEAT_REG_REG_RING = 1 << 13;

    // ---- io_uring_register opcodes
    public static final int IORING_REGISTER_BUFFERS = 0;
    public static final int IORING_UNREGISTER_BUFFERS = 1;
    public static final int IORING_REGISTER_FILES = 2;
    public static final int IORING_UNREGISTER_FILES = 3;
    public static final int IORING_REGISTER_EVENTFD = 4;
    public static final int IORING_UNREGISTER_EVENTFD = 5;
    public static final int IORING_REGISTER_FILES_UPDATE = 6;
    public static final int IORING_REGISTER_EVENTFD_ASYNC = 7;
    public static final int IORING_REGISTER_PROBE = 8;
    public static final int IORING_REGISTER_PERSONALITY = 9;
    public static final int IORING_UNREGISTER_PERSONALITY = 10;
    public static final int IORING_REGISTER_RESTRICTIONS = 11;
    public static final int IORING_REGISTER_ENABLE_RINGS = 12;
    public static final int IORING_REGISTER_FILES2 = 13;
    public static final int IORING_REGISTER_FILES_UPDATE2 = 14;
    public static final int IORING_REGISTER_BUFFERS2 = 15;
    public static final int IORING_REGISTER_BUFFERS_UPDATE = 16;
    public static final int IORING_REGISTER_IOWQ_AFF = 17;
    public static final int IORING_UNREGISTER_IOWQ_AFF = 18;
    public static final int IORING_REGISTER_IOWQ_MAX_WORKERS = 19;
    public static final int IORING_REGISTER_RING_FDS = 20;
    public static final int IORING_UNREGISTER_RING_FDS = 21;
    public static final int IORING_REGISTER_PBUF_RING = 22;
    public static final int IORING_UNREGISTER_PBUF_RING = 23;
    public static final int IORING_REGISTER_SYNC_CANCEL = 24;
    public static final int IORING_REGISTER_FILE_ALLOC_RANGE = 25;

    // ---- per-opcode flags
    public static final int IORING_FSYNC_DATASYNC = 1 << 0;
    public static final int IORING_TIMEOUT_ABS = 1 << 0;
    public static final int IORING_TIMEOUT_UPDATE = 1 << 1;
    public static final int IORING_TIMEOUT_BOOTTIME = 1 << 2;
    public static final int IORING_TIMEOUT_REALTIME = 1 << 3;
    public static final int IORING_LINK_TIMEOUT_UPDATE = 1 << 4;
    public static final int IORING_TIMEOUT_ETIME_SUCCESS = 1 << 5;
    public static final int IORING_ASYNC_CANCEL_ALL = 1 << 0;
    public static final int IORING_ASYNC_CANCEL_FD = 1 << 1;
    public static final int IORING_ASYNC_CANCEL_ANY = 1 << 2;
    public static final int IORING_ASYNC_CANCEL_FD_FIXED = 1 << 3;
    public static final int IORING_MSG_DATA = 0;
    public static final int IORING_MSG_SEND_FD = 1;
    public static final int IORING_MSG_RING_CQE_SKIP = 1 << 0;
    public static final int IORING_FILE_INDEX_ALLOC = ~0;
    public static final int SPLICE_F_FD_IN_FIXED = 1 << 31;

    // ---- RWF_* (preadv2/pwritev2 and sqe->rw_flags)
    public static final int RWF_HIPRI = 0x01;
    public static final int RWF_DSYNC = 0x02;
    public static final int RWF_SYNC = 0x04;
    public static final int RWF_NOWAIT = 0x08;

    /** {@code struct pollfd}: {@code int fd; short events; short revents;}. */
    public static final int POLLFD_SIZE = 8;
    public static final short POLLIN = 0x001;
    public static final short POLLOUT = 0x004;
    public static final short POLLERR = 0x008;
    public static final short POLLHUP = 0x010;
    /** {@code ioctl}: the bytes a pipe, FIFO, socket or terminal has to read now. */
    public static final long FIONREAD = 0x541B;
    /** {@code ioctl}: a block device's size in bytes, into a {@code u64} ({@code _IOR(0x12, 114, size_t)}). */
    public static final long BLKGETSIZE64 = 0x80081272L;
    /** {@code fcntl}: set the file status flags ({@code O_NONBLOCK}, {@code O_APPEND}, ...). */
    public static final int F_SETFL = 4;
    public static final int RWF_APPEND = 0x10;

    // ---- open(2)
    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    /** The access mode bits: {@link #O_RDONLY}, {@link #O_WRONLY} or {@link #O_RDWR}. */
    public static final int O_ACCMODE = 3;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_NOCTTY = 0400;
    public static final int O_TRUNC = 01000;
    public static final int O_APPEND = 02000;
    public static final int O_NONBLOCK = 04000;
    public static final int O_DSYNC = 010000;
    public static final int O_DIRECT = 040000;
    public static final int O_LARGEFILE = 0100000;
    public static final int O_DIRECTORY = 0200000;
    public static final int O_NOFOLLOW = 0400000;
    public static final int O_NOATIME = 01000000;
    public static final int O_CLOEXEC = 02000000;
    public static final int O_SYNC = 04010000;
    public static final int O_PATH = 010000000;
    public static final int AT_FDCWD = -100;
    public static final int AT_REMOVEDIR = 0x200;
    public static final int AT_SYMLINK_NOFOLLOW = 0x100;
    public static final int AT_EMPTY_PATH = 0x1000;

    // ---- fcntl / lseek
    public static final int F_DUPFD_CLOEXEC = 1030;
    public static final int SEEK_SET = 0;
    public static final int SEEK_CUR = 1;
    public static final int SEEK_END = 2;

    // ---- fallocate / fadvise / madvise / sync_file_range
    public static final int FALLOC_FL_KEEP_SIZE = 0x01;
    public static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    public static final int POSIX_FADV_NORMAL = 0;
    public static final int POSIX_FADV_RANDOM = 1;
    public static final int POSIX_FADV_SEQUENTIAL = 2;
    public static final int POSIX_FADV_WILLNEED = 3;
    public static final int POSIX_FADV_DONTNEED = 4;
    public static final int POSIX_FADV_NOREUSE = 5;
    public static final int MADV_NORMAL = 0;
    public static final int MADV_RANDOM = 1;
    public static final int MADV_SEQUENTIAL = 2;
    public static final int MADV_WILLNEED = 3;
    public static final int MADV_DONTNEED = 4;
    public static final int SYNC_FILE_RANGE_WAIT_BEFORE = 1;
    public static final int SYNC_FILE_RANGE_WRITE = 2;
    public static final int SYNC_FILE_RANGE_WAIT_AFTER = 4;

    // ---- mmap
    public static final int PROT_NONE = 0;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 0x01;
    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_FIXED = 0x10;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_POPULATE = 0x8000;
    public static final int MAP_FIXED_NOREPLACE = 0x100000;

    // ---- eventfd
    public static final int EFD_CLOEXEC = O_CLOEXEC;
    public static final int EFD_NONBLOCK = O_NONBLOCK;

    // ---- splice
    public static final int SPLICE_F_MOVE = 1;
    public static final int SPLICE_F_NONBLOCK = 2;
}
