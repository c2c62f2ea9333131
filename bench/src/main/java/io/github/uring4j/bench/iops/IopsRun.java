package io.github.uring4j.bench.iops;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.FileOption;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.Sqe;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/** One {@code iops} run: the worker threads, the once-a-second line, and the summary. */
final class IopsRun {
    private static final int O_RDONLY = 0;
    private static final int O_RDWR = 2;
    private static final int O_DIRECT = 040000;
    private static final int O_CLOEXEC = 02000000;
    private static final int AT_FDCWD = -100;
    private static final String[] ERRNO = {"0", "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG",
        "ENOEXEC", "EBADF", "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV",
        "ENODEV", "ENOTDIR", "EISDIR", "EINVAL"};

    private final IopsConfig cfg;
    private volatile boolean stop;
    private volatile Throwable failure;

    IopsRun(IopsConfig cfg) {
        this.cfg = cfg;
    }

    /** Per-thread counters, published with release stores once per loop and summed by the reporting thread. */
    static final class Counters {
        final AtomicLong ios = new AtomicLong();
        final AtomicLong submitCalls = new AtomicLong();
        final AtomicLong submitted = new AtomicLong();
        final AtomicLong reapCalls = new AtomicLong();
        final AtomicLong reaped = new AtomicLong();
        final AtomicLong verified = new AtomicLong();

        /** Release stores of a worker's running totals (one writer per Counters). */
        void publish(long ios, long submitCalls, long submitted, long reapCalls, long reaped, long verified) {
            this.ios.lazySet(ios);
            this.submitCalls.lazySet(submitCalls);
            this.submitted.lazySet(submitted);
            this.reapCalls.lazySet(reapCalls);
            this.reaped.lazySet(reaped);
            this.verified.lazySet(verified);
        }
    }

    record Result(double seconds, long ios, long submitCalls, long submitted, long reapCalls, long reaped,
            long verified, List<Double> perSecond) {

        double iops() {
            return ios / seconds;
        }

        String summary(IopsConfig cfg) {
            double bw = iops() * cfg.blockSize() / (1 << 20);
            String calls = cfg.engine() != Engine.RING ? "" : String.format(Locale.ROOT, ", IOS/call=%d/%d",
                    submitCalls == 0 ? 0 : submitted / submitCalls, reapCalls == 0 ? 0 : reaped / reapCalls);
            return String.format(Locale.ROOT, "%s%nSummary: IOPS=%s, BW=%.0fMiB/s%s, ios=%d in %.1fs%s",
                    cfg.describe(), IopsCommand.si(iops()), bw, calls, ios, seconds,
                    cfg.verify() > 0 ? ", verified=" + verified + " blocks, 0 mismatches" : "");
        }

        String toJson(IopsConfig cfg) {
            StringBuilder ps = new StringBuilder();
            for (double d : perSecond) {
                ps.append(ps.isEmpty() ? "" : ",").append(String.format(Locale.ROOT, "%.0f", d));
            }
            return String.format(Locale.ROOT,
                    "{\"engine\":\"%s\",\"rw\":\"%s\",\"bs\":%d,\"depth\":%d,\"submit_batch\":%d,\"complete_batch\":%d,"
                            + "\"random\":%b,\"direct\":%b,\"fixed_buffers\":%b,\"registered_files\":%b,\"polled\":%b,"
                            + "\"threads\":%d,\"seconds\":%.3f,\"ios\":%d,\"iops\":%.1f,\"bw_mib_s\":%.2f,"
                            + "\"ios_per_submit\":%.2f,\"ios_per_reap\":%.2f,\"verified\":%d,\"per_second\":[%s]}",
                    cfg.engine().key, cfg.write() ? "write" : "read", cfg.blockSize(),
                    cfg.engine().queued() ? cfg.depth() : 1, cfg.submitBatch(), cfg.completeBatch(), cfg.random(), cfg.direct(),
                    cfg.fixedBuffers(), cfg.registeredFiles(), cfg.polled(), cfg.threads(), seconds, ios, iops(),
                    iops() * cfg.blockSize() / (1 << 20), submitCalls == 0 ? 0.0 : (double) submitted / submitCalls,
                    reapCalls == 0 ? 0.0 : (double) reaped / reapCalls, verified, ps);
        }
    }

