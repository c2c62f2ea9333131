package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.github.uring4j.linux.IoUringSqe;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.MemorySegment;

/**
 * A submission queue entry being prepared: {@link IoUring#nextSqe()} positions this one object on the next free
 * entry, an encoder ({@link #read}, {@link #openat}, ...) writes the whole entry for its opcode, and the modifiers
 * ({@link #userData}, {@link #flags}, {@link #rwFlags}, ...) adjust it. Nothing here allocates.
 *
 * <p><b>Memory.</b> Every segment an encoder takes (buffers, paths, iovecs, timespecs, statx and open_how structs)
 * is read or written by the kernel after submission, possibly from a worker thread. It must stay valid and
 * unmoved until the operation's completion has been reaped. Heap segments are refused.
 *
 * <p>Each encoder checks the ring's probe and throws {@link UnsupportedOperationException} naming the opcode when
 * the running kernel lacks it.
 */
public final class Sqe {
    private final IoUring ring;
    private final MemorySegment sqes;
    private long base;

    Sqe(IoUring ring, MemorySegment sqes) {
        this.ring = ring;
        this.sqes = sqes;
    }

    void position(long offset) {
        this.base = offset;
    }

    // ---------------------------------------------------------------------------------------------- plumbing

    /** Gives the entry back to the ring and returns {@code e} to throw: a refused entry is never submitted. */
    private RuntimeException reject(RuntimeException e) {
        ring.unclaimLast();
        return e;
    }

    /** Writes every field of a 64-byte entry; fields the opcode does not use are zero. */
    private Sqe prep(int opcode, int fd, long addr, int len, long off) {
        if (!ring.opSupported(opcode)) {
            throw reject(new UnsupportedOperationException(Uapi.opName(opcode) + " is not supported by this kernel (probe)"));
        }
        MemorySegment s = sqes;
        long b = base;
        s.set(JAVA_BYTE, b + IoUringSqe.OPCODE, (byte) opcode);
        s.set(JAVA_BYTE, b + IoUringSqe.FLAGS, (byte) 0);
        s.set(JAVA_SHORT, b + IoUringSqe.IOPRIO, (short) 0);
        s.set(JAVA_INT, b + IoUringSqe.FD, fd);
        s.set(JAVA_LONG, b + IoUringSqe.OFF, off);
        s.set(JAVA_LONG, b + IoUringSqe.ADDR, addr);
        s.set(JAVA_INT, b + IoUringSqe.LEN, len);
        s.set(JAVA_INT, b + IoUringSqe.OP_FLAGS, 0);
        s.set(JAVA_LONG, b + IoUringSqe.USER_DATA, 0L);
        // buf_index, personality and file_index/splice_fd_in: one 64-bit store
        s.set(JAVA_LONG, b + IoUringSqe.BUF_INDEX, 0L);
        s.set(JAVA_LONG, b + IoUringSqe.ADDR3, 0L);
        s.set(JAVA_LONG, b + IoUringSqe.PAD2, 0L);
        return this;
    }

    private Sqe prep(int opcode, FileTarget file, long addr, int len, long off) {
        prep(opcode, file.value(), addr, len, off);
        if (file instanceof FileTarget.Fixed) {
            sqes.set(JAVA_BYTE, base + IoUringSqe.FLAGS, (byte) Uapi.IOSQE_FIXED_FILE);
        }
        return this;
    }

    private long addr(MemorySegment m, String what) {
        if (!m.isNative()) {
            throw reject(new IllegalArgumentException(what
                    + " must be native memory (a heap segment can move under the kernel)"));
        }
        return m.address();
    }

    private int len32(long len) {
        if (len < 0 || len > 0xFFFF_FFFFL) {
            throw reject(new IllegalArgumentException("length out of range for one operation: " + len));
        }
        return (int) len;
    }

