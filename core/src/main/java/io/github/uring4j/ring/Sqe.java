package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.github.uring4j.linux.IoUringSqe;
import io.github.uring4j.linux.KernelTimespec;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.MemorySegment;

/**
 * A submission queue entry being prepared: {@link IoUring#nextSqe()} positions this one object on the next free
 * entry, an encoder ({@link #read}, {@link #openat}, ...) writes the whole entry for its opcode and claims it, and
 * the modifiers ({@link #userData}, {@link #flags}, {@link #rwFlags}, ...) adjust the entry just encoded. Nothing
 * here allocates.
 *
 * <p><b>All or nothing.</b> An entry joins the next submission only once its encoder has written every field. If
 * anything throws first (an argument an encoder refuses, or the caller's code computing an argument), the entry
 * is not claimed and the next {@link IoUring#submit()} never sees it; a modifier that refuses its argument gives
 * the entry back. Each entry takes its own {@code nextSqe()}: a second encoder call on the same claim throws.
 *
 * <p><b>Memory.</b> Every segment an encoder takes (buffers, paths, iovecs, timespecs, statx and open_how structs)
 * is read or written by the kernel after submission, possibly from a worker thread. The caller keeps it valid and
 * unmoved until the operation's completion has been reaped, as with liburing. Refused at once: heap segments,
 * segments of a closed arena, read-only segments the kernel would write, paths without their NUL, {@code madvise}
 * regions that are not whole pages, registered-file slots out of range, negative or oversized lengths, and for the
 * raw-address forms a null address with a length, or (fixed buffers) a range outside the registered buffer. A
 * refused argument never takes back an entry already encoded.
 *
 * <p>Each encoder checks the ring's probe and throws {@link UnsupportedOperationException} naming the opcode when
 * the running kernel lacks it.
 */
public final class Sqe {
    /** Not positioned on an entry: modifiers and encoders refuse. */
    private static final int IDLE = 0;
    /** Positioned by {@code nextSqe()}, not yet written: an encoder may run. */
    private static final int ARMED = 1;
    /** Written and claimed, not yet submitted: modifiers may adjust it. */
    private static final int ENCODED = 2;

    private final IoUring ring;
    private final MemorySegment sqes;
    private long base;
    private int state;

    Sqe(IoUring ring, MemorySegment sqes) {
        this.ring = ring;
        this.sqes = sqes;
    }

    void arm(long offset) {
        this.base = offset;
        this.state = ARMED;
    }

    /** The ring submitted: the entry belongs to the kernel now. */
    void disarm() {
        this.state = IDLE;
    }

    // ---------------------------------------------------------------------------------------------- plumbing

    /**
     * Returns {@code e} to throw for an argument a modifier refused: the entry it was to adjust is given back to the
     * ring.
     */
    private RuntimeException reject(RuntimeException e) {
        if (state == ENCODED) {
            ring.unclaimLast();
        }
        state = IDLE;
        return e;
    }

    /**
     * Returns what to throw for an argument an encoder refused, which it checks before it writes the entry: another
     * thread's call is refused as such, and an entry already encoded stays claimed (the call is refused as a second
     * encoder on it); otherwise the armed entry was never claimed and is dropped.
     */
    private RuntimeException refuse(RuntimeException e) {
        ring.checkOwner();
        if (state != ARMED) {
            return notArmed();
        }
        state = IDLE;
        return e;
    }

    private IllegalStateException notArmed() {
        return new IllegalStateException(state == ENCODED
                ? "this entry is already encoded: call nextSqe() for the next one"
                : "no entry to encode: call nextSqe() first");
    }

