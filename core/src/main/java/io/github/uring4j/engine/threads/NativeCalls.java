package io.github.uring4j.engine.threads;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.github.uring4j.engine.ErrorMapper;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.ResultFilter;
import io.github.uring4j.engine.Rules;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CancellationException;
import java.util.function.IntSupplier;

/**
 * The blocking system calls behind each request kind, through the {@link Syscalls} layer. Results go through the
 * same {@link Rules} as io_uring's: short transfers, end of file, errno meanings.
 */
final class NativeCalls implements Calls {
    private static final MemorySegment EMPTY_PATH = Arena.global().allocateFrom("");

    private final Syscalls sys;
    private final ErrorMapper errors;
    private final ResultFilter filter;

    NativeCalls(Syscalls sys, ErrorMapper errors, ResultFilter filter) {
        this.sys = sys;
        this.errors = errors;
        this.filter = filter;
    }

    private Throwable error(Request r, long res) {
        return Rules.failure(r, (int) -res, false, false, errors);
    }

    private static int retry(IntSupplier call) {
        int r;
        do {
            r = call.getAsInt();
        } while (r == -Errno.EINTR);
        return r;
    }

    @Override
    public long transfer(Task t, ThreadsFile f) throws Throwable {
        Request r = t.request;
        int fd = f.fd;
        boolean read = r.kind == Request.READ || r.kind == Request.READ_FILE;
        while (true) {
            MemorySegment m = MemorySegment.ofAddress(r.address).reinterpret(r.length);
            long res;
            do {
                res = read ? sys.pread(fd, m, r.length, r.position) : sys.pwrite(fd, m, r.length, r.position);
                if (res == -Errno.ESPIPE && offsetless(f)) {
                    // pipes, sockets and character devices have no offsets, and may wait for ever
                    blockFromNowOn(f);
                    r.untilEnd = false; // a whole-file read of a pipe or a device reads once
                    res = unpositioned(t, f, m, read);
                }
            } while (res == -Errno.EINTR);
            if (filter != null) {
                res = filter.filter(r.kind, 0, (int) res, r.length);
            }
            if (res < 0) {
                throw error(r, res);
            }
            long v = Rules.afterChunk(r, res, errors);
            if (v != Rules.MORE) {
                if (r.kind == Request.WRITE_SYNC) {
                    t.backend.wroteBeforeSync(t, f);
                    int s = retry(() -> sys.fdatasync(fd));
                    if (filter != null) {
                        s = filter.filter(r.kind, 1, s, 0);
                    }
                    if (s < 0) {
                        throw Rules.syncFailure(r, -s, false, errors);
                    }
                }
                return v;
            }
            if (r.isCancelled()) {
                throw new CancellationException(r.name() + " cancelled");
            }
        }
    }

    /** How long a call waiting on a pipe sleeps before it looks again whether its client is still waiting for it. */
    static final int WAIT_SLICE_MILLIS = 50;