    private long iovecs(IoVecArray iovecs, int count) {
        try {
            return iovecs.address(count);
        } catch (IllegalArgumentException e) {
            throw reject(e);
        }
    }

    // ---------------------------------------------------------------------------------------------- modifiers

    /** The value the completion carries back. */
    public Sqe userData(long userData) {
        sqes.set(JAVA_LONG, base + IoUringSqe.USER_DATA, userData);
        return this;
    }

    /** Adds {@code IOSQE_*} bits ({@link SqeFlag}). */
    public Sqe flags(int sqeFlags) {
        if ((sqeFlags & Uapi.IOSQE_FIXED_FILE) != 0) {
            throw reject(new IllegalArgumentException("IOSQE_FIXED_FILE comes from the FileTarget, not from flags()"));
        }
        byte f = sqes.get(JAVA_BYTE, base + IoUringSqe.FLAGS);
        sqes.set(JAVA_BYTE, base + IoUringSqe.FLAGS, (byte) (f | sqeFlags));
        return this;
    }

    /** {@code IOSQE_IO_LINK}: the next entry starts only after this one succeeds. */
    public Sqe link() {
        return flags(Uapi.IOSQE_IO_LINK);
    }

    /** {@code IOSQE_IO_HARDLINK}: the next entry starts after this one, whatever its result. */
    public Sqe hardLink() {
        return flags(Uapi.IOSQE_IO_HARDLINK);
    }

    /** {@code IOSQE_IO_DRAIN}: starts after everything submitted before it has completed. */
    public Sqe drain() {
        return flags(Uapi.IOSQE_IO_DRAIN);
    }

    /** {@code IOSQE_ASYNC}: go straight to a worker thread. */
    public Sqe async() {
        return flags(Uapi.IOSQE_ASYNC);
    }

    /** {@code IOSQE_CQE_SKIP_SUCCESS}: post no completion unless it fails. */
    public Sqe skipSuccess() {
        return flags(Uapi.IOSQE_CQE_SKIP_SUCCESS);
    }

