package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.PinnedRegion;
import io.github.uring4j.engine.Request;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.ring.At;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.IoVecArray;
import io.github.uring4j.ring.OpenFlag;
import io.github.uring4j.ring.Sqe;
import io.github.uring4j.ring.SqeFlag;
import io.github.uring4j.ring.Timespec;
import io.github.uring4j.ring.UringException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Writes a slot's entries into the ring, one request kind (and stage) at a time. Each entry is counted the moment
 * it is claimed, so a failure half-way still waits for the entries that did reach the kernel. Loop thread only.
 */
final class Encoder {
    /**
     * Most entries one slot prepares at once: two today (write + fsync, read + timeout, close slot + close fd), and
     * one to spare.
     */
    static final int MAX_ENTRIES = 3;

    /** Open stages (see {@link Completions}). */
    static final int OPEN_PATH = 0;
    static final int OPEN_DETAILS = 1;
    static final int OPEN_DISCARD = 2;
    /**
     * The open again, on an io-wq worker ({@code IOSQE_ASYNC}): io_uring's first try of an open adds
     * {@code O_NONBLOCK}, with which a FIFO opened for writing only and without a reader fails with {@code ENXIO}
     * instead of waiting for one, as {@code open(2)} does; the worker's blocking open waits (and a cancel ends it).
     */
    static final int OPEN_WAITING = 3;
    /** READ_FILE stages (see {@link Completions}): open, read and close linked on a registered slot, ... */
    static final int FILE_LINKED = 0;
    /** ... or, with no free slot, an open, then a read linked to the close of the descriptor ... */
    static final int FILE_OPEN = 1;
    static final int FILE_READ = 2;
    /** ... and a second close of the slot when the linked one failed. */
    static final int FILE_CLEANUP = 3;
    /**
     * Write-and-sync stages of an {@code O_DIRECT} file whose other changes are in flight as it begins: its write
     * alone, then, once the write and every change begun before it have ended, its {@code fdatasync}. The device
     * completes direct writes in any order, so a sync linked to its write could run before an earlier write had
     * ended, and not cover it; waiting for the earlier changes before the write ran such write-and-syncs one at a
     * time (8 in flight: 3.2-5.4k a second against the JDK's channel's 9.4-12.6k), where now their writes and
     * syncs overlap (7.8-12.8k against 9.4-12.2k).
     */
    static final int SPLIT_WRITE = 1;
    static final int SPLIT_SYNC = 2;
    /** Close stages (see {@link Closer}). */
    static final int CLOSE_QUIESCE = 0;
    static final int CLOSE_SYSCALLS = 1;

    /** Slots of the sparse registered-buffer table ({@code IORING_MAX_REG_BUFFERS}). */
    static final int BUFFER_TABLE = 1 << 14;
    /** "" for statx with AT_EMPTY_PATH. */
    private static final MemorySegment EMPTY_PATH = Arena.global().allocateFrom("");

    private final EventLoop loop;
    private final IoUring ring;
    /** A sparse registered-file table exists (5.19). */
    private boolean fileTable;
    private int[] freeFixed = new int[0];
    private int freeFixedTop;
    /**
     * Registered-buffer table: -1 not made yet, 0 none (a kernel before 5.19 takes one set of buffers at a time),
     * else its slots, where each registered region holds a range.
     */
    private int bufferTable = -1;
    /** The registered regions, and for each its first slot, its address range and its buffers' size. */
    private PinnedRegion[] fixedRegions = new PinnedRegion[0];
    private int[] fixedFirst = new int[0];
    private long[] fixedBase = new long[0];
    private long[] fixedEnd = new long[0];
    private long[] fixedSize = new long[0];
    /** The registered ranges of slots in slot order: the first slot in the high half, the end in the low. */
    private long[] slotRanges = new long[0];

    Encoder(EventLoop loop) {
        this.loop = loop;
        this.ring = loop.ring;
    }