    /**
     * A read or write of a pipe, socket or character device. A blocking call there could wait for ever (a FIFO
     * nobody writes, or one full that nobody reads), and a blocking call cannot be stopped: one that timed out, or
     * whose file closed, would go on waiting on its worker, then take the bytes written next (a read), or put its
     * bytes in once a reader made room (a write), for a client that was told it failed. So a call only moves bytes
     * that can move at once: with {@code RWF_NOWAIT} (pipes, sockets), or, where that is refused (a FIFO), while
     * {@code poll} says the descriptor is ready, reading at most the bytes {@code FIONREAD} counts and writing in
     * pieces of {@link #PIPE_PIECE} (a FIFO that is not full takes one without blocking), under the file's lock for
     * that direction so that another call of the file cannot move bytes in between. While nothing can move it waits
     * with {@code poll} in slices of {@link #WAIT_SLICE_MILLIS}, looking between them whether its client was told
     * already (a timeout, a close, a shutdown) or cancelled the request: then it ends without touching the data. Each
     * attempt runs under the task's lock and holds the request's delivery, so that a cancel coming during it waits for
     * its end, and one that moved bytes holds back an early tell: no bytes move for a client that was told otherwise.
     * A device that refuses both ({@code FIONREAD} fails) is read and written as before, blocking; another process
     * writing to the same FIFO between a {@code poll} and a write can block a write too, until a reader makes room.
     */
    private long unpositioned(Task t, ThreadsFile f, MemorySegment m, boolean read)
            throws java.nio.channels.AsynchronousCloseException {
        Request r = t.request;
        int fd = f.fd;
        if (readiness(f, read) == ThreadsFile.BLOCKING) {
            return blocking(fd, m, read);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment iov = a.allocate(16, 8);
            iov.set(JAVA_LONG, 0, m.address());
            iov.set(JAVA_LONG, 8, m.byteSize());
            MemorySegment pfd = a.allocate(Uapi.POLLFD_SIZE, 4);
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, read ? Uapi.POLLIN : Uapi.POLLOUT);
            MemorySegment count = a.allocate(JAVA_INT);
            while (true) {
                Runnable tell = null;
                boolean abandoned = false;
                long res = -Errno.EAGAIN;
                synchronized (t) {
                    t.moved = false;
                    if (t.heldBack != null) {
                        tell = r.claimEarlyTell(t.heldBack);
                        t.heldBack = null;
                        abandoned = true;
                    } else if (t.ended || r.wasTold() || !r.holdDelivery()) {
                        // (cancelled: looked at before every attempt, not only after a wait, which took the next
                        // bytes written for a read whose future was already cancelled; and claimed against a cancel
                        // for the attempt, since one coming between the look and the call lost the bytes read)
                        abandoned = true;
                    } else if (readiness(f, read) == ThreadsFile.NOWAIT) {
                        do {
                            res = read ? sys.preadv2(fd, iov, 1, -1, Uapi.RWF_NOWAIT)
                                    : sys.pwritev2(fd, iov, 1, -1, Uapi.RWF_NOWAIT);
                        } while (res == -Errno.EINTR);
                        if (res == -Errno.EOPNOTSUPP) {
                            // a FIFO: it cannot say "not now"
                            if (read) {
                                f.readiness = ThreadsFile.POLL;
                            } else {
                                f.writeReadiness = ThreadsFile.POLL;
                            }
                            res = -Errno.EAGAIN;
                        }
                    }
                    if (!abandoned && readiness(f, read) == ThreadsFile.POLL) {
                        res = read ? readWhatIsThere(f, m, pfd, count) : writeWhatFits(f, m, pfd, count);
                    }
                    t.moved = res >= 0;
                    if (!abandoned && res <= 0) {
                        r.releaseDelivery(); // nothing moved: a cancel may win
                    }
                }
                if (abandoned) {
                    if (tell != null) {
                        tell.run();
                    }
                    // the client was told (its timeout, its file's close): what this ends with goes to no one
                    throw new CancellationException(r.name() + " abandoned: its client was told already");
                }
                if (readiness(f, read) == ThreadsFile.BLOCKING) {
                    return blocking(fd, m, read);
                }
                if (res != -Errno.EAGAIN) {
                    return res;
                }
                if (r.isCancelled()) {
                    throw new CancellationException(r.name() + " cancelled");
                }
                if (!t.backend.isOpen()) {
                    // the executor closes: a wait for the other end ends now, as its file's close ends it, rather
                    // than hold the close for its whole bounded wait
                    throw new java.nio.channels.AsynchronousCloseException();
                }
                pfd.set(JAVA_SHORT, 6, (short) 0);
                sys.poll(pfd, 1, WAIT_SLICE_MILLIS); // ready, a slice gone or EINTR: look again either way
            }
        }
    }

    /** How {@code f} waits in this direction: {@link ThreadsFile#readiness} or {@link ThreadsFile#writeReadiness}. */
    private static int readiness(ThreadsFile f, boolean read) {
        return read ? f.readiness : f.writeReadiness;
    }

    private long blocking(int fd, MemorySegment m, boolean read) {
        return read ? sys.read(fd, m, m.byteSize()) : sys.write(fd, m, m.byteSize());
    }

    /**
     * Reads at most what {@code f}'s descriptor holds now: {@code -EAGAIN} when it holds nothing and its writers are
     * still there. Sets {@link ThreadsFile#readiness} to {@link ThreadsFile#BLOCKING} (and reads nothing) when the
     * descriptor cannot count its bytes.
     */
    private long readWhatIsThere(ThreadsFile f, MemorySegment m, MemorySegment pfd, MemorySegment count) {
        synchronized (f.readLock) {
            pfd.set(JAVA_SHORT, 6, (short) 0);
            if (sys.poll(pfd, 1, 0) <= 0) {
                return -Errno.EAGAIN;
            }
            short ready = pfd.get(JAVA_SHORT, 6);
            if (sys.ioctl(f.fd, Uapi.FIONREAD, count) < 0) {
                f.readiness = ThreadsFile.BLOCKING;
                return -Errno.EAGAIN;
            }
            int there = count.get(JAVA_INT, 0);
            if (there > 0) {
                return retryLong(() -> sys.read(f.fd, m, Math.min(there, m.byteSize())));
            }
            if ((ready & (Uapi.POLLHUP | Uapi.POLLERR)) != 0) {
                return retryLong(() -> sys.read(f.fd, m, m.byteSize())); // no writer left: the end, at once
            }
            return -Errno.EAGAIN;
        }
    }

    /**
     * A FIFO that is not full takes a write of up to a page without blocking (the pipe has a free slot, which is what
     * {@code poll}'s {@code POLLOUT} says), and one of up to {@code PIPE_BUF} whole.
     */
    static final int PIPE_PIECE = 4096;

    /**
     * Writes as much of {@code m} as {@code f}'s descriptor takes now, a {@link #PIPE_PIECE} at a time while
     * {@code poll} says it has room: the bytes written, or {@code -EAGAIN} when it had no room. Sets
     * {@link ThreadsFile#writeReadiness} to {@link ThreadsFile#BLOCKING} (and writes nothing) when the descriptor is
     * not a pipe ({@code FIONREAD} fails: a device, whose {@code poll} may say "ready" whatever it is).
     */
    private long writeWhatFits(ThreadsFile f, MemorySegment m, MemorySegment pfd, MemorySegment count) {
        synchronized (f.writeLock) {
            if (sys.ioctl(f.fd, Uapi.FIONREAD, count) < 0) {
                f.writeReadiness = ThreadsFile.BLOCKING;
                return -Errno.EAGAIN;
            }
            long done = 0;
            while (done < m.byteSize()) {
                pfd.set(JAVA_SHORT, 6, (short) 0);
                if (sys.poll(pfd, 1, 0) <= 0) {
                    break;
                }
                short ready = pfd.get(JAVA_SHORT, 6);
                if ((ready & Uapi.POLLOUT) == 0 && (ready & Uapi.POLLERR) == 0) {
                    break;
                }
                // POLLERR: no reader left, and the write fails at once (EPIPE)
                MemorySegment piece = m.asSlice(done, Math.min(PIPE_PIECE, m.byteSize() - done));
                long res = retryLong(() -> sys.write(f.fd, piece, piece.byteSize()));
                if (res < 0) {
                    return done > 0 ? done : res;
                }
                done += res;
            }
            return done > 0 ? done : -Errno.EAGAIN;
        }
    }

    private static long retryLong(java.util.function.LongSupplier call) {
        long r;
        do {
            r = call.getAsLong();
        } while (r == -Errno.EINTR);
        return r;
    }

    @Override
    public long vector(Task t, ThreadsFile f) throws Throwable {
        Request r = t.request;
        int fd = f.fd;
        long total = 0;
        for (int i = 0; i < r.iovCount; i++) {
            long len = r.iovLength(i);
            MemorySegment m = MemorySegment.ofAddress(r.iovAddress(i)).reinterpret(len);
            long res;
            do {
                res = r.kind == Request.READV ? sys.pread(fd, m, len, r.position + total)
                        : sys.pwrite(fd, m, len, r.position + total);
                if (res == -Errno.ESPIPE && offsetless(f)) {
                    // a FIFO, pipe or device (ESPIPE said so before): no offsets, and a wait that could last for
                    // ever, so one buffer's worth as a single read or write of it (a short transfer, as readv's may be)
                    if (len == 0) {
                        res = 0;
                        break;
                    }
                    blockFromNowOn(f);
                    res = unpositioned(t, f, m, r.kind == Request.READV);
                    if (res >= 0) {
                        return Rules.afterVector(r, total + res);
                    }
                }
            } while (res == -Errno.EINTR);
            if (res < 0) {
                if (total > 0) {
                    break;
                }
                throw error(r, res);
            }
            total += res;
            if (res < len) {
                break;
            }
        }
        return Rules.afterVector(r, total);
    }

    @Override
    public long other(Request r, ThreadsFile f) throws Throwable {
        int fd = f.fd;
        if (r.kind == Request.SIZE) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment sx = a.allocate(Statx.LAYOUT);
                int s = sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE | Statx.STATX_TYPE, sx);
                if (s < 0) {
                    throw error(r, s);
                }
                long size = Statx.size(sys, fd, sx); // a block device's from ioctl
                if (size < 0) {
                    throw error(r, (int) size);
                }
                return size;
            }
        }
        int res = switch (r.kind) {
            case Request.FSYNC -> retry(() -> r.metaData ? sys.fsync(fd) : sys.fdatasync(fd));
            case Request.TRUNCATE -> retry(() -> sys.ftruncate(fd, r.arg));
            case Request.ALLOCATE -> retry(() -> sys.fallocate(fd, 0, r.position, r.arg));
            case Request.ADVISE -> sys.fadvise(fd, r.position, r.arg, r.flags);
            case Request.SYNC_RANGE -> retry(() -> sys.syncFileRange(fd, r.position, r.arg, r.flags));
            default -> throw new IllegalStateException("request kind " + r.kind);
        };
        if (res < 0) {
            throw error(r, res);
        }
        return 0;
    }

    @Override
    public ThreadsFile open(ThreadsBackend backend, Request r) throws IOException {
        int[] restore = new int[1];
        int fd = openFd(backend, r, r.open.flags() | Uapi.O_CLOEXEC, restore);
        if (fd < 0) {
            throw errors.error(-fd, "OPEN", r.open.path(), -1, r.open.direct());
        }
        int[] align = r.open.direct() ? directAlignment(fd) : new int[] {4096, 4096};
        ThreadsFile f = new ThreadsFile(backend, r.open, fd, null, align[1], align[0]);
        f.statusFlagsToRestore = restore[0];
        return f;
    }

    /**
     * {@code open(2)} that never blocks its worker: with {@code O_NONBLOCK} (unless the caller asked for it itself,
     * the descriptor's flags to set back once it turns out not to be seekable are kept in {@code restore[0]}, else
     * -1). Without it, an open of a FIFO waits in the kernel for the other end, a call that neither a cancel nor the
     * backend's close can stop. With it, a read-only open of a FIFO returns at once (its reads then wait for a
     * writer's bytes, as on io_uring), and a write-only one without a reader fails with {@code ENXIO}: it is tried
     * again every {@link #OPEN_RETRY_MILLIS} ms until a reader is there, the request is cancelled or the backend
     * closes. A regular file ignores {@code O_NONBLOCK}; a file that refuses it for another reason (a lease,
     * {@code EAGAIN}) is opened as before.
     */
    private int openFd(ThreadsBackend backend, Request r, int flags, int[] restore) throws IOException {
        restore[0] = -1;
        if ((flags & Uapi.O_NONBLOCK) != 0) {
            return sys.open(r.open.cPath(), flags, 0666);
        }
        while (true) {
            int fd = sys.open(r.open.cPath(), flags | Uapi.O_NONBLOCK, 0666);
            if (fd >= 0) {
                restore[0] = flags;
                return fd;
            }
            if (fd == -Errno.EAGAIN) {
                return sys.open(r.open.cPath(), flags, 0666);
            }
            if (fd != -Errno.ENXIO || (flags & Uapi.O_ACCMODE) != Uapi.O_WRONLY || !isFifo(r)) {
                return fd; // a socket's path: ENXIO, as open(2) says it
            }
            if (r.isCancelled()) {
                throw new CancellationException("OPEN cancelled");
            }
            if (!backend.isOpen() || r.wasTold()) {
                throw new java.nio.channels.AsynchronousCloseException(); // what the backend's close tells
            }
            java.util.concurrent.locks.LockSupport.parkNanos(OPEN_RETRY_MILLIS * 1_000_000L);
        }
    }

    /**
     * A descriptor {@link #openFd} opened with {@code O_NONBLOCK} that turned out not to be seekable (a pipe, a
     * device) blocks from now on, as {@code open(2)}'s would: {@link #unpositioned} handles the waits itself.
     */
    private void blockFromNowOn(ThreadsFile f) {
        int flags = f.statusFlagsToRestore;
        if (flags >= 0) {
            sys.fcntl(f.fd, Uapi.F_SETFL, flags);
            f.statusFlagsToRestore = -1;
        }
    }

    /**
     * Whether {@code f}, whose call said {@code ESPIPE}, has no offsets because it is no regular file (learnt once
     * per file). A regular file that refuses offsets (a /proc file such as {@code /proc/self/status} when written)
     * is not read or written as a pipe is, without an offset: that answered {@code EINVAL} where the JDK's channel
     * and the io_uring backend say {@code ESPIPE}.
     */
    private boolean offsetless(ThreadsFile f) {
        if (!f.offsetless && !regularFile(f.fd)) {
            f.offsetless = true; // asked once: every call of a FIFO's finds ESPIPE first
        }
        return f.offsetless;
    }

    private boolean regularFile(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            return sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_TYPE, sx) == 0
                    && (sx.get(JAVA_SHORT, Statx.MODE) & 0170000) == 0100000;
        }
    }

    /** How often a write-only open of a FIFO looks again for a reader. */
    static final int OPEN_RETRY_MILLIS = 10;

    private boolean isFifo(Request r) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            return sys.statx(Uapi.AT_FDCWD, r.open.cPath(), 0, Statx.STATX_MODE, sx) == 0
                    && (sx.get(JAVA_SHORT, Statx.MODE) & 0170000) == 0010000;
        }
    }

    /** {offset alignment, memory alignment} {@code O_DIRECT} needs for {@code fd}: STATX_DIOALIGN, else 4096. */
    private int[] directAlignment(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            if (sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_DIOALIGN, sx) == 0
                    && (sx.get(JAVA_INT, Statx.MASK) & Statx.STATX_DIOALIGN) != 0
                    && sx.get(JAVA_INT, Statx.DIO_OFFSET_ALIGN) > 0) {
                return new int[] {sx.get(JAVA_INT, Statx.DIO_OFFSET_ALIGN), sx.get(JAVA_INT, Statx.DIO_MEM_ALIGN)};
            }
        }
        return new int[] {4096, 4096};
    }

    @Override
    public IOException close(ThreadsFile f) {
        int r = sys.close(f.fd);
        return r < 0 ? errors.error(-r, "CLOSE", f.path, -1, false) : null;
    }
}