    /** The per-opcode flags word ({@code rw_flags}: {@link RwFlag}; for other opcodes their own flags). */
    public Sqe rwFlags(int rwFlags) {
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, rwFlags);
        return this;
    }

    public Sqe ioprio(int ioprio) {
        sqes.set(JAVA_SHORT, base + IoUringSqe.IOPRIO, (short) ioprio);
        return this;
    }

    public Sqe personality(int personality) {
        sqes.set(JAVA_SHORT, base + IoUringSqe.PERSONALITY, (short) personality);
        return this;
    }

    // ---------------------------------------------------------------------------------------------- operations

    /** {@code IORING_OP_NOP}. */
    public Sqe nop() {
        return prep(Uapi.IORING_OP_NOP, -1, 0, 0, 0);
    }

    /** {@code IORING_OP_READ} of {@code buffer.byteSize()} bytes at {@code offset} ({@code -1}: the file position). */
    public Sqe read(FileTarget file, MemorySegment buffer, long offset) {
        return prep(Uapi.IORING_OP_READ, file, addr(buffer, "buffer"), len32(buffer.byteSize()), offset);
    }

    /** {@code IORING_OP_READ} of {@code length} bytes into the native memory at {@code address}. */
    public Sqe read(FileTarget file, long address, int length, long offset) {
        return prep(Uapi.IORING_OP_READ, file, address, length, offset);
    }

    /** {@code IORING_OP_WRITE} of {@code buffer} at {@code offset} ({@code -1}: the file position). */
    public Sqe write(FileTarget file, MemorySegment buffer, long offset) {
        return prep(Uapi.IORING_OP_WRITE, file, addr(buffer, "buffer"), len32(buffer.byteSize()), offset);
    }

    /** {@code IORING_OP_WRITE} of {@code length} bytes from the native memory at {@code address}. */
    public Sqe write(FileTarget file, long address, int length, long offset) {
        return prep(Uapi.IORING_OP_WRITE, file, address, length, offset);
    }

    /** {@code IORING_OP_READV} into the first {@code count} buffers of {@code iovecs}. */
    public Sqe readv(FileTarget file, IoVecArray iovecs, int count, long offset) {
        return prep(Uapi.IORING_OP_READV, file, iovecs(iovecs, count), count, offset);
    }

    /** {@code IORING_OP_WRITEV} from the first {@code count} buffers of {@code iovecs}. */
    public Sqe writev(FileTarget file, IoVecArray iovecs, int count, long offset) {
        return prep(Uapi.IORING_OP_WRITEV, file, iovecs(iovecs, count), count, offset);
    }

    /**
     * {@code IORING_OP_READ_FIXED} into {@code buffer}, which must lie inside registered buffer {@code bufIndex}
     * ({@link IoUring#registerBuffers}).
     */
    public Sqe readFixed(FileTarget file, MemorySegment buffer, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_READ_FIXED, file, addr(buffer, "buffer"), len32(buffer.byteSize()), offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /** {@code IORING_OP_READ_FIXED} of {@code length} bytes at {@code address} inside registered buffer {@code bufIndex}. */
    public Sqe readFixed(FileTarget file, long address, int length, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_READ_FIXED, file, address, length, offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /** {@code IORING_OP_WRITE_FIXED} from {@code buffer}, inside registered buffer {@code bufIndex}. */
    public Sqe writeFixed(FileTarget file, MemorySegment buffer, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_WRITE_FIXED, file, addr(buffer, "buffer"), len32(buffer.byteSize()), offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /** {@code IORING_OP_WRITE_FIXED} of {@code length} bytes at {@code address} inside registered buffer {@code bufIndex}. */
    public Sqe writeFixed(FileTarget file, long address, int length, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_WRITE_FIXED, file, address, length, offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /**
     * {@code IORING_OP_OPENAT}: {@code path} is a NUL-terminated string (relative paths resolve against
     * {@code dirFd}, {@code AT_FDCWD = -100} for the working directory). The result is the new descriptor.
     */
    public Sqe openat(int dirFd, MemorySegment path, int openFlags, int mode) {
        prep(Uapi.IORING_OP_OPENAT, dirFd, addr(path, "path"), mode, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, openFlags);
        return this;
    }

    /**
     * {@code IORING_OP_OPENAT} straight into registered-file slot {@code slot} (5.15); {@code slot = -1} lets the
     * kernel pick a free one and return it.
     */
    public Sqe openatDirect(int dirFd, MemorySegment path, int openFlags, int mode, int slot) {
        openat(dirFd, path, openFlags, mode);
        sqes.set(JAVA_INT, base + IoUringSqe.FILE_INDEX, slot < 0 ? Uapi.IORING_FILE_INDEX_ALLOC : slot + 1);
        return this;
    }

    /** {@code IORING_OP_OPENAT2} with a {@code struct open_how} (flags, mode, resolve). */
    public Sqe openat2(int dirFd, MemorySegment path, MemorySegment openHow) {
        return prep(Uapi.IORING_OP_OPENAT2, dirFd, addr(path, "path"), len32(openHow.byteSize()),
                addr(openHow, "open_how"));
    }

    /** {@code IORING_OP_OPENAT2} into registered-file slot {@code slot} ({@code -1}: any free slot). */
    public Sqe openat2Direct(int dirFd, MemorySegment path, MemorySegment openHow, int slot) {
        openat2(dirFd, path, openHow);
        sqes.set(JAVA_INT, base + IoUringSqe.FILE_INDEX, slot < 0 ? Uapi.IORING_FILE_INDEX_ALLOC : slot + 1);
        return this;
    }

    /** {@code IORING_OP_CLOSE} of a plain descriptor. */
    public Sqe close(int fd) {
        return prep(Uapi.IORING_OP_CLOSE, fd, 0, 0, 0);
    }

    /** {@code IORING_OP_CLOSE} of registered-file slot {@code slot} (5.15): the slot becomes empty. */
    public Sqe closeFixed(int slot) {
        prep(Uapi.IORING_OP_CLOSE, 0, 0, 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.FILE_INDEX, slot + 1);
        return this;
    }

    /** {@code IORING_OP_FSYNC}; {@code dataSync} adds {@code IORING_FSYNC_DATASYNC} (fdatasync). */
    public Sqe fsync(FileTarget file, boolean dataSync) {
        prep(Uapi.IORING_OP_FSYNC, file, 0, 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, dataSync ? Uapi.IORING_FSYNC_DATASYNC : 0);
        return this;
    }

    /** {@code IORING_OP_SYNC_FILE_RANGE} ({@code SYNC_FILE_RANGE_*} flags). */
    public Sqe syncFileRange(FileTarget file, long offset, int length, int syncFlags) {
        prep(Uapi.IORING_OP_SYNC_FILE_RANGE, file, 0, length, offset);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, syncFlags);
        return this;
    }

    /** {@code IORING_OP_FALLOCATE} ({@code FALLOC_FL_*} mode). */
    public Sqe fallocate(FileTarget file, int mode, long offset, long length) {
        // The kernel takes the length from sqe->addr and the mode from sqe->len.
        return prep(Uapi.IORING_OP_FALLOCATE, file, length, mode, offset);
    }

    /** {@code IORING_OP_FADVISE} ({@code POSIX_FADV_*}). */
    public Sqe fadvise(FileTarget file, long offset, int length, int advice) {
        prep(Uapi.IORING_OP_FADVISE, file, 0, length, offset);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, advice);
        return this;
    }

    /** {@code IORING_OP_MADVISE} over {@code region} ({@code MADV_*}). */
    public Sqe madvise(MemorySegment region, int advice) {
        prep(Uapi.IORING_OP_MADVISE, -1, addr(region, "region"), len32(region.byteSize()), 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, advice);
        return this;
    }

    /**
     * {@code IORING_OP_STATX} of {@code path} relative to {@code dirFd} (with {@code AT_EMPTY_PATH} and an empty
     * path: of {@code dirFd} itself) into a 256-byte {@code struct statx}.
     */
    public Sqe statx(int dirFd, MemorySegment path, int atFlags, int mask, MemorySegment statxBuf) {
        if (statxBuf.byteSize() < 256) {
            throw reject(new IllegalArgumentException("statx buffer must hold 256 bytes, has " + statxBuf.byteSize()));
        }
        prep(Uapi.IORING_OP_STATX, dirFd, addr(path, "path"), mask, addr(statxBuf, "statx buffer"));
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, atFlags);
        return this;
    }

    /** {@code IORING_OP_FTRUNCATE} (6.9): sets the file's size to {@code length}. */
    public Sqe ftruncate(FileTarget file, long length) {
        return prep(Uapi.IORING_OP_FTRUNCATE, file, 0, 0, length);
    }

    /** {@code IORING_OP_RENAMEAT} ({@code RENAME_*} flags). */
    public Sqe renameat(int oldDirFd, MemorySegment oldPath, int newDirFd, MemorySegment newPath, int renameFlags) {
        prep(Uapi.IORING_OP_RENAMEAT, oldDirFd, addr(oldPath, "old path"), newDirFd, addr(newPath, "new path"));
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, renameFlags);
        return this;
    }

    /** {@code IORING_OP_UNLINKAT}; {@code AT_REMOVEDIR} removes a directory. */
    public Sqe unlinkat(int dirFd, MemorySegment path, int atFlags) {
        prep(Uapi.IORING_OP_UNLINKAT, dirFd, addr(path, "path"), 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, atFlags);
        return this;
    }

    /** {@code IORING_OP_MKDIRAT}. */
    public Sqe mkdirat(int dirFd, MemorySegment path, int mode) {
        return prep(Uapi.IORING_OP_MKDIRAT, dirFd, addr(path, "path"), mode, 0);
    }

    /**
     * {@code IORING_OP_SPLICE} of {@code length} bytes from {@code in} at {@code inOffset} to {@code out} at
     * {@code outOffset}; one side must be a pipe, whose offset is {@code -1}.
     */
    public Sqe splice(FileTarget in, long inOffset, FileTarget out, long outOffset, int length, int spliceFlags) {
        prep(Uapi.IORING_OP_SPLICE, out, 0, length, outOffset);
        MemorySegment s = sqes;
        s.set(JAVA_LONG, base + IoUringSqe.SPLICE_OFF_IN, inOffset);
        s.set(JAVA_INT, base + IoUringSqe.SPLICE_FD_IN, in.value());
        int f = spliceFlags;
        if (in instanceof FileTarget.Fixed) {
            f |= Uapi.SPLICE_F_FD_IN_FIXED;
        }
        s.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, f);
        return this;
    }

    /**
     * {@code IORING_OP_TIMEOUT}: completes with {@code -ETIME} after the {@code __kernel_timespec} at
     * {@code timespec}, or with 0 once {@code count} other completions arrived (0: time only).
     */
    public Sqe timeout(MemorySegment timespec, int count, int timeoutFlags) {
        prep(Uapi.IORING_OP_TIMEOUT, -1, addr(timespec, "timespec"), 1, count);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, timeoutFlags);
        return this;
    }

    /**
     * {@code IORING_OP_LINK_TIMEOUT}: cancels the entry linked before it ({@link #link()}) if it has not completed
     * within the timespec. Prepare it right after that entry.
     */
    public Sqe linkTimeout(MemorySegment timespec, int timeoutFlags) {
        prep(Uapi.IORING_OP_LINK_TIMEOUT, -1, addr(timespec, "timespec"), 1, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, timeoutFlags);
        return this;
    }

    /** {@code IORING_OP_ASYNC_CANCEL} of the operation that carries {@code targetUserData}. */
    public Sqe cancel(long targetUserData, int cancelFlags) {
        prep(Uapi.IORING_OP_ASYNC_CANCEL, -1, targetUserData, 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, cancelFlags);
        return this;
    }

    /** {@code IORING_OP_ASYNC_CANCEL} of every operation on {@code file} (5.19: {@code IORING_ASYNC_CANCEL_FD | ALL}). */
    public Sqe cancelFile(FileTarget file) {
        prep(Uapi.IORING_OP_ASYNC_CANCEL, file.value(), 0, 0, 0);
        int f = Uapi.IORING_ASYNC_CANCEL_FD | Uapi.IORING_ASYNC_CANCEL_ALL;
        if (file instanceof FileTarget.Fixed) {
            f |= Uapi.IORING_ASYNC_CANCEL_FD_FIXED;
        }
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, f);
        return this;
    }

    /** {@code IORING_OP_ASYNC_CANCEL} of every operation in flight ({@code IORING_ASYNC_CANCEL_ANY}, 5.19). */
    public Sqe cancelAll() {
        prep(Uapi.IORING_OP_ASYNC_CANCEL, -1, 0, 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, Uapi.IORING_ASYNC_CANCEL_ANY);
        return this;
    }

    /**
     * {@code IORING_OP_MSG_RING} ({@code IORING_MSG_DATA}): posts a completion with {@code res} and
     * {@code targetUserData} on the ring whose descriptor is {@code targetRingFd}.
     */
    public Sqe msgRing(int targetRingFd, int res, long targetUserData, int msgRingFlags) {
        prep(Uapi.IORING_OP_MSG_RING, targetRingFd, Uapi.IORING_MSG_DATA, res, targetUserData);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, msgRingFlags);
        return this;
    }
}
