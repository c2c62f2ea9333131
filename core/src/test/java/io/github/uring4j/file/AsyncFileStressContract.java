package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.pattern;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random hostile use of the async API, on every backend ({@link AsyncFileStressUringTest},
 * {@link AsyncFileStressThreadsTest}): per seed, platform and virtual threads issue random operations against a
 * few files on a few executors, with every kind of memory (heap, direct, read-only, global, automatic, shared and
 * confined arenas, {@link BufferPool} buffers), arenas closed and pool buffers released or pools closed while the
 * operation is in flight, cancels, timeouts, closes of files and executors under load, handlers that throw, block,
 * close the file or issue more work, futures joined on a loop thread, a future executor shut down midway, and
 * absurd arguments.
 *
 * <p>Every operation is checked: it completes within a bound (no hang), with a result consistent with the file's
 * model or with an exception the documentation names for what the test did to it, whose message says what
 * happened. Each worker thread owns a region of the "model" file that no one else writes: its writes there are
 * awaited and applied to a byte model, its reads there must match it, and the file must match the model at the end.
 * Everything else (the "chaos" files, others' regions) races by design, so only the bounds of a result are checked
 * there. At the end every executor closes within a bound, every pool frees its memory, and no descriptor under the
 * seed's directory is left open.
 *
 * <p>{@code -During4j.stress.seeds=N} runs N seeds (default {@value #DEFAULT_SEEDS}), starting at
 * {@code -During4j.stress.base=B} (default 1); {@code -During4j.stress.seed=S} replays one. A failure names its
 * seed. Thread scheduling is not replayed, only each thread's sequence of operations.
 */
@Timeout(value = 1800, unit = TimeUnit.SECONDS)
abstract class AsyncFileStressContract {
    static final int DEFAULT_SEEDS = 4;
    /** Bytes of the model file each worker owns. */
    static final int REGION = 16 * 1024;
    static final int WORKERS = 4;
    static final int CHAOS_SIZE = 48 * 1024;
    /** Bound on any one operation: far beyond what any takes here; reaching it is a hang. */
    static final long BOUND_SECONDS = 30;

    @TempDir
    Path dir;

    abstract Backend backend();

    @Test
    void randomHostileUse() throws Exception {
        Long one = Long.getLong("uring4j.stress.seed");
        int seeds = Integer.getInteger("uring4j.stress.seeds", DEFAULT_SEEDS);
        long base = Long.getLong("uring4j.stress.base", 1L);
        List<Long> run = new ArrayList<>();
        if (one != null) {
            run.add(one);
        } else {
            for (int i = 0; i < seeds; i++) {
                run.add(base + i);
            }
        }
        for (long seed : run) {
            Path sdir = Files.createDirectory(dir.resolve("seed" + seed));
            try {
                new Run(seed, sdir).run();
            } catch (Throwable t) {
                throw new AssertionError("seed " + seed + " on " + backend() + " failed (replay: -During4j.stress.seed="
                        + seed + "): " + t, t);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ outcomes

    /** What an operation may legitimately end with besides its result, given what the test did to it. */
    static final int CLOSE = 1; // its file or executor may be closed meanwhile
    static final int CANCEL = 2; // the test cancels it
    static final int TIMEOUT = 4; // it has a timeout
    static final int FREED = 8; // its memory is freed under it (arena closed, pool closed/released)
    static final int EOF = 16; // readFully/writeFully past the end
    static final int ERRNO = 32; // the kernel may refuse it (absurd offsets, a FIFO, a directory)
    static final int NOFILE = 64; // readFile of a missing path
    static final int LOOPJOIN = 128; // joins a future on a loop thread

    /** Null when {@code t} is an acceptable end for an operation allowed {@code allowed}; else what is wrong. */
    static String judge(String what, Throwable t, int allowed) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        String msg = t.getMessage();
        if (t instanceof CancellationException) {
            return (allowed & CANCEL) != 0 ? null : what + ": cancelled without a cancel: " + t;
        }
        if (t instanceof InterruptedByTimeoutException) {
            return (allowed & TIMEOUT) != 0 ? null : what + ": timed out without a timeout: " + t;
        }
        if (t instanceof ClosedChannelException) {
            return (allowed & CLOSE) != 0 ? null : what + ": closed, but nothing closed it: " + t;
        }
        if (t instanceof IllegalStateException) {
            if ((allowed & FREED) != 0 && msg != null && (msg.contains("freed") || msg.contains("was changed"))) {
                return null; // freed under it; or a pool buffer released under it and lent to another operation
            }
            if ((allowed & LOOPJOIN) != 0 && msg != null && msg.contains("event loop")) {
                return null;
            }
            return what + ": unexpected " + t;
        }
        if (t instanceof EOFException) {
            return (allowed & EOF) != 0 && msg != null && msg.contains("end of file") ? null
                    : what + ": unexpected or unhelpful " + t;
        }
        if (t instanceof FileIOException e) {
            if ((allowed & ERRNO) == 0) {
                return what + ": unexpected " + t;
            }
            if (msg == null || !msg.contains(e.errnoName()) || !msg.contains(e.operation()) || e.path() == null
                    || !msg.contains(e.path())) {
                return what + ": the message does not say errno, operation and path: " + msg;
            }
            return null;
        }
        if (t instanceof NoSuchFileException) {
            return (allowed & NOFILE) != 0 ? null : what + ": unexpected " + t;
        }
        if (t instanceof FileSystemException && (allowed & ERRNO) != 0 && msg != null && !msg.isBlank()) {
            return null; // EISDIR of a directory opened by readFile
        }
        return what + ": unexpected " + t;
    }

    /** Null when a synchronous throw is one the documentation names for these arguments. */
    static String judgeThrown(String what, Throwable t, boolean badArgs, boolean mayBeClosed) {
        String msg = t.getMessage();
        if (t instanceof IllegalArgumentException) {
            return badArgs && msg != null && !msg.isBlank() ? null : what + ": unexpected " + t;
        }
        if (t instanceof IllegalStateException) {
            // closed executor, closed pool, freed memory
            return (mayBeClosed || badArgs) && msg != null && (msg.contains("closed") || msg.contains("freed")) ? null
                    : what + ": unexpected " + t;
        }
        if (t instanceof NonReadableChannelException || t instanceof NonWritableChannelException) {
            return badArgs ? null : what + ": unexpected " + t;
        }
        return what + ": unexpected " + t;
    }

    // ------------------------------------------------------------------------------------------ one seed

    final class Run {
        final long seed;
        final Path sdir;
        final Path model;
        final Path[] chaosPaths;
        final Path fifo;
        final Path missing;
        final byte[] modelBytes = new byte[WORKERS * REGION];
        final Queue<String> problems = new ConcurrentLinkedQueue<>();
        final Queue<Pending> pending = new ConcurrentLinkedQueue<>();
        /** Run at the end, after every operation ended: closes shared arenas, returns pool buffers. */
        final Queue<Runnable> cleanups = new ConcurrentLinkedQueue<>();
        final List<IoExecutor> executors = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<BufferPool> pools = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<AsyncFile> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
        final AtomicInteger fifoBytes = new AtomicInteger();
        final AtomicInteger executorCloses = new AtomicInteger();
        final ExecutorService completers;
        final boolean completersMayStop;
        IoExecutor stable;
        volatile IoExecutor chaos;
        AsyncFile modelFile;
        /** The chaos files and the FIFO (last), reopened when closed. */
        final AtomicReferenceArray<AsyncFile> chaosFiles;
        final BufferPool[] poolSlots = new BufferPool[2];
        /** Buffers released under their operations come from here only. */
        BufferPool scratchPool;
        /** Buffers lent and returned properly, from a pool closed only at the end. */
        BufferPool modelPool;

        Run(long seed, Path sdir) throws Exception {
            this.seed = seed;
            this.sdir = sdir;
            Random r = new Random(seed);
            model = sdir.resolve("model");
            byte[] init = pattern(modelBytes.length, (int) seed);
            System.arraycopy(init, 0, modelBytes, 0, init.length);
            Files.write(model, init);
            chaosPaths = new Path[2];
            for (int i = 0; i < chaosPaths.length; i++) {
                chaosPaths[i] = Files.write(sdir.resolve("chaos" + i), pattern(CHAOS_SIZE, i));
            }
            fifo = TestFiles.fifo(sdir, "fifo");
            missing = sdir.resolve("missing");
            chaosFiles = new AtomicReferenceArray<>(chaosPaths.length + 1);
            completers = Executors.newFixedThreadPool(2, t -> {
                Thread th = new Thread(t, "stress-completer");
                th.setDaemon(true);
                return th;
            });
            completersMayStop = r.nextBoolean();
            stable = executor(r, r.nextBoolean() ? completers : null);
            chaos = executor(r, r.nextInt(3) == 0 ? null : completers);
        }

        IoExecutor executor(Random r, java.util.concurrent.Executor completer) throws IOException {
            IoExecutor.Builder b = IoExecutor.builder().backend(backend()).loops(1 + r.nextInt(2))
                    .threads(2 + r.nextInt(3)).inFlightLimit(r.nextBoolean() ? 4 + r.nextInt(8) : 256)
                    .futureExecutor(completer);
            if (r.nextInt(4) == 0) {
                b.inlineWriteMax(0);
            }
            IoExecutor io = b.build();
            executors.add(io);
            return io;
        }

        void run() throws Exception {
            Random r = new Random(seed * 7919);
            modelFile = TestFiles.get(AsyncFile.open(stable, model, StandardOpenOption.READ, StandardOpenOption.WRITE));
            opened.add(modelFile);
            for (int i = 0; i < chaosFiles.length(); i++) {
                chaosFiles.set(i, openChaos(chaos, i));
            }
            poolSlots[0] = BufferPool.create(4096, 8);
            poolSlots[1] = r.nextBoolean() ? BufferPool.builder().bufferSize(8192).count(8).register(stable).build()
                    : BufferPool.create(8192, 8);
            pools.add(poolSlots[0]);
            pools.add(poolSlots[1]);
            scratchPool = BufferPool.create(8192, 4);
            pools.add(scratchPool);
            modelPool = r.nextBoolean() ? BufferPool.builder().bufferSize(8192).count(16).register(stable).build()
                    : BufferPool.create(8192, 16);
            pools.add(modelPool);

            int ops = Integer.getInteger("uring4j.stress.ops", 120);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                Worker worker = new Worker(w, new Random(seed * 1_000_003L + w), ops);
                Thread t = (w % 2 == 0 ? Thread.ofPlatform() : Thread.ofVirtual()).name("stress-" + w).unstarted(worker);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS * 4);
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (t.isAlive()) {
                    throw new AssertionError("worker " + t.getName() + " did not finish (a hang): "
                            + Arrays.toString(t.getStackTrace()) + "\n" + describe());
                }
            }
            awaitPending();
            finish();
            if (!problems.isEmpty()) {
                throw new AssertionError(problems.size() + " problem(s):\n  " + String.join("\n  ", problems));
            }
        }

        private final java.util.concurrent.atomic.AtomicBoolean dumped = new java.util.concurrent.atomic.AtomicBoolean();

        /** The executors' state, and the first time the stacks of the threads involved (to diagnose a hang). */
        String describe() {
            StringBuilder sb = new StringBuilder();
            for (IoExecutor io : executors) {
                sb.append(io).append(": ").append(io.backend.describe()).append('\n');
            }
            if (dumped.compareAndSet(false, true)) {
                for (var e : Thread.getAllStackTraces().entrySet()) {
                    String n = e.getKey().getName();
                    if (n.startsWith("uring4j") || n.startsWith("stress")) {
                        sb.append("  thread ").append(n).append(' ').append(e.getKey().getState()).append('\n');
                        for (StackTraceElement f : e.getValue()) {
                            sb.append("      at ").append(f).append('\n');
                        }
                    }
                }
            }
            return sb.toString();
        }

        AsyncFile openChaos(IoExecutor io, int i) throws Exception {
            Path p = i < chaosPaths.length ? chaosPaths[i] : fifo;
            AsyncFile f;
            try {
                f = TestFiles.get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE));
            } catch (TimeoutException e) {
                throw new AssertionError("an open of " + p.getFileName() + " did not complete within 60 s\n" + describe());
            }
            opened.add(f);
            return f;
        }

        /** Waits for every operation left to complete, each within the bound, and judges it. */
        void awaitPending() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            for (Pending p : pending) {
                // A FIFO read no one feeds waits legitimately, and so may a write queued behind reads that hold every
                // call the file may run at once (IoExecutor.Builder.inFlightLimit, .threads): closing the files
                // (below) ends them, within the bound.
                if (p.fifo) {
                    continue;
                }
                p.await(deadline);
            }
        }

        void finish() throws Exception {
            if (completersMayStop) {
                completers.shutdownNow(); // futures still complete (on the loop)
            }
            // Close every file, each within the bound.
            for (AsyncFile f : opened) {
                try {
                    f.closeAsync().get(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    problems.add("close of " + f + " did not complete: " + describe());
                } catch (ExecutionException e) {
                    problems.add("close of " + f + " failed: " + e.getCause());
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            for (Pending p : pending) {
                p.await(deadline);
            }
            // Every executor closes within the bound (the threads backend lets a blocked FIFO read go after 2 s).
            for (IoExecutor io : executors) {
                Thread closer = Thread.ofPlatform().daemon().start(io::close);
                closer.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
                if (closer.isAlive()) {
                    problems.add("close of " + io + " did not return: " + Arrays.toString(closer.getStackTrace()));
                }
                if (io.inFlight() != 0 && backend() == Backend.IO_URING) {
                    problems.add(io + " closed with " + io.inFlight() + " operation(s) in flight");
                }
            }
            completers.shutdownNow();
            for (Runnable c : cleanups) {
                c.run();
            }
            for (BufferPool p : pools) {
                p.close();
            }
            // The model: every worker's region as its awaited writes left it.
            byte[] disk = Files.readAllBytes(model);
            if (disk.length != modelBytes.length) {
                problems.add("model file is " + disk.length + " bytes, not " + modelBytes.length);
            } else {
                for (int i = 0; i < disk.length; i++) {
                    if (disk[i] != modelBytes[i]) {
                        problems.add("model file differs first at byte " + i + " (region " + i / REGION + "): "
                                + disk[i] + " on disk, " + modelBytes[i] + " expected");
                        break;
                    }
                }
            }
            // Nothing leaks: descriptors (a blocked FIFO read of the threads backend is let go by a writer), memory.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            List<String> fds = fdsUnder(sdir);
            while (!fds.isEmpty() && System.nanoTime() - end < 0) {
                try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    w.write(ByteBuffer.wrap(new byte[64]));
                }
                System.gc();
                Thread.sleep(10);
                fds = fdsUnder(sdir);
            }
            if (!fds.isEmpty()) {
                problems.add("descriptors left open: " + fds);
            }
            for (BufferPool p : pools) {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
                while (!p.isFreed() && System.nanoTime() - until < 0) {
                    Thread.sleep(5);
                }
                if (!p.isFreed()) {
                    problems.add("a BufferPool closed with every buffer returned kept its memory");
                }
            }
            // handlers may have issued more work while everything closed
            long last = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            for (Pending p : pending) {
                p.await(last);
            }
        }

        // -------------------------------------------------------------------------------------- bookkeeping

        /** An operation whose end is judged later. */
        final class Pending {
            final String what;
            final CompletableFuture<?> future;
            final int allowed;
            final Consumer<Object> onValue;
            final boolean fifo;
            volatile boolean judged;

            Pending(String what, CompletableFuture<?> future, int allowed, Consumer<Object> onValue, boolean fifo) {
                this.what = what;
                this.future = future;
                this.allowed = allowed;
                this.onValue = onValue;
                this.fifo = fifo;
            }

            void await(long deadline) {
                if (judged) {
                    return;
                }
                judged = true;
                Object v;
                try {
                    v = future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    problems.add(what + ": did not complete within " + BOUND_SECONDS + " s (a hang)\n" + describe());
                    return;
                } catch (CancellationException e) {
                    String p = judge(what, e, allowed);
                    if (p != null) {
                        problems.add(p);
                    }
                    return;
                } catch (ExecutionException e) {
                    String p = judge(what, e.getCause(), allowed);
                    if (p != null) {
                        problems.add(p);
                    }
                    return;
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                if (onValue != null) {
                    try {
                        onValue.accept(v);
                    } catch (AssertionError | RuntimeException e) {
                        problems.add(what + ": " + e.getMessage());
                    }
                }
            }
        }

        /**
         * Arguments that should have been refused were taken: acceptable only when the file was closed, which the
         * call may report first (through the result), as the JDK's channels do.
         */
        void refusedOrClosed(String what, CompletableFuture<?> f) {
            pending.add(new Pending(what + " (arguments it should refuse)", f, CLOSE, v -> {
                throw new AssertionError("accepted arguments it should refuse, and succeeded with " + v);
            }, false));
        }

        void expect(String what, CompletableFuture<?> f, int allowed, Consumer<Object> onValue) {
            pending.add(new Pending(what, f, allowed, onValue, false));
        }

        /** A handler that completes {@code f} exactly once, counting any second call as a problem. */
        <V> CompletionHandler<V, String> handlerFor(CompletableFuture<Object> f, Consumer<Object> alsoOnEnd) {
            AtomicInteger calls = new AtomicInteger();
            return new CompletionHandler<>() {
                @Override
                public void completed(V result, String what) {
                    end(what, result, null);
                }

                @Override
                public void failed(Throwable exc, String what) {
                    end(what, null, exc);
                }

                private void end(String what, Object v, Throwable t) {
                    if (calls.incrementAndGet() != 1) {
                        problems.add(what + ": handler called " + calls.get() + " times (" + v + ", " + t + ")");
                        return;
                    }
                    if (t != null) {
                        f.completeExceptionally(t);
                    } else {
                        f.complete(v);
                    }
                    if (alsoOnEnd != null) {
                        alsoOnEnd.accept(v);
                    }
                }
            };
        }

        // -------------------------------------------------------------------------------------- memory

        /** Memory for one transfer: the buffer or segment, what to do right after the call, and at the end. */
        final class Mem {
            String kind;
            ByteBuffer buffer;
            MemorySegment segment;
            /** The caller frees or gives back the memory right after the call (the operation may fail: FREED). */
            boolean freedEarly;
            /** Memory that may not be filled or is already gone: the call itself refuses it. */
            boolean refused;
            Runnable after = () -> { };

            Mem(String kind) {
                this.kind = kind;
            }

            int length() {
                return buffer != null ? buffer.remaining() : (int) segment.byteSize();
            }

            /** The bytes the memory holds now (for a read's check): from the buffer's start position. */
            byte[] bytes(int from, int n) {
                byte[] out = new byte[n];
                if (buffer != null) {
                    buffer.duplicate().position(from).get(out, 0, n);
                } else {
                    MemorySegment.copy(segment, java.lang.foreign.ValueLayout.JAVA_BYTE, from, out, 0, n);
                }
                return out;
            }
        }

        /**
         * Memory of {@code len} bytes holding {@code data} (a write) or to fill (a read). {@code hostile}: may be
         * memory the operation cannot have (freed, confined for a read, read-only for a read) or memory freed while
         * the operation runs.
         */
        Mem memory(Random r, int len, byte[] data, boolean read, boolean hostile) {
            int choice = r.nextInt(hostile ? 17 : 10);
            Mem m;
            switch (choice) {
                case 0 -> {
                    m = new Mem("heap");
                    m.buffer = ByteBuffer.allocate(len + 8).position(3).limit(3 + len);
                }
                case 1 -> {
                    m = new Mem("direct");
                    m.buffer = ByteBuffer.allocateDirect(len + 8).position(5).limit(5 + len);
                }
                case 2 -> {
                    m = new Mem("global");
                    m.segment = Arena.global().allocate(len);
                }
                case 3 -> {
                    m = new Mem("auto");
                    m.segment = Arena.ofAuto().allocate(len, 1);
                }
                case 4 -> {
                    m = new Mem("shared");
                    Arena a = Arena.ofShared();
                    m.segment = a.allocate(len);
                    cleanups.add(a::close);
                }
                case 5 -> {
                    m = new Mem("shared-buffer");
                    Arena a = Arena.ofShared();
                    m.buffer = a.allocate(len).asByteBuffer();
                    cleanups.add(a::close);
                }
                case 6 -> {
                    m = new Mem("heap-segment");
                    m.segment = MemorySegment.ofArray(new byte[len]);
                }
                case 7, 8 -> {
                    m = poolMemory(r, len, false);
                    if (m == null) {
                        m = new Mem("direct");
                        m.buffer = ByteBuffer.allocateDirect(len);
                    }
                }
                case 9 -> {
                    if (read) {
                        m = new Mem("auto-buffer");
                        m.buffer = Arena.ofAuto().allocate(len).asByteBuffer();
                    } else {
                        // a confined arena written from and closed at once: the write copied it at the call
                        m = new Mem("confined");
                        Arena a = Arena.ofConfined();
                        m.segment = a.allocate(len);
                        m.after = a::close;
                    }
                }
                case 10 -> {
                    m = new Mem("shared-closed-under");
                    Arena a = Arena.ofShared();
                    m.segment = a.allocate(len);
                    m.after = a::close;
                    m.freedEarly = true;
                }
                case 11 -> {
                    m = new Mem("shared-buffer-closed-under");
                    Arena a = Arena.ofShared();
                    m.buffer = a.allocate(len).asByteBuffer();
                    m.after = a::close;
                    m.freedEarly = true;
                }
                case 12 -> {
                    m = new Mem("closed-arena");
                    Arena a = Arena.ofShared();
                    m.segment = a.allocate(len);
                    a.close();
                    m.refused = true;
                }
                case 13 -> {
                    m = new Mem("confined");
                    Arena a = Arena.ofConfined();
                    m.segment = a.allocate(len);
                    m.after = a::close;
                    m.refused = read;
                }
                case 14 -> {
                    m = new Mem("read-only");
                    m.buffer = (r.nextBoolean() ? ByteBuffer.allocate(len) : ByteBuffer.allocateDirect(len))
                            .asReadOnlyBuffer();
                    m.refused = read;
                }
                default -> {
                    m = poolMemory(r, len, true);
                    if (m == null) {
                        m = new Mem("direct");
                        m.buffer = ByteBuffer.allocateDirect(len);
                    }
                }
            }
            if (data != null && !m.refused && !m.kind.equals("read-only")) {
                if (m.buffer != null) {
                    m.buffer.duplicate().put(data, 0, len);
                } else {
                    MemorySegment.copy(data, 0, m.segment, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, len);
                }
            } else if (data != null && m.kind.equals("read-only")) {
                // a read-only buffer holding the data: writes from it are fine
                ByteBuffer b = ByteBuffer.allocateDirect(len);
                b.put(data, 0, len).flip();
                m.buffer = b.asReadOnlyBuffer();
            }
            return m;
        }

        /** A pool buffer; {@code hostile}: released, or its pool closed, right after the call. Null when none. */
        Mem poolMemory(Random r, int len, boolean hostile) {
            int slot = r.nextInt(poolSlots.length);
            // A buffer released early may be lent again while the kernel still fills it: that happens only in the
            // scratch pool, which the model's operations never use (their bytes would be the stray read's).
            boolean early = hostile && r.nextInt(3) != 0;
            BufferPool pool;
            synchronized (poolSlots) {
                // a pool closed under a lent buffer refuses it in new operations (documented): the model's operations
                // use a pool nobody closes before the end
                pool = early ? scratchPool : hostile ? poolSlots[slot] : modelPool;
            }
            if (len > pool.bufferSize()) {
                return null;
            }
            boolean asBuffer = r.nextBoolean();
            MemorySegment seg;
            ByteBuffer buf;
            try {
                seg = asBuffer ? null : pool.acquire();
                buf = asBuffer ? pool.acquireBuffer() : null;
            } catch (IllegalStateException closed) {
                if (!closed.getMessage().contains("closed")) {
                    problems.add("acquire from a closed pool: " + closed);
                }
                return null;
            }
            if (seg == null && buf == null) {
                return null;
            }
            Mem m = new Mem(hostile ? "pool-returned-under" : "pool");
            if (asBuffer) {
                m.buffer = buf.limit(len);
            } else {
                m.segment = seg.asSlice(0, len);
            }
            Runnable give = () -> {
                if (asBuffer) {
                    pool.release(buf);
                } else {
                    pool.release(seg);
                }
            };
            if (!hostile) {
                cleanups.add(give);
            } else if (!early) {
                // the pool closed under the operation (and then the buffer returned): the memory outlives both
                m.kind = "pool-closed-under";
                m.after = () -> {
                    synchronized (poolSlots) {
                        if (poolSlots[slot] == pool) {
                            BufferPool fresh = BufferPool.create(4096 * (slot + 1), 8);
                            pools.add(fresh);
                            poolSlots[slot] = fresh;
                        }
                    }
                    pool.close();
                    give.run();
                };
                m.freedEarly = true;
            } else {
                m.after = give; // released early: the caller's mistake, the operation still ends
                m.freedEarly = true;
            }
            return m;
        }

        // -------------------------------------------------------------------------------------- workers

        final class Worker implements Runnable {
            final int id;
            final Random r;
            final int ops;
            final int base;

            Worker(int id, Random r, int ops) {
                this.id = id;
                this.r = r;
                this.ops = ops;
                this.base = id * REGION;
            }

            @Override
            public void run() {
                for (int i = 0; i < ops; i++) {
                    int op = r.nextInt(100);
                    String what = "w" + id + "#" + i;
                    try {
                        if (op < 22) {
                            modelWrites(what);
                        } else if (op < 36) {
                            modelRead(what);
                        } else if (op < 40) {
                            modelCopy(what);
                        } else if (op < 55) {
                            chaosTransfer(what, true);
                        } else if (op < 67) {
                            chaosTransfer(what, false);
                        } else if (op < 75) {
                            metadata(what);
                        } else if (op < 78) {
                            readFile(what);
                        } else if (op < 82) {
                            transfer(what);
                        } else if (op < 88) {
                            hostileHandler(what);
                        } else if (op < 91) {
                            fifoOp(what);
                        } else if (op < 95) {
                            closeOrDropFile(what);
                        } else if (op < 97) {
                            joinOnLoop(what);
                        } else if (op < 98) {
                            closeExecutor(what);
                        } else if (op < 99) {
                            if (completersMayStop) {
                                completers.shutdownNow();
                            }
                        } else {
                            closePool(what);
                        }
                    } catch (AssertionError | Exception e) {
                        problems.add(what + ": " + e);
                    }
                }
            }

            int pos(int size) {
                return switch (r.nextInt(10)) {
                    case 0 -> size; // at the end
                    case 1 -> size + r.nextInt(4096); // past it
                    default -> r.nextInt(size);
                };
            }

            // ---------------------------------------------------------------------------------- the model

            /** 1-3 concurrent writes to disjoint ranges of this worker's region, awaited and applied to the model. */
            void modelWrites(String what) throws Exception {
                int k = 1 + r.nextInt(3);
                int slot = REGION / k;
                List<CompletableFuture<?>> fs = new ArrayList<>();
                List<int[]> ranges = new ArrayList<>();
                List<byte[]> datas = new ArrayList<>();
                List<Mem> mems = new ArrayList<>();
                List<String> methods = new ArrayList<>();
                for (int j = 0; j < k; j++) {
                    int start = base + j * slot + r.nextInt(slot / 2);
                    int len = 1 + r.nextInt(base + (j + 1) * slot - start);
                    byte[] data = new byte[len];
                    r.nextBytes(data);
                    Mem m = memory(r, len, data, false, false);
                    int method = r.nextInt(m.buffer != null && m.buffer.isDirect() && !m.buffer.isReadOnly()
                            && !m.kind.startsWith("shared") ? 7 : 6);
                    int at0 = m.buffer != null ? m.buffer.position() : 0;
                    CompletableFuture<?> f = switch (method) {
                        case 0 -> m.buffer != null ? modelFile.write(m.buffer, start) : modelFile.write(m.segment, start);
                        case 1 -> m.buffer != null ? modelFile.writeFully(m.buffer, start)
                                : modelFile.writeFully(m.segment, start);
                        case 2 -> m.buffer != null ? modelFile.writeAndSync(m.buffer, start)
                                : modelFile.writeAndSync(m.segment, start);
                        case 3 -> m.buffer != null ? modelFile.withTimeout(Duration.ofSeconds(BOUND_SECONDS)).write(m.buffer, start)
                                : modelFile.withTimeout(Duration.ofSeconds(BOUND_SECONDS)).write(m.segment, start);
                        case 4, 5 -> {
                            CompletableFuture<Object> h = new CompletableFuture<>();
                            CompletionHandler<Integer, String> hh = handlerFor(h, null);
                            if (method == 4) {
                                if (m.buffer != null) {
                                    modelFile.writeFully(m.buffer, start, what, hh);
                                } else {
                                    modelFile.writeFully(m.segment, start, what, hh);
                                }
                            } else if (m.buffer != null) {
                                modelFile.write(m.buffer, start, what, hh);
                            } else {
                                modelFile.write(m.segment, start, what, hh);
                            }
                            yield h;
                        }
                        default -> {
                            // gathering write from up to four pieces of the one direct buffer
                            ByteBuffer[] parts = split(m.buffer);
                            yield modelFile.write(parts, start).thenApply(Long::intValue);
                        }
                    };
                    m.after.run();
                    fs.add(f);
                    ranges.add(new int[] {start, len, at0});
                    datas.add(data);
                    mems.add(m);
                    methods.add(m.kind + "/" + method);
                }
                for (int j = 0; j < k; j++) {
                    String w = what + " model write " + methods.get(j) + " at " + ranges.get(j)[0] + " of "
                            + ranges.get(j)[1];
                    int n = ((Number) bounded(w, fs.get(j))).intValue();
                    int start = ranges.get(j)[0];
                    int len = ranges.get(j)[1];
                    if (n <= 0 || n > len) {
                        throw new AssertionError(w + ": wrote " + n);
                    }
                    System.arraycopy(datas.get(j), 0, modelBytes, start, n);
                    Mem m = mems.get(j);
                    if (m.buffer != null && !methods.get(j).endsWith("/6") && m.buffer.position() != ranges.get(j)[2] + n) {
                        throw new AssertionError(w + ": buffer position " + m.buffer.position() + " after " + n
                                + " bytes from " + ranges.get(j)[2]);
                    }
                }
            }

            ByteBuffer[] split(ByteBuffer b) {
                int parts = 1 + r.nextInt(Math.min(4, b.remaining()));
                ByteBuffer[] out = new ByteBuffer[parts];
                int p = b.position();
                int end = b.limit();
                for (int i = 0; i < parts; i++) {
                    int next = i == parts - 1 ? end : p + (end - p) / (parts - i);
                    out[i] = b.duplicate().position(p).limit(next);
                    p = next;
                }
                return out;
            }

            /** A read of this worker's region: must hold what the model says. */
            void modelRead(String what) throws Exception {
                int start = base + r.nextInt(REGION);
                int len = 1 + r.nextInt(base + REGION - start);
                int method = r.nextInt(7);
                if (method == 6) {
                    // the whole file, by readFile: only this worker's region is known
                    Mem m = memory(r, modelBytes.length, null, true, false);
                    int at0 = m.buffer != null ? m.buffer.position() : 0;
                    CompletableFuture<Integer> f = m.buffer != null ? AsyncFile.readFile(stable, model, m.buffer)
                            : AsyncFile.readFile(stable, model, m.segment);
                    m.after.run();
                    int n = bounded(what + " readFile " + m.kind, f);
                    if (n != modelBytes.length) {
                        throw new AssertionError(what + " readFile: " + n + " bytes of " + modelBytes.length);
                    }
                    compare(what + " readFile " + m.kind, m.bytes(at0 + base, REGION), base);
                    return;
                }
                Mem m = memory(r, len, null, true, false);
                int at0 = m.buffer != null ? m.buffer.position() : 0;
                CompletableFuture<?> f = switch (method) {
                    case 0 -> m.buffer != null ? modelFile.read(m.buffer, start) : modelFile.read(m.segment, start);
                    case 1 -> m.buffer != null ? modelFile.readFully(m.buffer, start)
                            : modelFile.readFully(m.segment, start);
                    case 2 -> m.buffer != null ? modelFile.withTimeout(Duration.ofSeconds(BOUND_SECONDS)).read(m.buffer, start)
                            : modelFile.withTimeout(Duration.ofSeconds(BOUND_SECONDS)).read(m.segment, start);
                    case 3, 4 -> {
                        CompletableFuture<Object> h = new CompletableFuture<>();
                        CompletionHandler<Integer, String> hh = handlerFor(h, null);
                        if (m.buffer != null) {
                            if (method == 3) {
                                modelFile.readFully(m.buffer, start, what, hh);
                            } else {
                                modelFile.read(m.buffer, start, what, hh);
                            }
                        } else if (method == 3) {
                            modelFile.readFully(m.segment, start, what, hh);
                        } else {
                            modelFile.read(m.segment, start, what, hh);
                        }
                        yield h;
                    }
                    default -> {
                        ByteBuffer b = ByteBuffer.allocateDirect(len);
                        m = new Mem("vector");
                        m.buffer = b;
                        at0 = 0;
                        yield modelFile.read(split(b), start).thenApply(Long::intValue);
                    }
                };
                m.after.run();
                String w = what + " model read " + m.kind + "/" + method + " at " + start + " of " + len;
                int n = ((Number) bounded(w, f)).intValue();
                if (n <= 0 || n > len) {
                    throw new AssertionError(w + ": read " + n);
                }
                compare(w, m.bytes(at0, n), start);
            }

            void compare(String w, byte[] got, int start) {
                for (int i = 0; i < got.length; i++) {
                    if (got[i] != modelBytes[start + i]) {
                        throw new AssertionError(w + ": byte " + (start + i) + " is " + got[i] + ", the model says "
                                + modelBytes[start + i]);
                    }
                }
            }

            /** transferTo from one half of this worker's region to the other, in the model file itself. */
            void modelCopy(String what) throws Exception {
                int half = REGION / 2;
                boolean down = r.nextBoolean();
                int from = base + (down ? 0 : half) + r.nextInt(half);
                int to = base + (down ? half : 0) + r.nextInt(half);
                int count = 1 + r.nextInt(Math.min(base + (down ? half : REGION) - from,
                        base + (down ? REGION : half) - to));
                String w = what + " model transferTo " + from + " -> " + to + " of " + count;
                long n = bounded(w, modelFile.transferTo(from, count, modelFile, to));
                if (n != count) {
                    throw new AssertionError(w + ": copied " + n);
                }
                System.arraycopy(modelBytes, from, modelBytes, to, count);
            }

            <T> T bounded(String w, CompletableFuture<T> f) throws Exception {
                try {
                    return f.get(BOUND_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError(w + ": did not complete within " + BOUND_SECONDS + " s\n" + describe());
                } catch (ExecutionException e) {
                    throw new AssertionError(w + ": failed: " + e.getCause(), e.getCause());
                }
            }

            // ---------------------------------------------------------------------------------- chaos

            /** A read (of any file, the model's foreign regions included) or a write (of a chaos file), hostile. */
            void chaosTransfer(String what, boolean read) throws Exception {
                int which = r.nextInt(read ? 4 : 3);
                boolean onModel = read && which == 3;
                boolean onFifo = which == 2;
                AsyncFile f = onModel ? modelFile : chaosFiles.get(onModel ? 0 : which);
                int size = onModel ? modelBytes.length : CHAOS_SIZE;
                int len = onFifo ? 1 + r.nextInt(32) : r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(8192);
                long position;
                boolean absurd = false;
                switch (r.nextInt(14)) {
                    case 0 -> {
                        position = -1 - r.nextInt(100);
                        absurd = true;
                    }
                    case 1 -> position = Long.MAX_VALUE - r.nextInt(4096);
                    case 2 -> position = (1L << 40) + r.nextInt(1 << 20);
                    default -> position = pos(size);
                }
                if (onFifo && !read && fifoBytes.addAndGet(len) > 16 * 1024) {
                    return; // a pipe never fills: a write to a full one would wait for a reader forever
                }
                byte[] data = read ? null : new byte[len];
                if (data != null) {
                    r.nextBytes(data);
                }
                Mem m = memory(r, len, data, read, true);
                int method = r.nextInt(8);
                Duration timeout = switch (r.nextInt(3)) {
                    case 0 -> Duration.ZERO;
                    case 1 -> Duration.ofMillis(r.nextInt(20));
                    default -> Duration.ofDays(365_000);
                };
                boolean cancel = r.nextInt(6) == 0;
                int allowed = CLOSE | ERRNO | (cancel ? CANCEL : 0) | (method == 2 ? TIMEOUT : 0)
                        | (m.freedEarly ? FREED : 0) | (method == 1 ? EOF : 0);
                String w = what + (read ? " read " : " write ") + f.path().getFileName() + " " + m.kind + "/" + method
                        + " at " + position + " of " + len + (cancel ? " cancelled" : "");
                boolean bad = absurd || m.refused;
                boolean vectored = method == 7 && m.buffer != null;
                if (vectored) {
                    // vectored: direct buffers the library can hold only
                    bad |= !m.buffer.isDirect() || m.kind.startsWith("shared") || m.kind.equals("read-only") && read
                            || len == 0;
                }
                CompletableFuture<?> fut;
                try {
                    if (vectored) {
                        ByteBuffer[] parts = len == 0 ? new ByteBuffer[0] : split(m.buffer);
                        fut = read ? f.read(parts, position) : f.write(parts, position);
                    } else if (method >= 5) {
                        CompletableFuture<Object> h = new CompletableFuture<>();
                        CompletionHandler<Integer, String> hh = handlerFor(h, null);
                        if (m.buffer != null) {
                            if (read) {
                                f.withTimeout(timeout).read(m.buffer, position, w, hh);
                            } else {
                                f.write(m.buffer, position, w, hh);
                            }
                        } else if (read) {
                            f.read(m.segment, position, w, hh);
                        } else {
                            f.withTimeout(timeout).write(m.segment, position, w, hh);
                        }
                        if (read && m.buffer != null || !read && m.buffer == null) {
                            allowed |= TIMEOUT;
                        }
                        fut = h;
                    } else {
                        fut = switch (method) {
                            case 1 -> m.buffer != null
                                    ? read ? f.readFully(m.buffer, position) : f.writeFully(m.buffer, position)
                                    : read ? f.readFully(m.segment, position) : f.writeFully(m.segment, position);
                            case 2 -> m.buffer != null
                                    ? read ? f.withTimeout(timeout).read(m.buffer, position) : f.withTimeout(timeout).write(m.buffer, position)
                                    : read ? f.withTimeout(timeout).read(m.segment, position) : f.withTimeout(timeout).write(m.segment, position);
                            case 3 -> m.buffer != null
                                    ? read ? f.read(m.buffer, position) : f.writeAndSync(m.buffer, position)
                                    : read ? f.read(m.segment, position) : f.writeAndSync(m.segment, position);
                            default -> m.buffer != null
                                    ? read ? f.read(m.buffer, position) : f.write(m.buffer, position)
                                    : read ? f.read(m.segment, position) : f.write(m.segment, position);
                        };
                    }
                } catch (RuntimeException e) {
                    m.after.run();
                    String p = judgeThrown(w, e, bad, true);
                    if (p != null) {
                        problems.add(p);
                    }
                    return;
                }
                if (m.freedEarly && r.nextBoolean()) {
                    Thread.yield(); // closed (or returned) a moment later, while it runs
                }
                m.after.run();
                if (bad) {
                    refusedOrClosed(w, fut);
                    return;
                }
                if (cancel) {
                    fut.cancel(true);
                    if (!fut.isDone()) {
                        problems.add(w + ": a cancelled future is not done");
                    }
                }
                int len0 = len;
                long pos0 = position;
                boolean readOp = read;
                pending.add(new Pending(w, fut, allowed, v -> {
                    long n = ((Number) v).longValue();
                    if (readOp) {
                        if (n == 0 && len0 != 0 || n < -1 || n > len0 || n == -1 && len0 == 0) {
                            throw new AssertionError("read returned " + n + " for " + len0 + " bytes at " + pos0);
                        }
                    } else if (n < 0 || n > len0 || n == 0 && len0 != 0) {
                        throw new AssertionError("write returned " + n + " for " + len0 + " bytes at " + pos0);
                    }
                }, onFifo));
            }

            /** size, truncate, force, allocate, advise, syncRange of a chaos file, with absurd arguments now and then. */
            void metadata(String what) {
                AsyncFile f = chaosFiles.get(r.nextInt(2));
                boolean onModel = r.nextInt(5) == 0;
                if (onModel) {
                    f = modelFile; // only what leaves its bytes alone
                }
                int kind = r.nextInt(onModel ? 3 : 7);
                long a = switch (r.nextInt(8)) {
                    case 0 -> -1 - r.nextInt(10);
                    case 1 -> Long.MAX_VALUE - r.nextInt(10);
                    case 2 -> (1L << 40) + r.nextInt(100);
                    default -> r.nextInt(CHAOS_SIZE * 2);
                };
                long b = switch (r.nextInt(8)) {
                    case 0 -> -1;
                    case 1 -> Long.MAX_VALUE - r.nextInt(10);
                    default -> r.nextInt(1 << 16);
                };
                Advice advice = Advice.values()[r.nextInt(Advice.values().length)];
                String w = what + " metadata " + kind + " of " + f.path().getFileName() + " (" + a + ", " + b + ")";
                boolean bad = switch (kind) {
                    case 0, 1 -> false;
                    case 3 -> a < 0;
                    case 4 -> allocateAt(a) < 0 || b < 0 || allocateAt(a) + Math.min(b, 1 << 20) < 0;
                    default -> a < 0 || b < 0 || a + b < 0;
                };
                CompletableFuture<?> fut;
                try {
                    switch (kind) {
                        case 0 -> {
                            fut = f.size();
                        }
                        case 1 -> {
                            fut = f.force(r.nextBoolean());
                        }
                        case 2 -> {
                            fut = f.advise(a, b, advice);
                        }
                        case 3 -> {
                            // truncate: never to a size it cannot give back cheaply (sparse up to 1 TiB is fine)
                            fut = f.truncate(a);
                        }
                        case 4 -> {
                            fut = f.allocate(allocateAt(a), b < 0 ? b : Math.min(b, 1 << 20));
                        }
                        case 5 -> {
                            fut = f.syncRange(a, b);
                        }
                        default -> {
                            CompletableFuture<Object> h = new CompletableFuture<>();
                            f.advise(a, b, advice, w, handlerFor(h, null));
                            fut = h;
                        }
                    }
                } catch (RuntimeException e) {
                    String p = judgeThrown(w, e, bad, true);
                    if (p != null) {
                        problems.add(p);
                    }
                    return;
                }
                if (bad) {
                    refusedOrClosed(w, fut);
                    return;
                }
                int allowed = (f == modelFile ? 0 : CLOSE) | ERRNO;
                if (kind == 0) {
                    expect(w, fut, allowed, v -> {
                        if ((Long) v < 0) {
                            throw new AssertionError("size " + v);
                        }
                    });
                } else {
                    expect(w, fut, allowed, null);
                }
            }

            /** Where an allocate starts: never far into the file (it reserves real blocks), or absurd. */
            long allocateAt(long a) {
                return a > (1L << 30) && a < Long.MAX_VALUE - 100 ? a % (1 << 20) : a;
            }

            /** readFile of a chaos file, the model, the directory or a missing path, into hostile memory. */
            void readFile(String what) {
                int which = r.nextInt(5);
                Path p = switch (which) {
                    case 0, 1 -> chaosPaths[which];
                    case 2 -> model;
                    case 3 -> sdir;
                    default -> missing;
                };
                boolean onChaos = r.nextBoolean();
                IoExecutor io = onChaos ? chaos : stable;
                int len = 1 + r.nextInt(CHAOS_SIZE);
                Mem m = memory(r, len, null, true, true);
                String w = what + " readFile " + p.getFileName() + " " + m.kind + " of " + len;
                boolean bad = m.refused;
                CompletableFuture<Integer> f;
                try {
                    f = m.buffer != null ? AsyncFile.readFile(io, p, m.buffer) : AsyncFile.readFile(io, p, m.segment);
                } catch (RuntimeException e) {
                    String problem = judgeThrown(w, e, bad, true);
                    if (problem != null) {
                        problems.add(problem);
                    }
                    return;
                } finally {
                    m.after.run();
                }
                if (bad) {
                    problems.add(w + ": accepted memory it should refuse");
                }
                int allowed = (onChaos ? CLOSE : 0) | (m.freedEarly ? FREED : 0)
                        | (which >= 3 ? ERRNO | NOFILE : 0);
                int len0 = len;
                expect(w, f, allowed, v -> {
                    int n = (Integer) v;
                    if (which >= 3) {
                        throw new AssertionError("readFile of " + p + " returned " + n);
                    }
                    if (n < 0 || n > len0) {
                        throw new AssertionError("readFile returned " + n + " for a buffer of " + len0);
                    }
                });
            }

            /** transferTo between chaos files (and from the model), with absurd arguments now and then. */
            void transfer(String what) {
                AsyncFile from = r.nextInt(3) == 0 ? modelFile : chaosFiles.get(r.nextInt(2));
                AsyncFile to = chaosFiles.get(r.nextInt(2));
                long position = r.nextInt(8) == 0 ? -1 : r.nextInt(10) == 0 ? Long.MAX_VALUE - 5 : pos(CHAOS_SIZE);
                long count = r.nextInt(8) == 0 ? -1 : r.nextInt(1 << 16);
                long target = r.nextInt(8) == 0 ? -5 : pos(CHAOS_SIZE);
                String w = what + " transferTo " + from.path().getFileName() + "@" + position + " -> "
                        + to.path().getFileName() + "@" + target + " of " + count;
                boolean bad = position < 0 || count < 0 || target < 0;
                CompletableFuture<Long> f;
                try {
                    f = from.transferTo(position, count, to, target);
                } catch (RuntimeException e) {
                    String p = judgeThrown(w, e, bad, false);
                    if (p != null) {
                        problems.add(p);
                    }
                    return;
                }
                if (bad) {
                    refusedOrClosed(w, f);
                    return;
                }
                long c = count;
                expect(w, f, CLOSE | ERRNO, v -> {
                    long n = (Long) v;
                    if (n < 0 || n > c) {
                        throw new AssertionError("copied " + n + " of " + c);
                    }
                });
            }

            /** A handler that throws, blocks, closes its file, issues more work or joins on its thread. */
            void hostileHandler(String what) {
                int i = r.nextInt(3);
                AsyncFile f = chaosFiles.get(i);
                int kind = r.nextInt(6);
                long seedHere = r.nextLong();
                CompletableFuture<Object> end = new CompletableFuture<>();
                String w = what + " handler " + kind + " on " + f.path().getFileName();
                CompletionHandler<Integer, String> h = new CompletionHandler<>() {
                    final AtomicInteger calls = new AtomicInteger();

                    @Override
                    public void completed(Integer result, String att) {
                        act(result, null);
                    }

                    @Override
                    public void failed(Throwable exc, String att) {
                        act(null, exc);
                    }

                    private void act(Integer result, Throwable exc) {
                        if (calls.incrementAndGet() != 1) {
                            problems.add(w + ": handler called twice");
                            return;
                        }
                        if (exc != null) {
                            end.completeExceptionally(exc);
                        } else {
                            end.complete(result);
                        }
                        Random hr = new Random(seedHere);
                        switch (kind) {
                            case 0 -> throw new IllegalStateException("a handler that throws (on purpose)");
                            case 1 -> {
                                try {
                                    Thread.sleep(1 + hr.nextInt(5)); // a handler that blocks a little
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                            case 2 -> {
                                try {
                                    f.close(); // closes its own file from its completion
                                } catch (IOException e) {
                                    problems.add(w + ": close from a handler failed: " + e);
                                }
                            }
                            case 3 -> {
                                // more work from the completion, itself checked
                                ByteBuffer b = ByteBuffer.allocateDirect(1 + hr.nextInt(4096));
                                try {
                                    CompletableFuture<Integer> more = i == 2 ? f.withTimeout(Duration.ofMillis(5)).read(b, 0)
                                            : f.read(b, hr.nextInt(CHAOS_SIZE));
                                    expect(w + " then read", more, CLOSE | TIMEOUT, v -> { });
                                } catch (RuntimeException e) {
                                    problems.add(w + ": a read issued from a handler threw " + e);
                                }
                            }
                            case 4 -> {
                                // size of another file, joined here
                                CompletableFuture<Long> s = modelFile.size();
                                try {
                                    long n = s.get(5, TimeUnit.SECONDS);
                                    if (n != modelBytes.length) {
                                        problems.add(w + ": model size " + n);
                                    }
                                } catch (ExecutionException e) {
                                    if (!(e.getCause() instanceof ClosedChannelException)) {
                                        problems.add(w + ": size of the model: " + e.getCause());
                                    }
                                } catch (IllegalStateException e) {
                                    if (!e.getMessage().contains("event loop")) {
                                        problems.add(w + ": join on the loop: " + e);
                                    }
                                } catch (TimeoutException e) {
                                    // on the threads backend the worker waits; the other loop may be busy: not a hang of ours
                                } catch (InterruptedException e) {
                                    // the completers' shutdownNow (an op of this test) interrupts the handler's thread
                                    Thread.currentThread().interrupt();
                                } catch (Exception e) {
                                    problems.add(w + ": " + e);
                                }
                                expect(w + " size", s, CLOSE, null); // the handler may run as the files close at the end
                            }
                            default -> {
                                // a second, nested handler op that throws
                                try {
                                    f.size(w, new CompletionHandler<Long, String>() {
                                        @Override
                                        public void completed(Long v, String a) {
                                            throw new RuntimeException("nested handler throws (on purpose)");
                                        }

                                        @Override
                                        public void failed(Throwable e, String a) {
                                            throw new RuntimeException("nested handler throws (on purpose)");
                                        }
                                    });
                                } catch (RuntimeException e) {
                                    problems.add(w + ": size issued from a handler threw " + e);
                                }
                            }
                        }
                    }
                };
                ByteBuffer b = r.nextBoolean() ? ByteBuffer.allocateDirect(512) : ByteBuffer.allocate(512);
                if (i == 2) {
                    f.withTimeout(Duration.ofMillis(r.nextInt(30))).read(b, 0, w, h);
                    pending.add(new Pending(w, end, CLOSE | TIMEOUT, null, false));
                } else {
                    f.read(b, r.nextInt(CHAOS_SIZE), w, h);
                    expect(w, end, CLOSE, null);
                }
            }

            /** A FIFO read (waits until fed, timed out, or closed) or a small write (feeds them). */
            void fifoOp(String what) {
                AsyncFile f = chaosFiles.get(2);
                if (r.nextBoolean()) {
                    ByteBuffer b = ByteBuffer.allocateDirect(1 + r.nextInt(16));
                    boolean timed = r.nextBoolean();
                    CompletableFuture<Integer> fut = timed ? f.withTimeout(Duration.ofMillis(r.nextInt(50))).read(b, 0) : f.read(b, 0);
                    pending.add(new Pending(what + " fifo read" + (timed ? " timed" : ""), fut,
                            CLOSE | (timed ? TIMEOUT : 0), v -> { }, !timed));
                } else {
                    int n = 1 + r.nextInt(64);
                    if (fifoBytes.addAndGet(n) > 16 * 1024) {
                        return;
                    }
                    pending.add(new Pending(what + " fifo write", f.write(ByteBuffer.allocateDirect(n), 0), CLOSE, null,
                            true));
                }
            }

            /** Closes a chaos file (async, blocking, or from a handler) under load and reopens it; or drops one. */
            void closeOrDropFile(String what) throws Exception {
                int i = r.nextInt(3);
                IoExecutor io = chaos;
                if (r.nextInt(3) == 0) {
                    // dropped without close: the cleaner closes it once unreachable
                    try {
                        AsyncFile d;
                        try {
                            d = TestFiles.get(AsyncFile.open(io, i < 2 ? chaosPaths[i] : fifo,
                                    StandardOpenOption.READ, StandardOpenOption.WRITE));
                        } catch (TimeoutException e) {
                            throw new AssertionError(what + ": an open did not complete within 60 s\n" + describe());
                        }
                        if (i < 2) {
                            expect(what + " read of a dropped file", d.read(ByteBuffer.allocateDirect(64), 0), CLOSE,
                                    null);
                        }
                    } catch (IllegalStateException | ClosedChannelException closed) {
                        // the executor was closed meanwhile
                    }
                    return;
                }
                AsyncFile f = chaosFiles.get(i);
                if (r.nextBoolean()) {
                    expect(what + " closeAsync " + f.path().getFileName(), f.closeAsync(), 0, null);
                } else {
                    f.close();
                }
                try {
                    AsyncFile again = openChaos(io, i);
                    chaosFiles.compareAndSet(i, f, again);
                } catch (IllegalStateException | ClosedChannelException closed) {
                    // the executor was closed meanwhile: the slot keeps the closed file
                }
            }

            /** A stage on the loop thread joins another future: fails at once rather than stall the loop. */
            void joinOnLoop(String what) {
                AsyncFile f = chaosFiles.get(r.nextInt(2));
                CompletableFuture<Integer> first = f.read(ByteBuffer.allocateDirect(16), r.nextInt(CHAOS_SIZE));
                AsyncFile g = chaosFiles.get(2);
                CompletableFuture<Integer> other = g.withTimeout(Duration.ofMillis(200)).read(ByteBuffer.allocateDirect(4), 0);
                pending.add(new Pending(what + " fifo read to join", other, CLOSE | TIMEOUT, null, false));
                CompletableFuture<Object> chained = first.thenApply(n -> {
                    try {
                        return other.get(5, TimeUnit.SECONDS);
                    } catch (TimeoutException | InterruptedException e) {
                        return e.toString();
                    } catch (ExecutionException e) {
                        return e.getCause().toString();
                    }
                });
                expect(what + " join on a completing thread", chained, CLOSE | LOOPJOIN | TIMEOUT, null);
            }

            /** Closes the chaos executor with everything in flight, and starts another (at most twice a seed). */
            void closeExecutor(String what) throws Exception {
                if (executorCloses.incrementAndGet() > 2) {
                    return;
                }
                IoExecutor old = chaos;
                IoExecutor next = executor(r, r.nextBoolean() ? completers : null);
                chaos = next;
                old.close();
                for (int i = 0; i < chaosFiles.length(); i++) {
                    AsyncFile f = chaosFiles.get(i);
                    if (!f.isOpen()) {
                        try {
                            chaosFiles.compareAndSet(i, f, openChaos(next, i));
                        } catch (IllegalStateException | ClosedChannelException closed) {
                            // another worker closed the new executor meanwhile
                        }
                    }
                }
            }

            /** Closes a pool with buffers lent and in flight: it frees once they come back. */
            void closePool(String what) {
                int slot = r.nextInt(poolSlots.length);
                BufferPool old;
                synchronized (poolSlots) {
                    old = poolSlots[slot];
                    BufferPool fresh = BufferPool.create(4096 * (slot + 1), 8);
                    pools.add(fresh);
                    poolSlots[slot] = fresh;
                }
                old.close();
            }
        }
    }

    static List<String> fdsUnder(Path dir) throws IOException {
        String prefix = dir.toRealPath().toString();
        List<String> out = new ArrayList<>();
        for (String t : TestFiles.fdTargets()) {
            if (t.contains(" -> " + prefix)) {
                out.add(t);
            }
        }
        return out;
    }
}
