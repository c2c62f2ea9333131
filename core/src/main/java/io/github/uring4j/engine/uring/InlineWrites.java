package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.StatxBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

/**
 * Buffered writes (and syncs, sizes, opens that create or truncate, and reads of files in memory) made by the loop
 * thread itself instead of the kernel's io-wq workers.
 *
 * <p>A buffered write the file system cannot finish without blocking is punted by io_uring to an io-wq worker,
 * and writes to one file are serialised there on one worker; the hand-over and the wake-up of the loop for every
 * completion made ring writes to ext4's page cache 0.4–0.7 times as fast as a plain {@code pwrite} loop (perf: the
 * worker spends a sixth of its time in {@code try_to_wake_up}). So a buffered write first goes to the kernel with
 * {@code RWF_NOWAIT} from the loop: file systems that support it (XFS, btrfs) take what the page cache can take at
 * once and say {@code EAGAIN} otherwise, and only then does the write go through the ring. File systems that refuse
 * {@code RWF_NOWAIT} for writes ({@code EOPNOTSUPP}: ext4) get a plain write on the loop thread for writes up to
 * {@link io.github.uring4j.engine.EngineConfig#inlineWriteMax} bytes (not for {@code O_DSYNC}/{@code O_SYNC} files,
 * whose every write waits for the device); the second write within {@link #STRIKE_NANOS} that blocked the loop
 * longer than {@link #BLOCKED_NANOS} (dirty-page throttling, a journal commit) while others may have waited for the
 * loop sends that file's writes through the ring for the next {@link #BACKOFF_NANOS}.
 *
 * <p>An {@code fsync}/{@code fdatasync}, alone or linked after a write ({@code writeAndSync}), always waits for the
 * device, and io_uring always hands it to an io-wq worker: the caller's thread, the loop and the worker each wake the
 * next, and one sync at a time ran at 0.35–0.65 times the JDK's {@code write} + {@code force} loop. So a loop with
 * nothing else in the kernel or waiting ({@link EventLoop#idle}) makes the call itself, and the write before it
 * when there is one: no other request waits behind it, and one that arrives meanwhile waits at most that long. A
 * second call within {@link #STRIKE_NANOS} that kept the loop longer than {@link #BLOCKED_NANOS} while requests of
 * other threads arrived sends the file's syncs to the ring for {@link #BACKOFF_NANOS}, as for writes. Syncs of a
 * busy loop go through the ring, where several run at once; with
 * {@link io.github.uring4j.engine.EngineConfig#inlineWriteMax} 0 every sync does.
 *
 * <p>The result is delivered in the loop's next turn, exactly as a completion would be (the same rules, the same
 * result filter), never from inside the call that issued it. Loop thread only.
 */
final class InlineWrites {
    /** A write that kept the loop this long sends its file's writes to the ring for a while. */
    static final long BLOCKED_NANOS = 10_000_000L;
    static final long BACKOFF_NANOS = 250_000_000L;
    /** A stall starts a back-off only when another came at most this long before it (see {@link #blocked}). */
    static final long STRIKE_NANOS = 1_000_000_000L;
    /** {@link #write} did nothing: encode the request for the ring. */
    static final int USE_RING = Integer.MIN_VALUE;

    private final EventLoop loop;
    private final int max;
    private final MemorySegment capture;
    private final MemorySegment iov1;
    private final StatxBuffer statx;
    private final MemorySegment statfs;
    /** {@code mincore}'s answer: a byte per page of a read of up to {@link #max} bytes (and one more). */
    private final MemorySegment pages;
    private final MemorySegment emptyPath;
    /** Directories of files on disk, by {@link #onDisk(String)}; the oldest is replaced. */
    private final String[] onDisk = new String[16];
    private int nextOnDisk;
    private final ArrayDeque<Slot> done = new ArrayDeque<>();
    private boolean unavailable;
    /** Opens that create or truncate go through the ring until then: one held the loop while others waited. */
    private long openBackoffUntil;
    /** When an open made here last held the loop while others waited ({@link #blocked}'s rule); 0: never. */
    private long lastOpenStall;