    /** Writes every field of a 64-byte entry (those the opcode does not use are zero), then claims it. */
    private Sqe prep(int opcode, int fd, long addr, int len, long off) {
        // the owner's, as nextSqe(): another thread's encoder would claim the entry without any ordering, and a
        // closed ring's entries are freed memory
        ring.checkOwner();
        if (state != ARMED) {
            throw notArmed();
        }
        if (!ring.opSupported(opcode)) {
            throw refuse(new UnsupportedOperationException(Uapi.opName(opcode) + " is not supported by this kernel (probe)"));
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
        state = ENCODED;
        ring.claim();
        return this;
    }

    /** Throws unless an encoder has just written this entry (modifiers adjust that entry only). */
    private void checkEncoded() {
        ring.checkOwner();
        if (state != ENCODED) {
            throw new IllegalStateException("no encoded entry to modify: call nextSqe() and an encoder first");
        }
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
            throw refuse(new IllegalArgumentException(what
                    + " must be native memory (a heap segment can move under the kernel)"));
        }
        if (!m.scope().isAlive()) {
            throw refuse(new IllegalStateException(what + " belongs to a closed arena: its memory is freed"));
        }
        return m.address();
    }

    /** A segment the kernel writes into: as {@link #addr}, and not a read-only view. */
    private long target(MemorySegment m, String what) {
        if (m.isReadOnly()) {
            throw refuse(new IllegalArgumentException(what + " is read-only, and the kernel would write into it"));
        }
        return addr(m, what);
    }

    /**
     * A NUL-terminated path: the kernel reads up to its NUL, and at most {@code PATH_MAX} bytes, so a segment shorter
     * than that must hold the NUL. A longer one is the kernel's to judge: it never reads past {@code PATH_MAX} bytes,
     * and a name without a NUL within them fails with {@code ENAMETOOLONG} (refused here before, as if it had no NUL).
     */
    private long path(MemorySegment m, String what) {
        long a = addr(m, what);
        long n = m.byteSize();
        if (n >= MAX_PATH) {
            return a;
        }
        for (long i = 0; i < n; i++) {
            if (m.get(JAVA_BYTE, i) == 0) {
                return a;
            }
        }
        throw refuse(new IllegalArgumentException(what + " has no terminating NUL byte within its " + n
                + " bytes: the kernel would read past its end (Arena.allocateFrom(String) adds one)"));
    }

    /** {@code PATH_MAX}: the most the kernel reads of a path. */
    private static final long MAX_PATH = 4096;

    /** A {@code struct __kernel_timespec} (16 bytes, {@link Timespec}): the kernel reads all of it. */
    private long timespec(MemorySegment m) {
        long a = addr(m, "timespec");
        if (m.byteSize() < KernelTimespec.LAYOUT.byteSize()) {
            throw refuse(new IllegalArgumentException("timespec of " + m.byteSize() + " bytes: the kernel reads "
                    + KernelTimespec.LAYOUT.byteSize() + " (Timespec.allocate)"));
        }
        return a;
    }

    /** A raw-address transfer: a length the kernel would take as huge, or a null address, is refused. */
    private long raw(long address, int length) {
        if (length < 0) {
            throw refuse(new IllegalArgumentException("negative length: " + length));
        }
        if (address == 0 && length > 0) {
            throw refuse(new IllegalArgumentException("null address for " + length + " bytes"));
        }
        return address;
    }

    /** A fixed-buffer transfer must stay inside the registered buffer it names. */
    private long fixed(long address, long length, int bufIndex) {
        try {
            ring.checkFixedRange(address, length, bufIndex);
        } catch (IllegalArgumentException e) {
            throw refuse(e);
        }
        return address;
    }

    /** A length or size the kernel would take as huge (an unsigned field) or refuse: refused here, said so. */
    private long nonNegative(long length, String what) {
        if (length < 0) {
            throw refuse(new IllegalArgumentException("negative " + what + ": " + length));
        }
        return length;
    }

    private int len32(long len) {
        if (len < 0 || len > 0xFFFF_FFFFL) {
            throw refuse(new IllegalArgumentException("length out of range for one operation: " + len));
        }
        return (int) len;
    }

    private long iovecs(IoVecArray iovecs, int count, boolean read) {
        if (!iovecs.segment().scope().isAlive()) {
            throw refuse(new IllegalStateException("the iovec array belongs to a closed arena"));
        }
        try {
            return iovecs.address(count, read);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw refuse(e);
        }
    }

    // ---------------------------------------------------------------------------------------------- modifiers

    /** The value the completion carries back. */
    public Sqe userData(long userData) {
        checkEncoded();
        sqes.set(JAVA_LONG, base + IoUringSqe.USER_DATA, userData);
        return this;
    }