    Result execute(PrintStream progress) throws Exception {
        List<Counters> counters = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < cfg.threads(); i++) {
            Counters c = new Counters();
            counters.add(c);
            int id = i;
            Runnable body = switch (cfg.engine()) {
                case SYNC -> () -> guard(() -> new SyncWorker(id, c).run());
                case AFC, HANDLER, FUTURE -> () -> guard(() -> new QueuedWorker(id, c).run());
                case RING -> () -> guard(() -> new RingWorker(id, c).run());
            };
            workers.add(Thread.ofPlatform().name("iops-" + i).daemon().unstarted(body));
        }
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        long end = start + cfg.runtimeSeconds() * 1_000_000_000L;
        long last = 0;
        long lastSubmitCalls = 0;
        long lastSubmitted = 0;
        long lastReapCalls = 0;
        long lastReaped = 0;
        long lastTime = start;
        List<Double> perSecond = new ArrayList<>();
        while (failure == null) {
            long now = System.nanoTime();
            if (now >= end) {
                break;
            }
            long next = Math.min(end, lastTime + 1_000_000_000L);
            Thread.sleep(Math.max(1, (next - now) / 1_000_000));
            now = System.nanoTime();
            if (now - lastTime < 900_000_000L && now < end) {
                continue;
            }
            long ios = sum(counters, 0);
            long sc = sum(counters, 1);
            long sub = sum(counters, 2);
            long rc = sum(counters, 3);
            long rep = sum(counters, 4);
            double iops = (ios - last) * 1e9 / (now - lastTime);
            perSecond.add(iops);
            if (progress != null && failure == null) {
                String calls = cfg.engine() != Engine.RING ? "" : String.format(Locale.ROOT, ", IOS/call=%d/%d",
                        sc == lastSubmitCalls ? 0 : (sub - lastSubmitted) / (sc - lastSubmitCalls),
                        rc == lastReapCalls ? 0 : (rep - lastReaped) / (rc - lastReapCalls));
                progress.printf(Locale.ROOT, "IOPS=%s, BW=%.0fMiB/s%s%n", IopsCommand.si(iops),
                        iops * cfg.blockSize() / (1 << 20), calls);
            }
            last = ios;
            lastSubmitCalls = sc;
            lastSubmitted = sub;
            lastReapCalls = rc;
            lastReaped = rep;
            lastTime = now;
        }
        // The summary covers the measured window: what workers do while they wind down is not counted.
        long[] atStop = new long[6];
        for (int k = 0; k < atStop.length; k++) {
            atStop[k] = sum(counters, k);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        stop = true;
        for (Thread t : workers) {
            t.join();
        }
        Throwable f = failure;
        if (f != null) {
            if (f instanceof UsageError u) {
                throw u;
            }
            if (f instanceof Exception e) {
                throw e;
            }
            throw new IllegalStateException(f);
        }
        return new Result(seconds, atStop[0], atStop[1], atStop[2], atStop[3], atStop[4], atStop[5], perSecond);
    }

    private static long sum(List<Counters> cs, int which) {
        long s = 0;
        for (Counters c : cs) {
            s += switch (which) {
                case 0 -> c.ios.get();
                case 1 -> c.submitCalls.get();
                case 2 -> c.submitted.get();
                case 3 -> c.reapCalls.get();
                case 4 -> c.reaped.get();
                default -> c.verified.get();
            };
        }
        return s;
    }

    private interface Body {
        void run() throws Exception;
    }

    private void guard(Body b) {
        try {
            b.run();
        } catch (Throwable t) {
            if (failure == null) {
                failure = t;
            }
            stop = true;
        }
    }

    static String errnoName(int errno) {
        int e = Math.abs(errno);
        return switch (e) {
            case 95 -> "EOPNOTSUPP";
            case 125 -> "ECANCELED";
            case 28 -> "ENOSPC";
            default -> e < ERRNO.length ? ERRNO[e] : "errno " + e;
        };
    }

    /** Picks the next (file, offset): xorshift64* for random, a cursor per file for sequential. */
    private final class Offsets {
        private long seed;
        private final long[] cursor;
        private int nextFile;