    InlineWrites(EventLoop loop, Arena arena, int max) {
        this.loop = loop;
        this.max = max;
        this.capture = LeanCalls.allocateCapture(arena);
        this.iov1 = arena.allocate(16, 8);
        this.statx = StatxBuffer.allocate(arena);
        this.statfs = arena.allocate(LeanCalls.STATFS_SIZE, 8);
        this.pages = arena.allocate(Math.max(1, max / 4096 + 2));
        this.emptyPath = arena.allocateFrom("");
    }

    /** True when a write of {@code f} may be tried here at all. */
    boolean eligible(Request r, UringFile f) {
        return !unavailable && !f.direct && r.timeoutNanos == 0 && f.inlineWrites != UringFile.INLINE_NEVER
                && noChangesInFlight(f);
    }

    /**
     * No earlier change of {@code f} is in the kernel or on another thread: a write the loop made now would land
     * before it (an overlapping update lost: the earlier write's bytes ended on top).
     */
    private boolean noChangesInFlight(UringFile f) {
        UringFile.PerLoop p = f.peek(loop);
        return p == null || p.changes == 0;
    }

    /**
     * Writes one buffer from the loop; true if the result is queued for the next turn (the slot then counts one
     * expected completion), false if the ring must do it.
     */
    boolean write(Slot s, Request r, UringFile f) {
        if (!eligible(r, f)) {
            return false;
        }
        iov1.set(ValueLayout.JAVA_LONG, 0, r.address);
        iov1.set(ValueLayout.JAVA_LONG, 8, r.length);
        return call(s, f, iov1, 1, r.position, r.length);
    }

    /** Writes an iovec array from the loop; as {@link #write}. */
    boolean writev(Slot s, Request r, UringFile f, MemorySegment iov, long total) {
        if (!eligible(r, f)) {
            return false;
        }
        return call(s, f, iov, r.iovCount, r.position, total);
    }

    private boolean call(Slot s, UringFile f, MemorySegment iov, int count, long position, long total) {
        long res;
        try {
            if (f.inlineWrites == UringFile.INLINE_UNKNOWN && !isRegular(f)) {
                // A pipe, a socket or a device: no file offset to write at, and a write that may wait for a reader.
                f.inlineWrites = UringFile.INLINE_NEVER;
                return false;
            }
            if (f.inlineWrites != UringFile.INLINE_BLOCKING) {
                res = LeanCalls.pwritev2(capture, f.fd, iov, count, position, Uapi.RWF_NOWAIT);
                if (res == -Errno.EAGAIN) {
                    return false; // the page cache cannot take it at once: the ring's worker waits instead
                }
                if (res != -Errno.EOPNOTSUPP) {
                    if (res >= 0) {
                        f.inlineWrites = UringFile.INLINE_NOWAIT;
                    }
                    return queue(s, res);
                }
                f.inlineWrites = UringFile.INLINE_BLOCKING; // ext4: buffered writes cannot be asked not to block
            }
            if (total > max || f.syncWrites) {
                return false; // an O_DSYNC write waits for the device: never on the loop
            }
            long t0 = System.nanoTime(); // two clock reads a write, not three: each was 1% of a loop's 4 KiB writes
            if (t0 - f.inlineBackoffUntil < 0) {
                return false;
            }
            res = LeanCalls.pwritev2(capture, f.fd, iov, count, position, 0);
            blocked(f, t0);
            if (res == -Errno.EINTR || res == -Errno.EAGAIN) {
                return false;
            }
            return queue(s, res);
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true; // the downcall cannot be made here: the ring does every write
            return false;
        }
    }