    /** Adds {@code IOSQE_*} bits ({@link SqeFlag}). */
    public Sqe flags(int sqeFlags) {
        checkEncoded();
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
        checkEncoded();
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, rwFlags);
        return this;
    }

    public Sqe ioprio(int ioprio) {
        checkEncoded();
        sqes.set(JAVA_SHORT, base + IoUringSqe.IOPRIO, (short) ioprio);
        return this;
    }

    public Sqe personality(int personality) {
        checkEncoded();
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
        return prep(Uapi.IORING_OP_READ, file, target(buffer, "buffer"), len32(buffer.byteSize()), offset);
    }

    /** {@code IORING_OP_READ} of {@code length} bytes into the native memory at {@code address}. */
    public Sqe read(FileTarget file, long address, int length, long offset) {
        return prep(Uapi.IORING_OP_READ, file, raw(address, length), length, offset);
    }

    /** {@code IORING_OP_WRITE} of {@code buffer} at {@code offset} ({@code -1}: the file position). */
    public Sqe write(FileTarget file, MemorySegment buffer, long offset) {
        return prep(Uapi.IORING_OP_WRITE, file, addr(buffer, "buffer"), len32(buffer.byteSize()), offset);
    }

    /** {@code IORING_OP_WRITE} of {@code length} bytes from the native memory at {@code address}. */
    public Sqe write(FileTarget file, long address, int length, long offset) {
        return prep(Uapi.IORING_OP_WRITE, file, raw(address, length), length, offset);
    }

    /** {@code IORING_OP_READV} into the first {@code count} buffers of {@code iovecs}. */
    public Sqe readv(FileTarget file, IoVecArray iovecs, int count, long offset) {
        return prep(Uapi.IORING_OP_READV, file, iovecs(iovecs, count, true), count, offset);
    }

    /** {@code IORING_OP_WRITEV} from the first {@code count} buffers of {@code iovecs}. */
    public Sqe writev(FileTarget file, IoVecArray iovecs, int count, long offset) {
        return prep(Uapi.IORING_OP_WRITEV, file, iovecs(iovecs, count, false), count, offset);
    }

    /**
     * {@code IORING_OP_READ_FIXED} into {@code buffer}, which must lie inside registered buffer {@code bufIndex}
     * ({@link IoUring#registerBuffers}).
     */
    public Sqe readFixed(FileTarget file, MemorySegment buffer, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_READ_FIXED, file, fixed(target(buffer, "buffer"), buffer.byteSize(), bufIndex),
                len32(buffer.byteSize()), offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /** {@code IORING_OP_READ_FIXED} of {@code length} bytes at {@code address} inside registered buffer {@code bufIndex}. */
    public Sqe readFixed(FileTarget file, long address, int length, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_READ_FIXED, file, fixed(raw(address, length), length, bufIndex), length, offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /** {@code IORING_OP_WRITE_FIXED} from {@code buffer}, inside registered buffer {@code bufIndex}. */
    public Sqe writeFixed(FileTarget file, MemorySegment buffer, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_WRITE_FIXED, file, fixed(addr(buffer, "buffer"), buffer.byteSize(), bufIndex),
                len32(buffer.byteSize()), offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /** {@code IORING_OP_WRITE_FIXED} of {@code length} bytes at {@code address} inside registered buffer {@code bufIndex}. */
    public Sqe writeFixed(FileTarget file, long address, int length, long offset, int bufIndex) {
        prep(Uapi.IORING_OP_WRITE_FIXED, file, fixed(raw(address, length), length, bufIndex), length, offset);
        sqes.set(JAVA_SHORT, base + IoUringSqe.BUF_INDEX, (short) bufIndex);
        return this;
    }

    /**
     * {@code IORING_OP_OPENAT}: {@code path} is a NUL-terminated string (relative paths resolve against
     * {@code dirFd}, {@code AT_FDCWD = -100} for the working directory). The result is the new descriptor.
     */
    public Sqe openat(int dirFd, MemorySegment path, int openFlags, int mode) {
        prep(Uapi.IORING_OP_OPENAT, dirFd, path(path, "path"), mode, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, openFlags);
        return this;
    }

    /**
     * {@code IORING_OP_OPENAT} straight into registered-file slot {@code slot} (5.15); {@code slot = -1} lets the
     * kernel pick a free one and return it.
     */
    public Sqe openatDirect(int dirFd, MemorySegment path, int openFlags, int mode, int slot) {
        directSlot(slot);
        openat(dirFd, path, openFlags, mode);
        sqes.set(JAVA_INT, base + IoUringSqe.FILE_INDEX, slot < 0 ? Uapi.IORING_FILE_INDEX_ALLOC : slot + 1);
        return this;
    }

    /** A slot for an open straight into the registered-file table: {@code -1} (any free one) or a slot number. */
    private void directSlot(int slot) {
        if (slot < -1 || slot == Integer.MAX_VALUE) {
            throw refuse(new IllegalArgumentException("registered-file slot out of range: " + slot
                    + " (-1 lets the kernel pick a free one)"));
        }
    }

    /** {@code IORING_OP_OPENAT2} with a {@code struct open_how} (flags, mode, resolve). */
    public Sqe openat2(int dirFd, MemorySegment path, MemorySegment openHow) {
        return prep(Uapi.IORING_OP_OPENAT2, dirFd, path(path, "path"), len32(openHow.byteSize()),
                addr(openHow, "open_how"));
    }

    /** {@code IORING_OP_OPENAT2} into registered-file slot {@code slot} ({@code -1}: any free slot). */
    public Sqe openat2Direct(int dirFd, MemorySegment path, MemorySegment openHow, int slot) {
        directSlot(slot);
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
        if (slot < 0 || slot == Integer.MAX_VALUE) {
            // slot + 1 = 0 would mean no slot at all: the kernel would close descriptor 0
            throw refuse(new IllegalArgumentException("registered-file slot out of range: " + slot));
        }
        prep(Uapi.IORING_OP_CLOSE, 0, 0, 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.FILE_INDEX, slot + 1);
        return this;
    }

    /**
     * {@code IORING_OP_FILES_UPDATE}: puts the {@code count} descriptors of the {@code int} array {@code fds} into
     * registered-file slots {@code offset...} ({@code -1} empties a slot); the result is the number updated.
     */
    public Sqe filesUpdate(MemorySegment fds, int count, int offset) {
        if (count < 0 || (long) count * Integer.BYTES > fds.byteSize()) {
            throw refuse(new IllegalArgumentException(count + " descriptors do not fit a " + fds.byteSize()
                    + "-byte array"));
        }
        return prep(Uapi.IORING_OP_FILES_UPDATE, -1, addr(fds, "descriptor array"), count, offset);
    }

    /** {@code IORING_OP_FSYNC}; {@code dataSync} adds {@code IORING_FSYNC_DATASYNC} (fdatasync). */
    public Sqe fsync(FileTarget file, boolean dataSync) {
        prep(Uapi.IORING_OP_FSYNC, file, 0, 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, dataSync ? Uapi.IORING_FSYNC_DATASYNC : 0);
        return this;
    }

    /** {@code IORING_OP_SYNC_FILE_RANGE} ({@code SYNC_FILE_RANGE_*} flags). */
    public Sqe syncFileRange(FileTarget file, long offset, int length, int syncFlags) {
        nonNegative(length, "length");
        prep(Uapi.IORING_OP_SYNC_FILE_RANGE, file, 0, length, offset);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, syncFlags);
        return this;
    }

    /** {@code IORING_OP_FALLOCATE} ({@code FALLOC_FL_*} mode). */
    public Sqe fallocate(FileTarget file, int mode, long offset, long length) {
        // The kernel takes the length from sqe->addr and the mode from sqe->len.
        nonNegative(length, "length");
        return prep(Uapi.IORING_OP_FALLOCATE, file, length, mode, offset);
    }

    /** {@code IORING_OP_FADVISE} ({@code POSIX_FADV_*}). */
    public Sqe fadvise(FileTarget file, long offset, int length, int advice) {
        nonNegative(length, "length");
        prep(Uapi.IORING_OP_FADVISE, file, 0, length, offset);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, advice);
        return this;
    }

    /**
     * {@code IORING_OP_MADVISE} over {@code region} ({@code MADV_*}), which must start and end on a page boundary:
     * the kernel acts on whole pages, and would reach memory next to a smaller region ({@code MADV_DONTNEED} zeroed
     * the allocations beside a 16-byte segment, and the JVM aborted in {@code free}).
     */
    public Sqe madvise(MemorySegment region, int advice) {
        long a = addr(region, "region");
        long page = io.github.uring4j.linux.LeanCalls.pageSize();
        if ((a & (page - 1)) != 0 || (region.byteSize() & (page - 1)) != 0 || region.byteSize() == 0) {
            throw refuse(new IllegalArgumentException("madvise region at 0x" + Long.toHexString(a) + " of "
                    + region.byteSize() + " bytes: it must start on a page boundary and span whole pages of " + page
                    + " bytes (the kernel acts on whole pages, and would reach the memory next to it)"));
        }
        prep(Uapi.IORING_OP_MADVISE, -1, a, len32(region.byteSize()), 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, advice);
        return this;
    }

    /**
     * {@code IORING_OP_STATX} of {@code path} relative to {@code dirFd} (with {@code AT_EMPTY_PATH} and an empty
     * path: of {@code dirFd} itself) into a 256-byte {@code struct statx}.
     */
    public Sqe statx(int dirFd, MemorySegment path, int atFlags, int mask, MemorySegment statxBuf) {
        if (statxBuf.byteSize() < 256) {
            throw refuse(new IllegalArgumentException("statx buffer must hold 256 bytes, has " + statxBuf.byteSize()));
        }
        prep(Uapi.IORING_OP_STATX, dirFd, path(path, "path"), mask, target(statxBuf, "statx buffer"));
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, atFlags);
        return this;
    }

    /** {@code IORING_OP_FTRUNCATE} (6.9): sets the file's size to {@code length}. */
    public Sqe ftruncate(FileTarget file, long length) {
        nonNegative(length, "size");
        return prep(Uapi.IORING_OP_FTRUNCATE, file, 0, 0, length);
    }

    /** {@code IORING_OP_RENAMEAT} ({@code RENAME_*} flags). */
    public Sqe renameat(int oldDirFd, MemorySegment oldPath, int newDirFd, MemorySegment newPath, int renameFlags) {
        prep(Uapi.IORING_OP_RENAMEAT, oldDirFd, path(oldPath, "old path"), newDirFd, path(newPath, "new path"));
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, renameFlags);
        return this;
    }

    /** {@code IORING_OP_UNLINKAT}; {@code AT_REMOVEDIR} removes a directory. */
    public Sqe unlinkat(int dirFd, MemorySegment path, int atFlags) {
        prep(Uapi.IORING_OP_UNLINKAT, dirFd, path(path, "path"), 0, 0);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, atFlags);
        return this;
    }

    /** {@code IORING_OP_MKDIRAT}. */
    public Sqe mkdirat(int dirFd, MemorySegment path, int mode) {
        return prep(Uapi.IORING_OP_MKDIRAT, dirFd, path(path, "path"), mode, 0);
    }

    /**
     * {@code IORING_OP_SPLICE} of {@code length} bytes from {@code in} at {@code inOffset} to {@code out} at
     * {@code outOffset}; one side must be a pipe, whose offset is {@code -1}.
     */
    public Sqe splice(FileTarget in, long inOffset, FileTarget out, long outOffset, int length, int spliceFlags) {
        nonNegative(length, "length");
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
        prep(Uapi.IORING_OP_TIMEOUT, -1, timespec(timespec), 1, count);
        sqes.set(JAVA_INT, base + IoUringSqe.OP_FLAGS, timeoutFlags);
        return this;
    }

    /**
     * {@code IORING_OP_LINK_TIMEOUT}: cancels the entry linked before it ({@link #link()}) if it has not completed
     * within the timespec. Prepare it right after that entry.
     */
    public Sqe linkTimeout(MemorySegment timespec, int timeoutFlags) {
        prep(Uapi.IORING_OP_LINK_TIMEOUT, -1, timespec(timespec), 1, 0);
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