        Offsets(int worker) {
            seed = 0x9E3779B97F4A7C15L * (worker + 1) ^ System.nanoTime();
            cursor = new long[cfg.targets().size()];
            for (int i = 0; i < cursor.length; i++) {
                // Spread sequential workers over the file so they do not read the same blocks.
                cursor[i] = cfg.targets().get(i).blocks(cfg.blockSize()) * worker / cfg.threads();
            }
        }

        private long rnd() {
            long x = seed;
            x ^= x >>> 12;
            x ^= x << 25;
            x ^= x >>> 27;
            seed = x;
            return x * 0x2545F4914F6CDD1DL;
        }

        int file() {
            int n = cursor.length;
            if (n == 1) {
                return 0;
            }
            int f = nextFile;
            nextFile = f + 1 == n ? 0 : f + 1;
            return f;
        }

        long offset(int file) {
            long blocks = cfg.targets().get(file).blocks(cfg.blockSize());
            long b;
            if (cfg.random()) {
                b = Long.remainderUnsigned(rnd(), blocks);
            } else {
                b = cursor[file];
                cursor[file] = b + 1 == blocks ? 0 : b + 1;
            }
            return b * cfg.blockSize();
        }
    }

    /** Opens the targets through a small plain ring (an IOPOLL ring cannot run OPENAT) and returns their fds. */
    private int[] openAll() throws IOException {
        int flags = (cfg.write() ? O_RDWR : O_RDONLY) | O_CLOEXEC | (cfg.direct() ? O_DIRECT : 0);
        int[] fds = new int[cfg.targets().size()];
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            for (int i = 0; i < fds.length; i++) {
                MemorySegment path = arena.allocateFrom(cfg.targets().get(i).path().toString());
                ring.nextSqe().openat(AT_FDCWD, path, flags, 0).userData(i);
                ring.submitAndWait(1);
                int[] r = {0};
                ring.reap((ud, res, f) -> r[0] = res);
                if (r[0] < 0) {
                    for (int j = 0; j < i; j++) {
                        closeFd(fds[j]);
                    }
                    throw new UsageError("cannot open " + cfg.targets().get(i).path() + ": " + errnoName(r[0]));
                }
                fds[i] = r[0];
            }
        }
        return fds;
    }

    private static void closeFd(int fd) throws IOException {
        try (IoUring ring = IoUring.open(2)) {
            ring.nextSqe().close(fd);
            ring.submitAndWait(1);
            ring.reap((ud, res, f) -> { });
        }
    }

    /** One ring, {@code depth} buffers, reads (or writes) kept in flight until told to stop. */
    private final class RingWorker implements CqeHandler {
        private final Counters counters;
        private final Offsets offsets;
        private final int bs = cfg.blockSize();
        private final int[] free;
        private final long[] slotOffset;
        private int freeTop;
        private MemorySegment buffers;
        private int error;
        private long errorOffset = -1;
        private long mismatchAt = -1;
        private long verified;

        RingWorker(int id, Counters counters) {
            this.counters = counters;
            this.offsets = new Offsets(id);
            this.free = new int[cfg.depth()];
            this.slotOffset = new long[cfg.depth()];
        }

        void run() throws Exception {
            int[] fds = openAll();
            try (Arena arena = Arena.ofConfined();
                    IoUring ring = IoUring.open(IoUring.options().entries(cfg.depth()).flags(cfg.setupFlags()))) {
                FileTarget[] targets = new FileTarget[fds.length];
                if (cfg.registeredFiles()) {
                    ring.registerFiles(fds);
                    for (int i = 0; i < fds.length; i++) {
                        targets[i] = FileTarget.fixed(i);
                    }
                } else {
                    for (int i = 0; i < fds.length; i++) {
                        targets[i] = FileTarget.fd(fds[i]);
                    }
                }
                buffers = arena.allocate((long) bs * cfg.depth(), 4096);
                if (cfg.fixedBuffers()) {
                    ring.registerBuffers(buffers);
                }
                ring.registerRingFd();
                loop(ring, targets);
            } finally {
                for (int fd : fds) {
                    closeFd(fd);
                }
            }
        }

        private void loop(IoUring ring, FileTarget[] targets) throws UringException {
            int depth = cfg.depth();
            for (int i = 0; i < depth; i++) {
                free[i] = i;
            }
            freeTop = depth;
            long base = buffers.address();
            boolean fixed = cfg.fixedBuffers();
            boolean write = cfg.write();
            long ios = 0;
            long submitCalls = 0;
            long submitted = 0;
            long reapCalls = 0;
            long reaped = 0;
            while (!stop) {
                int n = Math.min(cfg.submitBatch(), freeTop);
                for (int k = 0; k < n; k++) {
                    int slot = free[--freeTop];
                    int file = offsets.file();
                    long off = offsets.offset(file);
                    slotOffset[slot] = off;
                    long addr = base + (long) slot * bs;
                    if (write) {
                        PatternFile.fill(buffers.asSlice((long) slot * bs, bs), off);
                    }
                    Sqe s = ring.nextSqe();
                    if (write) {
                        if (fixed) {
                            s.writeFixed(targets[file], addr, bs, off, 0);
                        } else {
                            s.write(targets[file], addr, bs, off);
                        }
                    } else if (fixed) {
                        s.readFixed(targets[file], addr, bs, off, 0);
                    } else {
                        s.read(targets[file], addr, bs, off);
                    }
                    s.userData(slot);
                }
                int inflight = depth - freeTop;
                int wait = freeTop == 0 ? Math.min(cfg.completeBatch(), inflight) : 0;
                submitted += ring.submitAndWait(wait);
                submitCalls++;
                int got = ring.reap(this);
                if (got > 0) {
                    reapCalls++;
                    reaped += got;
                    ios += got;
                }
                if (error != 0) {
                    throw failureFor(error, errorOffset);
                }
                if (mismatchAt >= 0) {
                    throw new IllegalStateException("verification failed: wrong data at file offset " + mismatchAt);
                }
                counters.publish(ios, submitCalls, submitted, reapCalls, reaped, verified);
            }
            // Drain what is still in flight so no buffer is freed under the kernel.
            while (freeTop < depth) {
                ring.submitAndWait(1);
                ring.reap(this);
            }
        }

        @Override
        public void handle(long userData, int res, int flags) {
            int slot = (int) userData;
            free[freeTop++] = slot;
            if (res != bs) {
                if (error == 0) {
                    error = res < 0 ? res : Integer.MIN_VALUE;
                    errorOffset = slotOffset[slot];
                }
                return;
            }
            if (cfg.verify() > 0) {
                long bad = PatternFile.check(buffers.asSlice((long) slot * bs, bs), slotOffset[slot], cfg.verify());
                if (bad >= 0 && mismatchAt < 0) {
                    mismatchAt = bad;
                }
                verified++;
            }
        }

        private RuntimeException failureFor(int res, long offset) {
            if (res == Integer.MIN_VALUE) {
                return new IllegalStateException("short " + (cfg.write() ? "write" : "read") + " at offset " + offset);
            }
            String op = cfg.write() ? "write" : "read";
            if (cfg.polled() && (res == -95 || res == -22)) {
                return new UsageError("polled I/O (-p1) is not supported here (" + errnoName(res)
                        + "): the device has no poll queues; run with -p0");
            }
            if (res == -22 && cfg.direct()) {
                return new UsageError(op + " failed with EINVAL at offset " + offset
                        + ": O_DIRECT needs block size, offset and buffer aligned to the device's logical block size");
            }
            return new IllegalStateException(op + " failed: " + errnoName(res) + " at offset " + offset);
        }
    }

    /** One open file of a completion-based engine: starts a transfer that reports to {@code handler}. */
    private interface AsyncTarget extends AutoCloseable {
        void read(ByteBuffer dst, long position, CompletionHandler<Integer, Void> handler);

        void write(ByteBuffer src, long position, CompletionHandler<Integer, Void> handler);

        @Override
        void close() throws IOException;
    }

    private AsyncTarget openAsync(Path path, IoExecutor executor) throws Exception {
        List<OpenOption> opts = new ArrayList<>();
        opts.add(StandardOpenOption.READ);
        if (cfg.write()) {
            opts.add(StandardOpenOption.WRITE);
        }
        switch (cfg.engine()) {
            case AFC -> {
                if (cfg.direct()) {
                    opts.add(io.github.uring4j.bench.common.DirectIo.option());
                }
                AsynchronousFileChannel ch = AsynchronousFileChannel.open(path, opts.toArray(OpenOption[]::new));
                return new AsyncTarget() {
                    public void read(ByteBuffer dst, long position, CompletionHandler<Integer, Void> h) {
                        ch.read(dst, position, null, h);
                    }

                    public void write(ByteBuffer src, long position, CompletionHandler<Integer, Void> h) {
                        ch.write(src, position, null, h);
                    }

                    public void close() throws IOException {
                        ch.close();
                    }
                };
            }
            case HANDLER, FUTURE -> {
                if (cfg.direct()) {
                    opts.add(FileOption.DIRECT);
                }
                if (cfg.registeredFiles()) {
                    opts.add(FileOption.REGISTERED); // -F1, as the ring engine registers its files
                }
                AsyncFile f = AsyncFile.open(executor, path, opts.toArray(OpenOption[]::new)).get();
                boolean futures = cfg.engine() == Engine.FUTURE;
                return new AsyncTarget() {
                    public void read(ByteBuffer dst, long position, CompletionHandler<Integer, Void> h) {
                        if (futures) {
                            f.read(dst, position).whenComplete((n, e) -> complete(h, n, e));
                        } else {
                            f.read(dst, position, null, h);
                        }
                    }

                    public void write(ByteBuffer src, long position, CompletionHandler<Integer, Void> h) {
                        if (futures) {
                            f.write(src, position).whenComplete((n, e) -> complete(h, n, e));
                        } else {
                            f.write(src, position, null, h);
                        }
                    }

                    public void close() throws IOException {
                        f.close();
                    }
                };
            }
            default -> throw new IllegalStateException(cfg.engine() + " is not completion-based");
        }
    }

    private static void complete(CompletionHandler<Integer, Void> h, Integer n, Throwable e) {
        if (e != null) {
            h.failed(e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e, null);
        } else {
            h.completed(n, null);
        }
    }

    /**
     * A completion-based engine (JDK {@code AsynchronousFileChannel}, uring4j {@code AsyncFile} with handlers or
     * futures): {@code -d} operations in flight, each completion verifying its block and issuing the next one for
     * its slot, so a slot's state is only ever touched by one completion at a time.
     */
    private final class QueuedWorker {
        /**
         * One writer per counter with handlers (every completion runs on the worker's one loop): a release store,
         * as the ring engine publishes; the JDK's channel and futures may complete on several threads.
         */
        private void count(java.util.concurrent.atomic.AtomicLong c) {
            if (cfg.engine() == Engine.HANDLER) {
                c.lazySet(c.get() + 1);
            } else {
                c.incrementAndGet();
            }
        }

        private final Counters counters;
        private final int id;

        QueuedWorker(int id, Counters counters) {
            this.id = id;
            this.counters = counters;
        }

        void run() throws Exception {
            int bs = cfg.blockSize();
            int depth = cfg.depth();
            List<AsyncTarget> targets = new ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
            IoExecutor executor = cfg.engine() == Engine.AFC ? null
                    : IoExecutor.builder().loops(1)
                            .entries(Math.min(32768, Math.max(64, Integer.highestOneBit(depth * 2 - 1) * 2)))
                            .name("iops-loop-" + id).build();
            try {
                for (IopsConfig.Target t : cfg.targets()) {
                    targets.add(openAsync(t.path(), executor));
                }
                // -B1: buffers registered with the ring (READ_FIXED/WRITE_FIXED), as the ring engine uses them (a ring
                // registers at most 16384 buffers; deeper queues use plain direct buffers).
                BufferPool pool = executor != null && cfg.fixedBuffers() && depth <= 16384
                        ? BufferPool.builder().bufferSize(bs).count(depth).register(executor).build() : null;
                final class Slot implements CompletionHandler<Integer, Void> {
                    final ByteBuffer buf = pool != null ? pool.acquireBuffer().limit(bs).slice()
                            : ByteBuffer.allocateDirect(bs + 4096).alignedSlice(4096).limit(bs).slice();
                    final MemorySegment seg = MemorySegment.ofBuffer(buf);
                    final Offsets offsets;
                    int file;
                    long off;

                    Slot(int n) {
                        offsets = new Offsets(id * 65_536 + n);
                    }

                    void next() {
                        if (stop) {
                            inFlight.decrementAndGet();
                            return;
                        }
                        file = offsets.file();
                        off = offsets.offset(file);
                        buf.clear();
                        if (cfg.write()) {
                            PatternFile.fill(seg, off);
                            targets.get(file).write(buf, off, this);
                        } else {
                            targets.get(file).read(buf, off, this);
                        }
                    }

                    @Override
                    public void completed(Integer n, Void unused) {
                        if (n < 0) {
                            failed(new java.io.EOFException("unexpected EOF at offset " + off), null);
                            return;
                        }
                        if (buf.hasRemaining()) { // finish a short transfer
                            long at = off + buf.position();
                            if (cfg.write()) {
                                targets.get(file).write(buf, at, this);
                            } else {
                                targets.get(file).read(buf, at, this);
                            }
                            return;
                        }
                        if (!cfg.write() && cfg.verify() > 0) {
                            long bad = PatternFile.check(seg, off, cfg.verify());
                            if (bad >= 0) {
                                failed(new IllegalStateException("verification failed: wrong data at file offset " + bad), null);
                                return;
                            }
                            count(counters.verified);
                        }
                        count(counters.ios);
                        next();
                    }

                    @Override
                    public void failed(Throwable exc, Void unused) {
                        if (failure == null) {
                            failure = exc;
                        }
                        stop = true;
                        inFlight.decrementAndGet();
                    }
                }
                inFlight.set(depth);
                List<Slot> slots = new ArrayList<>();
                for (int i = 0; i < depth; i++) {
                    Slot slot = new Slot(i);
                    slots.add(slot);
                    slot.next();
                }
                while (inFlight.get() > 0) {
                    Thread.sleep(1);
                }
                if (pool != null) {
                    for (Slot slot : slots) {
                        pool.release(slot.buf);
                    }
                    pool.close();
                }
            } finally {
                for (AsyncTarget t : targets) {
                    t.close();
                }
                if (executor != null) {
                    executor.close();
                }
            }
        }
    }

    /** JDK {@code FileChannel} positional reads or writes, one at a time (what {@code -S1} measures). */
    private final class SyncWorker {
        private final Counters counters;
        private final Offsets offsets;

        SyncWorker(int id, Counters counters) {
            this.counters = counters;
            this.offsets = new Offsets(id);
        }

        void run() throws IOException {
            int bs = cfg.blockSize();
            List<FileChannel> channels = new ArrayList<>();
            try {
                for (IopsConfig.Target t : cfg.targets()) {
                    List<OpenOption> opts = new ArrayList<>();
                    opts.add(StandardOpenOption.READ);
                    if (cfg.write()) {
                        opts.add(StandardOpenOption.WRITE);
                    }
                    if (cfg.direct()) {
                        opts.add(io.github.uring4j.bench.common.DirectIo.option());
                    }
                    channels.add(FileChannel.open(t.path(), opts.toArray(OpenOption[]::new)));
                }
                ByteBuffer buf = ByteBuffer.allocateDirect(bs + 4096).alignedSlice(4096).limit(bs).slice();
                MemorySegment seg = MemorySegment.ofBuffer(buf);
                long ios = 0;
                long verified = 0;
                while (!stop) {
                    for (int k = 0; k < 64; k++) {
                        int file = offsets.file();
                        long off = offsets.offset(file);
                        FileChannel ch = channels.get(file);
                        buf.clear();
                        if (cfg.write()) {
                            PatternFile.fill(seg, off);
                            while (buf.hasRemaining()) {
                                ch.write(buf, off + buf.position());
                            }
                        } else {
                            while (buf.hasRemaining()) {
                                if (ch.read(buf, off + buf.position()) < 0) {
                                    throw new IllegalStateException("unexpected EOF at offset " + off);
                                }
                            }
                            if (cfg.verify() > 0) {
                                long bad = PatternFile.check(seg, off, cfg.verify());
                                if (bad >= 0) {
                                    throw new IllegalStateException("verification failed: wrong data at file offset " + bad);
                                }
                                verified++;
                            }
                        }
                        ios++;
                    }
                    counters.publish(ios, ios, ios, ios, ios, verified);
                }
            } finally {
                for (FileChannel c : channels) {
                    c.close();
                }
            }
        }
    }
}