    /**
     * A read of a regular file in memory (tmpfs, ramfs) made here; true if its result is queued for the next turn,
     * false if the ring must make it. Those file systems refuse {@code RWF_NOWAIT}, so io_uring hands every read of
     * theirs to an io-wq worker: cached 4 KiB random reads of a tmpfs file ran at 0.16 times a {@code FileChannel}'s
     * rate through {@code AsyncFile} (0.30 through the ring alone) on the development machine. Their bytes are in
     * memory, so the loop's own {@code preadv2} costs what the JDK's read does. Up to
     * {@link io.github.uring4j.engine.EngineConfig#inlineWriteMax} bytes, under the same 10 ms rule as writes (a
     * page swapped out can make one wait); with 0 the ring makes them all.
     */
    boolean read(Slot s, Request r, UringFile f) {
        if (max == 0 || unavailable || f.direct || r.timeoutNanos != 0 || r.length > max
                || f.inMemory == UringFile.MEMORY_NO) {
            return false;
        }
        try {
            if (f.inMemory == UringFile.MEMORY_UNKNOWN) {
                if (onDisk(f.path)) {
                    f.inMemory = UringFile.MEMORY_NO;
                    return false;
                }
                // The file system first: on any other than these three (ext4, xfs, ...) the type need not be asked,
                // and the loop makes one call for a new file instead of two (a statx and an fstatfs were 3.5% of a
                // loop's time in a chain of open, read and close per small file)
                long type = LeanCalls.fileSystem(capture, f.fd, statfs);
                loop.stats.fileSystemAskedOne();
                boolean inMemory = type == LeanCalls.TMPFS_MAGIC || type == LeanCalls.RAMFS_MAGIC;
                boolean overlay = type == LeanCalls.OVERLAYFS_MAGIC;
                if (type != 0 && !inMemory && !overlay) {
                    rememberOnDisk(f.path);
                }
                f.inMemory = !(inMemory || overlay) || !isRegular(f) ? UringFile.MEMORY_NO
                        : inMemory ? UringFile.MEMORY_YES : UringFile.MEMORY_OVERLAY;
                if (f.inMemory == UringFile.MEMORY_NO) {
                    return false;
                }
            }
            if (f.inMemory == UringFile.MEMORY_OVERLAY && !cached(f, r.position, r.length)) {
                return false;
            }
            long t0 = System.nanoTime();
            if (t0 - f.inlineBackoffUntil < 0) {
                return false;
            }
            iov1.set(ValueLayout.JAVA_LONG, 0, r.address);
            iov1.set(ValueLayout.JAVA_LONG, 8, r.length);
            long res = LeanCalls.preadv2(capture, f.fd, iov1, 1, r.position, 0);
            blocked(f, t0);
            if (res == -Errno.EINTR || res == -Errno.EAGAIN) {
                return false;
            }
            loop.stats.inlineReadOne();
            return queueResult(s, res);
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true;
            return false;
        }
    }

    /**
     * Whether the directory {@code path} names (all of it up to its last {@code '/'}) holds files on a file system
     * neither in memory nor overlayfs, as the {@code fstatfs} of another file opened through it said: the next file
     * there is not asked. Even one {@code fstatfs} per small file was 5.5% of a loop's time in chains of open, read
     * and close. A file that is a mount point of its own, or a symbolic link into a tmpfs, is then read through the
     * ring as a file on disk: more slowly (by an io-wq worker), never wrongly.
     */
    private boolean onDisk(String path) {
        int end = path.lastIndexOf('/');
        for (String d : onDisk) {
            if (d != null && d.length() == end && path.startsWith(d)) {
                return true;
            }
        }
        return false;
    }

    private void rememberOnDisk(String path) {
        int end = path.lastIndexOf('/');
        if (end >= 0 && !onDisk(path)) {
            onDisk[nextOnDisk] = path.substring(0, end);
            nextOnDisk = (nextOnDisk + 1) % onDisk.length;
        }
    }