    void init(int registeredFiles) {
        if (registeredFiles <= 0) {
            return;
        }
        // The kernel refuses a table larger than the descriptor limit (EMFILE): under a low one (ulimit -n 40), a
        // smaller table, without a word; an unchanged program on the drop-ins had a warning on every run
        long limit = io.github.uring4j.engine.ProcessLimits.openFiles();
        if (limit > 0 && limit < registeredFiles) {
            registeredFiles = (int) limit;
        }
        // The errors' names, loaded while descriptors are plenty: a class loaded later from a directory (not a jar)
        // needs one, and a loop that met its first EMFILE at the limit died loading them
        io.github.uring4j.linux.Errno.name(io.github.uring4j.linux.Errno.EMFILE);
        try {
            ring.registerFilesSparse(registeredFiles);
            fileTable = true;
            freeFixed = new int[registeredFiles];
            for (int i = 0; i < registeredFiles; i++) {
                freeFixed[freeFixedTop++] = registeredFiles - 1 - i;
            }
        } catch (UringException e) {
            fileTable = false; // before 5.19: FileOption.REGISTERED uses plain descriptors
            if (e.errno() == io.github.uring4j.linux.Errno.EMFILE || e.errno() == io.github.uring4j.linux.Errno.EINVAL) {
                // a table larger than the descriptor limit, or than io_uring's: said, not left silent
                io.github.uring4j.engine.Log.warn("a table of " + registeredFiles + " registered files could not be"
                        + " made (" + e.getMessage() + ": more than the process's descriptor limit, ulimit -n, or"
                        + " io_uring's); FileOption.REGISTERED files use plain descriptors on this loop");
            }
        }
    }

    /** A free registered-file slot, or -1 (no table, or all taken). */
    int takeFixed() {
        return fileTable && freeFixedTop > 0 ? freeFixed[--freeFixedTop] : -1;
    }

    /** The kernel closed registered slot {@code n}: it may serve the next file. */
    void giveFixed(int n) {
        if (n >= 0) {
            freeFixed[freeFixedTop++] = n;
        }
    }

    // ---- registered buffers (set by a Task on this thread)

