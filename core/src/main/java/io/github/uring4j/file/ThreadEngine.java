package io.github.uring4j.file;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.AsynchronousCloseException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fallback backend: the same operations as blocking system calls ({@code pread}, {@code pwrite},
 * {@code fdatasync}, ...) on a fixed pool of threads. Used where io_uring cannot be set up.
 */
final class ThreadEngine extends Engine {
    private static final MemorySegment EMPTY_PATH = Arena.global().allocateFrom("");

    private final Syscalls sys;
    private final ThreadPoolExecutor pool;
    private final Set<AsyncFile> files = ConcurrentHashMap.newKeySet();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private final io.github.uring4j.file.ResultFilter filter;
    private volatile boolean closing;

    ThreadEngine(IoExecutor executor, int threads, Syscalls sys, ThreadFactory factory, ResultFilter filter) {
        super(executor);
        this.sys = sys;
        this.filter = filter;
        ThreadFactory recording = r -> {
            Thread t = factory.newThread(r);
            workers.add(t);
            return t;
        };
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                recording);
    }

    private java.util.concurrent.ScheduledThreadPoolExecutor timer;

    /** A timer thread for per-operation timeouts, started on first use. */
    private synchronized java.util.concurrent.ScheduledThreadPoolExecutor timer() {
        if (timer == null) {
            timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "uring4j-threads-timer");
                t.setDaemon(true);
                return t;
            });
            timer.setRemoveOnCancelPolicy(true);
        }
        return timer;
    }

    @Override
    Backend backend() {
        return Backend.THREADS;
    }

    @Override
    void route(Op op) {
        // one pool: nothing to choose
    }

    @Override
    void execute(Op op) {
        if (closing) {
            op.fail(new AsynchronousCloseException());
            return;
        }
        if (op.timeoutNanos > 0) {
            Op timed = op;
            int gen = op.generation;
            timer().schedule(() -> timed.timeout(gen), op.timeoutNanos, TimeUnit.NANOSECONDS);
        }
        try {
            pool.execute(op);
        } catch (RejectedExecutionException e) {
            op.fail(new AsynchronousCloseException());
        }
    }

    @Override
    void cancel(Op op, int gen, UringLoop loop) {
        // A blocking call cannot be stopped; one that has not started is skipped.
        op.markCancelled(gen);
    }

    @Override
    String registerBuffers(BufferPool pool) {
        return "the threads backend does not register buffers";
    }

    @Override
    void unregisterBuffers(BufferPool pool) {
        // nothing registered
    }

    @Override
    void shutdown() {
        closing = true;
        pool.shutdown();
        List<Runnable> queued = new ArrayList<>();
        pool.getQueue().drainTo(queued);
        for (Runnable r : queued) {
            ((Op) r).fail(new AsynchronousCloseException());
        }
        if (workers.contains(Thread.currentThread())) {
            // Called from a completion on a worker: waiting here would wait for ourselves.
            Thread t = new Thread(this::awaitAndCloseFiles, "uring4j-threads-close");
            t.setDaemon(true);
            t.start();
            return;
        }
        awaitAndCloseFiles();
    }

    private void awaitAndCloseFiles() {
        synchronized (this) {
            if (timer != null) {
                timer.shutdownNow();
            }
        }
        boolean interrupted = false;
        while (true) {
            try {
                if (pool.awaitTermination(1, TimeUnit.DAYS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        for (AsyncFile f : files) {
            if (f.beginCloseThreads()) {
                sys.close(f.fd);
                f.markClosed();
            }
        }
        files.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    boolean isOpen() {
        return !closing;
    }

    @Override
    int inFlight() {
        return inFlight.get();
    }

    // ------------------------------------------------------------------------------------------ pool threads

    void runOp(Op op) {
        if (op.cancelled) {
            op.fail(new CancellationException(op.name() + " cancelled"));
            return;
        }
        if (closing) {
            op.fail(new AsynchronousCloseException());
            return;
        }
        inFlight.incrementAndGet();
        try {
            switch (op.kind) {
                case Op.OPEN -> open(op);
                case Op.CLOSE -> close(op);
                default -> {
                    AsyncFile f = op.file;
                    if (!f.enterThreads()) {
                        op.fail(new AsynchronousCloseException());
                        return;
                    }
                    try {
                        io(op, f);
                    } finally {
                        f.exitThreads();
                    }
                }
            }
        } catch (Throwable t) {
            op.fail(t);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private void open(Op op) throws IOException {
        int fd = sys.open(op.cPath, op.openFlags, 0666);
        if (fd < 0) {
            op.fail(Errors.of(-fd, "OPEN", op.path, -1, op.direct));
            return;
        }
        if (op.cancelled || closing) {
            sys.close(fd);
            op.fail(op.cancelled ? new CancellationException("OPEN cancelled") : new AsynchronousCloseException());
            return;
        }
        int memAlign = BouncePool.ALIGN;
        int offAlign = BouncePool.ALIGN;
        if (op.direct) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment sx = a.allocate(Statx.LAYOUT);
                if (sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_DIOALIGN, sx) == 0
                        && (sx.get(java.lang.foreign.ValueLayout.JAVA_INT, Statx.MASK) & Statx.STATX_DIOALIGN) != 0
                        && sx.get(java.lang.foreign.ValueLayout.JAVA_INT, Statx.DIO_OFFSET_ALIGN) > 0) {
                    memAlign = sx.get(java.lang.foreign.ValueLayout.JAVA_INT, Statx.DIO_MEM_ALIGN);
                    offAlign = sx.get(java.lang.foreign.ValueLayout.JAVA_INT, Statx.DIO_OFFSET_ALIGN);
                }
            }
        }
        AsyncFile f = new AsyncFile(executor, null, op.path, op.cPath, fd, -1, op.direct, memAlign, offAlign,
                op.deleteOnClose);
        files.add(f);
        if (closing && files.remove(f)) {
            sys.close(fd);
            op.fail(new AsynchronousCloseException());
            return;
        }
        op.succeedFile(f);
    }

    private void close(Op op) throws IOException {
        AsyncFile f = op.file;
        if (!files.remove(f) || !f.beginCloseThreads()) {
            op.succeedVoid(); // closed by the executor's shutdown already
            return;
        }
        int r = sys.close(f.fd);
        f.markClosed();
        if (f.deleteOnClose) {
            Files.deleteIfExists(Path.of(f.pathString()));
        }
        if (r < 0) {
            op.fail(Errors.of(-r, "CLOSE", f.pathString(), -1, false));
        } else {
            op.succeedVoid();
        }
    }

    private IOException error(Op op, long r, long offset) {
        return Errors.of((int) -r, op.name(), op.pathForErrors(), offset, op.file.direct);
    }

    private void io(Op op, AsyncFile f) throws IOException {
        int fd = f.fd;
        switch (op.kind) {
            case Op.READ, Op.WRITE, Op.WRITE_SYNC -> {
                boolean read = op.kind == Op.READ;
                while (true) {
                    MemorySegment m = MemorySegment.ofAddress(op.address).reinterpret(op.length);
                    long r;
                    do {
                        r = read ? sys.pread(fd, m, op.length, op.position) : sys.pwrite(fd, m, op.length, op.position);
                        if (r == -Errno.ESPIPE) {
                            // pipes and character devices have no offsets
                            r = read ? sys.read(fd, m, op.length) : sys.write(fd, m, op.length);
                        }
                    } while (r == -Errno.EINTR);
                    if (filter != null) {
                        r = filter.filter(op.kind, 0, (int) r, op.length);
                    }
                    if (r < 0) {
                        op.fail(error(op, r, op.position));
                        return;
                    }
                    if (r == 0 && op.length > 0) {
                        if (read) {
                            if (op.fully) {
                                op.fail(new EOFException("end of file at offset " + op.position + " of "
                                        + op.pathForErrors() + " after " + op.done + " of " + (op.done + op.length)
                                        + " bytes"));
                                return;
                            }
                            if (op.done == 0) {
                                op.succeedInt(-1);
                                return;
                            }
                            break;
                        }
                        op.fail(new FileIOException(Errno.EIO, op.name(), op.pathForErrors(), op.position,
                                "the kernel wrote 0 bytes"));
                        return;
                    }
                    op.done += r;
                    boolean all = op.fully || op.kind == Op.WRITE_SYNC;
                    if (!all || r >= op.length) {
                        break;
                    }
                    op.address += r;
                    op.length -= (int) r;
                    op.position += r;
                    if (op.cancelled) {
                        op.fail(new CancellationException(op.name() + " cancelled"));
                        return;
                    }
                }
                if (op.kind == Op.WRITE_SYNC) {
                    int s = retry(() -> sys.fdatasync(fd));
                    if (filter != null) {
                        s = filter.filter(op.kind, 1, s, 0);
                    }
                    if (s < 0) {
                        op.fail(error(op, s, -1));
                        return;
                    }
                }
                if (!op.cancelled) {
                    AsyncFile.completeBuffers(op, op.done);
                }
                op.succeedInt(op.done);
            }
            case Op.READV, Op.WRITEV -> {
                long total = 0;
                long wanted = 0;
                for (int i = 0; i < op.iovCount; i++) {
                    wanted += op.iovLen[i];
                }
                for (int i = 0; i < op.iovCount; i++) {
                    MemorySegment m = MemorySegment.ofAddress(op.iovAddr[i]).reinterpret(op.iovLen[i]);
                    long r;
                    do {
                        r = op.kind == Op.READV ? sys.pread(fd, m, op.iovLen[i], op.position + total)
                                : sys.pwrite(fd, m, op.iovLen[i], op.position + total);
                    } while (r == -Errno.EINTR);
                    if (r < 0) {
                        if (total > 0) {
                            break;
                        }
                        op.fail(error(op, r, op.position));
                        return;
                    }
                    total += r;
                    if (r < op.iovLen[i]) {
                        break;
                    }
                }
                if (total == 0 && wanted > 0 && op.kind == Op.READV) {
                    op.succeedInt(-1);
                    return;
                }
                AsyncFile.advance(op.buffers, total);
                op.succeedInt(total);
            }
            case Op.FSYNC -> finishVoid(op, retry(() -> op.metaData ? sys.fsync(fd) : sys.fdatasync(fd)));
            case Op.SIZE -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment sx = a.allocate(Statx.LAYOUT);
                    int r = sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE, sx);
                    if (r < 0) {
                        op.fail(error(op, r, -1));
                        return;
                    }
                    op.succeedInt(sx.get(JAVA_LONG, Statx.SIZE));
                }
            }
            case Op.TRUNCATE -> finishVoid(op, retry(() -> sys.ftruncate(fd, op.arg)));
            case Op.ALLOCATE -> finishVoid(op, retry(() -> sys.fallocate(fd, 0, op.position, op.arg)));
            case Op.ADVISE -> finishVoid(op, sys.fadvise(fd, op.position, op.arg, op.flags));
            case Op.SYNC_RANGE -> finishVoid(op, retry(() -> sys.syncFileRange(fd, op.position, op.arg, op.flags)));
            default -> throw new IllegalStateException("op kind " + op.kind);
        }
    }

    private void finishVoid(Op op, int r) {
        if (r < 0) {
            long offset = op.kind == Op.ALLOCATE || op.kind == Op.ADVISE || op.kind == Op.SYNC_RANGE ? op.position : -1;
            op.fail(error(op, r, offset));
        } else {
            op.succeedVoid();
        }
    }

    private static int retry(java.util.function.IntSupplier call) {
        int r;
        do {
            r = call.getAsInt();
        } while (r == -Errno.EINTR);
        return r;
    }
}