    /**
     * Whether every page of {@code [position, position + length)} of an overlayfs file is in the page cache, asked with
     * {@code mincore} of a read-only mapping of the file (made once per file; {@code cachestat} sees no page of an
     * overlayfs file, whose pages are its backing file's). Overlayfs refuses {@code RWF_NOWAIT}, so io_uring hands
     * every read of it to an io-wq worker: a container's own files were read at 0.13 times a {@code FileChannel}'s
     * rate through {@code AsyncFile}. A read whose pages are cached costs the loop what the JDK's does; one that
     * is not goes to the ring, where the worker waits for the device. A page dropped between the question and the
     * read makes the loop wait once (the 10 ms rule of {@link #blocked} still holds).
     */
    private boolean cached(UringFile f, long position, int length) {
        if (position < 0) {
            return false;
        }
        long first = position & ~4095L;
        long end = position + length;
        long addr = f.mapped(end);
        if (addr == 0) {
            // no mapping yet, or the read reaches past it: the file's size now says how much to map
            if (LeanCalls.statx(capture, f.fd, emptyPath, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE, statx.segment())
                    != 0) {
                return false;
            }
            addr = f.residency(loop.sys, end, statx.size());
            if (addr == 0) {
                return false;
            }
        }
        long span = end - first;
        int n = (int) ((span + 4095) >>> 12);
        if (n > pages.byteSize() || LeanCalls.mincore(capture, addr + first, span, pages) != 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if ((pages.get(ValueLayout.JAVA_BYTE, i) & 1) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The {@code fsync}/{@code fdatasync} of {@code r} made here when the loop is idle; true if its result is queued
     * for the next turn, false if the ring must do it.
     */
    boolean fsync(Slot s, Request r, UringFile f) {
        if (!syncHere(f)) {
            return false;
        }
        try {
            long t0 = System.nanoTime();
            int res = sync(f, r.metaData);
            blocked(f, t0);
            loop.stats.inlineSyncOne();
            return queueResult(s, res);
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true;
            return false;
        }
    }

    /**
     * A write→fdatasync request made here when the loop is idle: the write, then (if it wrote everything) the
     * {@code fdatasync}; a failed or short write cancels the sync, as it would cancel the linked entry in the ring.
     * True if both results are queued for the next turn.
     */
    boolean writeSync(Slot s, Request r, UringFile f) {
        if (!eligible(r, f) || f.syncWrites || r.length > max || !syncHere(f)) {
            return false;
        }
        try {
            iov1.set(ValueLayout.JAVA_LONG, 0, r.address);
            iov1.set(ValueLayout.JAVA_LONG, 8, r.length);
            long t0 = System.nanoTime();
            long w = LeanCalls.pwritev2(capture, f.fd, iov1, 1, r.position, 0);
            if (w == -Errno.EINTR || w == -Errno.EAGAIN) {
                blocked(f, t0);
                return false;
            }
            int sync = -Errno.ECANCELED; // a failed or short write cancels its sync, as in the ring
            if (w == r.length) {
                sync = sync(f, false);
                loop.stats.inlineSyncOne();
            }
            blocked(f, t0);
            s.inlineLinked = true;
            s.inlineLinkedRes = sync;
            s.cqes++;
            loop.expected++;
            return queue(s, w);
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true;
            return false;
        }
    }

    /**
     * An open that creates or truncates its file, made here when the loop is idle; true if its result (the descriptor,
     * or {@code -errno}) is queued for the next turn, false if the ring must make it. io_uring hands every such open to
     * an io-wq worker: on the development machine, creating a file that way took 20-35 µs from the caller's call to
     * its result, against 7 µs for the JDK's open. The open asks for {@code O_NONBLOCK}, as io_uring's own first try of
     * an open does, so that a FIFO without its other end ({@code ENXIO}) or a file under another process's lease
     * ({@code EAGAIN}) says so instead of waiting on the loop: the ring's worker then makes the open that waits. Once
     * the file is open its status flags are set to those asked for ({@code O_NONBLOCK} off again). An open that held
     * the loop longer than {@link #BLOCKED_NANOS} while requests of other threads arrived, the second within
     * {@link #STRIKE_NANOS}, sends such opens to the ring for {@link #BACKOFF_NANOS}. {@code path}: the path as a C
     * string.
     */
    boolean open(Slot s, int flags, MemorySegment path) {
        if (max == 0 || unavailable || (flags & (Uapi.O_CREAT | Uapi.O_TRUNC)) == 0 || !loop.idle()) {
            return false;
        }
        long t0 = System.nanoTime();
        if (t0 - openBackoffUntil < 0) {
            return false;
        }
        int fd;
        try {
            fd = LeanCalls.open(capture, path, flags | Uapi.O_CLOEXEC | Uapi.O_NONBLOCK, 0666);
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true;
            return false;
        }
        if (fd >= 0 && (flags & Uapi.O_NONBLOCK) == 0) {
            try {
                LeanCalls.setStatusFlags(capture, fd, flags); // cannot fail for flags the open itself took
            } catch (IllegalStateException | LinkageError e) {
                // The file is open (maybe created): it is the open's result all the same, its flag left on.
                unavailable = true;
            }
        }
        long t1 = System.nanoTime();
        if (stalledOthers(t0, t1)) {
            if (secondStrike(lastOpenStall, t1)) {
                openBackoffUntil = t1 + BACKOFF_NANOS;
            }
            lastOpenStall = t1;
        }
        if (fd == -Errno.ENXIO || fd == -Errno.EAGAIN || fd == -Errno.EINTR) {
            return false; // a FIFO's other end, a lease: the ring's worker waits for it
        }
        loop.stats.inlineOpenOne();
        return queueResult(s, fd);
    }

    /**
     * The size of {@code f} ({@code statx} of its descriptor into the slot's buffer) asked here when the loop is idle;
     * true if the result is queued for the next turn, false if the ring must ask. io_uring hands every {@code STATX}
     * to an io-wq worker: {@code size()} awaited one at a time took 32-35 µs with the waiter parked and 3.9-4.1 µs with
     * it spinning, on the development machine. Calls that held the loop over {@link #BLOCKED_NANOS} while others
     * waited send the file's calls to the ring for {@link #BACKOFF_NANOS}, by the rule of writes and syncs.
     */
    boolean size(Slot s, UringFile f) {
        if (max == 0 || unavailable || !loop.idle() || System.nanoTime() - f.inlineBackoffUntil < 0) {
            return false;
        }
        int res;
        try {
            long t0 = System.nanoTime();
            res = LeanCalls.statx(capture, f.fd, emptyPath, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE | Statx.STATX_TYPE,
                    s.statx.segment());
            blocked(f, t0);
        } catch (IllegalStateException | LinkageError e) {
            unavailable = true;
            return false;
        }
        loop.stats.inlineSizeOne();
        return queueResult(s, res);
    }

    /** {@code fsync} ({@code metaData}) or {@code fdatasync} of {@code f}, again after {@code EINTR}. */
    private int sync(UringFile f, boolean metaData) {
        return LeanCalls.fsync(capture, f.fd, metaData);
    }

    /** Whether the loop may make a sync of {@code f} itself now. */
    private boolean syncHere(UringFile f) {
        return max > 0 && !unavailable && !f.direct && loop.idle() && System.nanoTime() - f.inlineBackoffUntil >= 0
                && isRegular(f);
    }

    /**
     * A write or sync made on the loop that began at {@code t0} ended: {@code f} backs off only if the call held the
     * loop longer than {@link #BLOCKED_NANOS} while others may have waited for it: requests of other threads, or
     * operations in the kernel whose completions the loop was not there to take ({@link EventLoop#othersKeptWaiting};
     * a sync is made only by an idle loop, so for it that is other threads' requests). A lone writer's stall (a journal
     * commit, dirty-page throttling) delayed only that writer, who waits for it either way; backing off then sent its
     * next 250 ms through io-wq: one sync over 10 ms a second (journal commits on a virtio disk) took
     * {@code writeAndSync} one at a time from 0.8 to 0.4 times the JDK's {@code write} + {@code force}, and one 1 MiB
     * append over 10 ms in a 256 MiB pass took the async API's append writes from 0.96-1.02 to 0.47 times the JDK's
     * {@code FileChannel}. And only at the second such stall within {@link #STRIKE_NANOS}, as for the drop-in's
     * writes of virtual threads: one stall among 2,827 appends of several in flight (1 MiB each, 256 MiB a pass) sent
     * the rest of the pass through io-wq, 0.70 times the JDK's rate where the passes around it made 0.96-1.02.
     */
    private void blocked(UringFile f, long t0) {
        long t1 = System.nanoTime();
        if (stalledOthers(t0, t1)) {
            if (secondStrike(f.lastInlineStall, t1)) {
                f.inlineBackoffUntil = t1 + BACKOFF_NANOS;
            }
            f.lastInlineStall = t1;
        }
    }

    /** Whether a stall at {@code t1} came within {@link #STRIKE_NANOS} of the one at {@code last} (0: none yet). */
    private static boolean secondStrike(long last, long t1) {
        return last != 0 && t1 - last <= STRIKE_NANOS;
    }

    /**
     * Whether a call made here from {@code t0} to {@code t1} held the loop longer than {@link #BLOCKED_NANOS} while
     * others may have waited for it (counted as a slow call either way).
     */
    private boolean stalledOthers(long t0, long t1) {
        if (t1 - t0 <= BLOCKED_NANOS) {
            return false;
        }
        loop.stats.inlineBlockedOne();
        return loop.othersKeptWaiting();
    }

    /** True if {@code f} is a regular file (asked of the kernel once per file). */
    boolean isRegular(UringFile f) {
        int t = f.type;
        if (t == UringFile.TYPE_UNKNOWN) {
            try {
                int r = LeanCalls.statx(capture, f.fd, emptyPath, Uapi.AT_EMPTY_PATH, Statx.STATX_TYPE, statx.segment());
                t = r == 0 && statx.isRegularFile() ? UringFile.TYPE_REGULAR : UringFile.TYPE_OTHER;
            } catch (IllegalStateException | LinkageError e) {
                t = UringFile.TYPE_OTHER;
            }
            f.type = t;
        }
        return t == UringFile.TYPE_REGULAR;
    }

    private boolean queue(Slot s, long res) {
        loop.stats.inlineWriteOne();
        return queueResult(s, res);
    }

    private boolean queueResult(Slot s, long res) {
        s.inlineRes = (int) res;
        s.cqes++;
        loop.expected++;
        done.add(s);
        return true;
    }

    /**
     * The completions of the loop's {@code expected} queued here for its next turn, not in the kernel (asked only
     * after a slow call).
     */
    int pendingCqes() {
        int n = 0;
        for (Slot s : done) {
            n += s.inlineLinked ? 2 : 1;
        }
        return n;
    }

    boolean pending() {
        return !done.isEmpty();
    }

    /** Delivers the queued results as completions; true if there were any. */
    boolean deliver() {
        if (done.isEmpty()) {
            return false;
        }
        // Results queued while delivering (a handler's next write) wait for the next turn.
        for (int n = done.size(); n > 0; n--) {
            Slot s = done.poll();
            int res = s.inlineRes;
            boolean linked = s.inlineLinked;
            int linkedRes = s.inlineLinkedRes;
            s.inlineLinked = false;
            loop.completions.handle(Slot.userData(s.index, Slot.MAIN), res, 0);
            if (linked) {
                loop.completions.handle(Slot.userData(s.index, Slot.LINKED), linkedRes, 0);
            }
        }
        return true;
    }
}