    /**
     * Registers {@code region}'s buffers with this ring: into a free range of a sparse table of
     * {@value #BUFFER_TABLE} slots, made at the first registration, so that regions come and go independently; on a
     * kernel without sparse tables, as the ring's one set of buffers ({@code EBUSY} while another is registered).
     */
    void registerBuffers(PinnedRegion region) throws UringException {
        MemorySegment[] bufs = new MemorySegment[region.count()];
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = region.memory().asSlice((long) i * region.bufferSize(), region.bufferSize());
        }
        if (bufferTable < 0) {
            try {
                ring.registerBuffersSparse(BUFFER_TABLE);
                bufferTable = BUFFER_TABLE;
            } catch (UringException e) {
                bufferTable = 0;
            }
        }
        int first = 0;
        if (bufferTable == 0) {
            ring.registerBuffers(bufs);
        } else {
            first = freeSlots(bufs.length);
            if (first < 0) {
                throw new IllegalStateException("the ring's registered-buffer table (" + bufferTable + " slots) has no "
                        + bufs.length + " free slots in a row: the pools registered with this executor hold "
                        + usedSlots());
            }
            ring.updateBuffers(first, bufs);
        }
        long range = (long) first << 32 | (first + region.count());
        int r = -Arrays.binarySearch(slotRanges, range) - 1;
        slotRanges = opened(slotRanges, r);
        slotRanges[r] = range;
        // kept in the order of their addresses, for the binary search of fixedIndex
        int at = -Arrays.binarySearch(fixedBase, region.base()) - 1;
        fixedRegions = opened(fixedRegions, at);
        fixedFirst = opened(fixedFirst, at);
        fixedBase = opened(fixedBase, at);
        fixedSize = opened(fixedSize, at);
        fixedEnd = opened(fixedEnd, at);
        fixedRegions[at] = region;
        fixedFirst[at] = first;
        fixedBase[at] = region.base();
        fixedSize[at] = region.bufferSize();
        fixedEnd[at] = region.base() + (long) region.bufferSize() * region.count();
    }

    /** A copy of the array {@code a} one longer, with a gap at {@code i} for the caller's new element. */
    @SuppressWarnings("unchecked")
    private static <A> A opened(A a, int i) {
        int n = java.lang.reflect.Array.getLength(a);
        A r = (A) java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), n + 1);
        System.arraycopy(a, 0, r, 0, i);
        System.arraycopy(a, i, r, i + 1, n - i);
        return r;
    }

    void unregisterBuffers(PinnedRegion region) throws UringException {
        int i = Arrays.asList(fixedRegions).indexOf(region);
        if (i < 0) {
            return;
        }
        int first = fixedFirst[i];
        int count = region.count();
        // Entries prepared this turn may name the region's slots: the kernel resolves them when they are submitted.
        if (ring.sqPending() > 0) {
            ring.submit();
        }
        slotRanges = without(slotRanges, Arrays.binarySearch(slotRanges, (long) first << 32 | (first + count)));
        fixedRegions = without(fixedRegions, i);
        fixedFirst = without(fixedFirst, i);
        fixedBase = without(fixedBase, i);
        fixedEnd = without(fixedEnd, i);
        fixedSize = without(fixedSize, i);
        if (bufferTable == 0) {
            ring.unregisterBuffers();
        } else {
            // The kernel keeps each buffer pinned until the operations using it have completed.
            MemorySegment[] empty = new MemorySegment[count];
            Arrays.fill(empty, MemorySegment.NULL);
            ring.updateBuffers(first, empty);
        }
    }

    /**
     * The lowest first of {@code count} free slots in a row of the table, or -1: the gaps between the registered
     * ranges in slot order (a look at every pair of ranges made registering thousands of pools take hours).
     */
    private int freeSlots(int count) {
        long at = 0;
        for (long range : slotRanges) {
            long first = range >>> 32;
            if (first - at >= count) {
                break;
            }
            at = Math.max(at, range & 0xffff_ffffL);
        }
        return bufferTable - at >= count ? (int) at : -1;
    }

    /** The taken slots, as runs in slot order (ranges that touch are one run), the first ten of them. */
    private String usedSlots() {
        StringBuilder sb = new StringBuilder();
        int runs = 0;
        long from = -1;
        long to = -1;
        for (int i = 0; i <= slotRanges.length; i++) {
            long first = i < slotRanges.length ? slotRanges[i] >>> 32 : -1;
            if (from >= 0 && first == to) {
                to = slotRanges[i] & 0xffff_ffffL; // touches the run (ranges never overlap)
                continue;
            }
            if (from >= 0 && runs++ < 10) {
                sb.append(runs == 1 ? "" : ", ").append(from).append("..").append(to - 1);
            }
            from = first;
            to = first < 0 ? -1 : slotRanges[i] & 0xffff_ffffL;
        }
        if (runs > 10) {
            sb.append(" and ").append(runs - 10).append(" more runs");
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }

    private static PinnedRegion[] without(PinnedRegion[] a, int i) {
        PinnedRegion[] r = Arrays.copyOf(a, a.length - 1);
        System.arraycopy(a, i + 1, r, i, a.length - 1 - i);
        return r;
    }

    private static int[] without(int[] a, int i) {
        int[] r = Arrays.copyOf(a, a.length - 1);
        System.arraycopy(a, i + 1, r, i, a.length - 1 - i);
        return r;
    }

    private static long[] without(long[] a, int i) {
        long[] r = Arrays.copyOf(a, a.length - 1);
        System.arraycopy(a, i + 1, r, i, a.length - 1 - i);
        return r;
    }

    /** The registered slot holding {@code address .. address + length}, or -1. */
    private int fixedIndex(long address, int length) {
        long[] bases = fixedBase;
        // the last region starting at or below the address (they are in address order and do not overlap)
        int lo = 0;
        int hi = bases.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (bases[mid] <= address) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        int i = hi;
        if (i < 0 || address >= fixedEnd[i]) {
            return -1;
        }
        long idx = (address - bases[i]) / fixedSize[i];
        if (address + length <= bases[i] + (idx + 1) * fixedSize[i]) {
            return fixedFirst[i] + (int) idx;
        }
        return -1;
    }

    // ---- room

    /** True when the SQ has room for a slot's entries (submitting what is prepared to make room). */
    boolean room() throws UringException {
        if (ring.sqSpaceLeft() >= MAX_ENTRIES) {
            return true;
        }
        ring.submit();
        return ring.sqSpaceLeft() >= MAX_ENTRIES;
    }

    /** Encodes now if the SQ has room; false (nothing done) otherwise. */
    boolean encodeIfRoom(Slot s) {
        try {
            if (!room()) {
                return false;
            }
        } catch (UringException e) {
            return false; // the loop's own submit reports it
        }
        encodeOrFail(s);
        return true;
    }

    /** Encodes; an encoder that refuses (an argument, the probe) fails the request alone, never the loop. */
    void encodeOrFail(Slot s) {
        try {
            encode(s);
        } catch (RuntimeException | UringException e) {
            if (s.cqes > 0) {
                s.failure = e; // entries already in the kernel: end when they complete
            } else {
                loop.completions.end(s, e);
            }
        }
    }

    private void count(Sqe e, Slot s, int sub) {
        e.userData(Slot.userData(s.index, sub));
        s.cqes++;
        loop.expected++;
    }

    /**
     * ASYNC_CANCEL of the slot's main entry; for a READ_FILE also of its read (the open may be done and the read
     * waiting, as on a FIFO without a writer), whose linked close then still runs.
     */
    void cancel(Slot s) {
        count(ring.nextSqe().cancel(Slot.userData(s.index, Slot.MAIN), 0), s, Slot.CANCEL);
        if (s.request.kind == Request.READ_FILE) {
            count(ring.nextSqe().cancel(Slot.userData(s.index, Slot.LINKED), 0), s, Slot.CANCEL);
        }
    }

    // ---- the requests

    private void encode(Slot s) throws UringException {
        Request r = s.request;
        switch (r.kind) {
            case Request.READ, Request.WRITE, Request.WRITE_SYNC -> transfer(s, r);
            case Request.READV, Request.WRITEV -> vector(s, r);
            case Request.OPEN -> open(s, r);
            case Request.READ_FILE -> readFile(s, r);
            case Request.CLOSE -> close(s, (UringFile) r.handle);
            default -> other(s, r);
        }
    }

    private void transfer(Slot s, Request r) {
        UringFile f = (UringFile) r.handle;
        if (s.stage == SPLIT_SYNC) {
            s.res[Slot.LINKED] = 0;
            count(ring.nextSqe().fsync(f.target(loop), true), s, Slot.LINKED);
            return;
        }
        if (r.kind == Request.WRITE && loop.inline.write(s, r, f)) {
            return;
        }
        if (r.kind == Request.WRITE_SYNC && loop.inline.writeSync(s, r, f)) {
            return;
        }
        if (r.kind == Request.READ && loop.inline.read(s, r, f)) {
            return;
        }
        FileTarget t = f.target(loop);
        s.res[Slot.MAIN] = 0;
        s.res[Slot.LINKED] = 0;
        s.timedOut = false;
        s.mainIn = false;
        boolean read = r.kind == Request.READ;
        if (loop.syncOrder.splits(s, r, f)) {
            loop.syncOrder.holdBehindChanges(s, f);
        }
        if (!read) {
            loop.syncOrder.changeBegins(s, f);
        }
        long a = r.address;
        int len = r.length;
        int idx = fixedIndex(a, len);
        Sqe e;
        if (idx >= 0) {
            loop.stats.fixedOne();
            e = read ? ring.nextSqe().readFixed(t, a, len, r.position, idx)
                    : ring.nextSqe().writeFixed(t, a, len, r.position, idx);
        } else {
            e = read ? ring.nextSqe().read(t, a, len, r.position) : ring.nextSqe().write(t, a, len, r.position);
        }
        boolean sync = r.kind == Request.WRITE_SYNC && s.stage != SPLIT_WRITE;
        if (sync || r.timeoutNanos > 0) {
            e.link();
        }
        count(e, s, Slot.MAIN);
        if (sync) {
            count(ring.nextSqe().fsync(t, true), s, Slot.LINKED);
        } else if (r.timeoutNanos > 0) {
            Timespec.set(s.timespec, Deadlines.left(r));
            count(ring.nextSqe().linkTimeout(s.timespec, 0), s, Slot.TIMEOUT);
        }
    }

    private void vector(Slot s, Request r) {
        UringFile f = (UringFile) r.handle;
        IoVecArray iov = s.iov();
        for (int i = 0; i < r.iovCount; i++) {
            iov.set(i, r.iovAddress(i), r.iovLength(i));
        }
        if (r.kind == Request.WRITEV && loop.inline.writev(s, r, f, iov.segment(), iov.totalLength(r.iovCount))) {
            return;
        }
        FileTarget t = f.target(loop);
        if (r.kind == Request.WRITEV) {
            loop.syncOrder.changeBegins(s, f);
        }
        Sqe e = r.kind == Request.READV ? ring.nextSqe().readv(t, iov, r.iovCount, r.position)
                : ring.nextSqe().writev(t, iov, r.iovCount, r.position);
        count(e, s, Slot.MAIN);
    }

    private void other(Slot s, Request r) {
        UringFile f = (UringFile) r.handle;
        FileTarget t = f.target(loop);
        Sqe e = switch (r.kind) {
            case Request.FSYNC -> loop.inline.fsync(s, r, f) ? null : ring.nextSqe().fsync(t, !r.metaData);
            // By descriptor, never by path: a registered file keeps its descriptor too.
            case Request.SIZE -> loop.inline.size(s, f) ? null : ring.nextSqe().statx(f.fd, EMPTY_PATH, At.EMPTY_PATH,
                    Statx.STATX_SIZE | Statx.STATX_TYPE, s.statx.segment());
            case Request.TRUNCATE -> {
                loop.syncOrder.changeBegins(s, f);
                if (!loop.ftruncateOp) {
                    truncateOffLoop(s, f, r.arg);
                    yield null;
                }
                yield ring.nextSqe().ftruncate(t, r.arg);
            }
            case Request.ALLOCATE -> {
                loop.syncOrder.changeBegins(s, f);
                yield ring.nextSqe().fallocate(t, 0, r.position, r.arg);
            }
            // The SQE's length is 32 bits, unsigned: a range longer than that becomes 0, "to the end of the file",
            // as both calls read it: more, never less.
            case Request.ADVISE -> ring.nextSqe().fadvise(t, r.position, len32OrToTheEnd(r.arg), r.flags);
            case Request.SYNC_RANGE -> ring.nextSqe().syncFileRange(t, r.position, len32OrToTheEnd(r.arg), r.flags);
            default -> throw new IllegalStateException("request kind " + r.kind);
        };
        if (e != null) {
            count(e, s, Slot.MAIN);
        }
    }

    /** {@code length} as the SQE's unsigned 32-bit length, or 0 ("to the end of the file") when it is longer. */
    static int len32OrToTheEnd(long length) {
        return length > 0xFFFF_FFFFL ? 0 : (int) length;
    }

    /** Before Linux 6.9 there is no IORING_OP_FTRUNCATE: the call runs on a helper thread, never on the loop. */
    private void truncateOffLoop(Slot s, UringFile f, long length) {
        s.cqes++;
        loop.expected++;
        Request r = s.request;
        int fd = f.fd;
        loop.backend.blockingCalls().execute(() -> {
            int res;
            do {
                res = loop.sys.ftruncate(fd, length);
            } while (res == -Errno.EINTR);
            loop.enqueueMessage(new LoopMessage.BlockingDone(s, r, res));
        });
    }

    // ---- opening and closing

    private void open(Slot s, Request r) {
        OpenSpec spec = r.open;
        switch (s.stage) {
            case OPEN_PATH -> {
                MemorySegment path = s.path(spec);
                if (loop.inline.open(s, spec.flags(), path)) {
                    return;
                }
                count(ring.nextSqe().openat(At.FDCWD, path, spec.flags() | OpenFlag.CLOEXEC, 0666), s, Slot.MAIN);
            }
            case OPEN_WAITING -> count(ring.nextSqe().openat(At.FDCWD, s.path(spec), spec.flags() | OpenFlag.CLOEXEC,
                    0666).flags(SqeFlag.ASYNC), s, Slot.MAIN);
            case OPEN_DETAILS -> {
                if (spec.direct()) {
                    count(ring.nextSqe().statx(s.fd, EMPTY_PATH, At.EMPTY_PATH, Statx.STATX_DIOALIGN,
                            s.statx.segment()), s, Slot.STATX);
                }
                if (s.fixed >= 0) {
                    s.fds.set(ValueLayout.JAVA_INT, 0, s.fd);
                    count(ring.nextSqe().filesUpdate(s.fds, 1, s.fixed), s, Slot.FILES);
                }
                if (spec.deleteOnClose()) {
                    // as the JDK's channels: the name goes once the file is open (see FileHandle.deleteIfAsked)
                    count(ring.nextSqe().unlinkat(At.FDCWD, s.path(spec), 0), s, Slot.UNLINK);
                }
            }
            case OPEN_DISCARD -> {
                // Nobody will get this file: close what did open.
                if (s.res[Slot.FILES] == 1) {
                    count(ring.nextSqe().closeFixed(s.fixed), s, Slot.FILES);
                }
                count(ring.nextSqe().close(s.fd), s, Slot.CLOSE_FD);
            }
            default -> throw new IllegalStateException("open stage " + s.stage);
        }
    }

    private void readFile(Slot s, Request r) {
        OpenSpec spec = r.open;
        int flags = spec.flags() | OpenFlag.CLOEXEC;
        switch (s.stage) {
            case FILE_LINKED -> {
                s.res[Slot.MAIN] = 0;
                s.res[Slot.LINKED] = 0;
                s.res[Slot.CLOSE_FD] = 0;
                int slot = takeFixed();
                if (slot < 0) {
                    s.stage = FILE_OPEN;
                    readFile(s, r);
                    return;
                }
                s.fixed = slot;
                // open → read → close: a failed open cancels the rest; the close runs whatever the read returns.
                FileTarget t = FileTarget.fixed(slot);
                // A registered slot is no descriptor: the kernel refuses O_CLOEXEC for it (EINVAL).
                count(ring.nextSqe().openatDirect(At.FDCWD, s.path(spec), spec.flags() & ~OpenFlag.CLOEXEC, 0, slot)
                        .link(), s, Slot.MAIN);
                count(wholeRead(t, r).hardLink(), s, Slot.LINKED);
                count(ring.nextSqe().closeFixed(slot), s, Slot.CLOSE_FD);
            }
            case FILE_OPEN -> count(ring.nextSqe().openat(At.FDCWD, s.path(spec), flags, 0), s, Slot.MAIN);
            case FILE_READ -> {
                if (r.untilEnd) {
                    count(wholeRead(FileTarget.fd(s.fd), r), s, Slot.LINKED); // then the next, or the close
                    return;
                }
                count(wholeRead(FileTarget.fd(s.fd), r).hardLink(), s, Slot.LINKED);
                count(ring.nextSqe().close(s.fd), s, Slot.CLOSE_FD);
            }
            case FILE_CLEANUP -> count(ring.nextSqe().closeFixed(s.fixed), s, Slot.FILES);
            default -> throw new IllegalStateException("read-file stage " + s.stage);
        }
    }

    /**
     * The read of a READ_FILE from its position (0, unless it reads on): into a registered buffer
     * ({@code READ_FIXED}) when the destination lies in one, so that the kernel copies with {@code memcpy} instead of
     * {@code copy_to_user}.
     */
    private Sqe wholeRead(FileTarget t, Request r) {
        int idx = fixedIndex(r.address, r.length);
        if (idx >= 0) {
            loop.stats.fixedOne();
            return ring.nextSqe().readFixed(t, r.address, r.length, r.position, idx);
        }
        return ring.nextSqe().read(t, r.address, r.length, r.position);
    }

    /**
     * True when the open needs its second stage (alignment from statx, a registered slot, the unlink of a
     * {@code DELETE_ON_CLOSE} file, which io_uring makes on an io-wq worker).
     */
    boolean openNeedsDetails(Slot s, OpenSpec spec) {
        s.fixed = spec.registered() ? takeFixed() : -1;
        return spec.direct() || s.fixed >= 0 || spec.deleteOnClose();
    }

    private void close(Slot s, UringFile f) {
        if (s.stage != CLOSE_SYSCALLS) {
            throw new IllegalStateException("close stage " + s.stage);
        }
        f.awaitUnpinned(); // a client's read on its own thread (AsyncFile) ends before its descriptor may go
        if (f.fixedSlot >= 0) {
            count(ring.nextSqe().closeFixed(f.fixedSlot), s, Slot.MAIN);
        }
        if (f.borrowed()) {
            count(ring.nextSqe().nop(), s, Slot.CLOSE_FD); // its owner closes it (Closer.closed gives it back)
        } else {
            count(ring.nextSqe().close(f.fd), s, Slot.CLOSE_FD);
        }
    }
}
