package io.github.uring4j.file;

import io.github.uring4j.engine.BouncePool;
import io.github.uring4j.engine.CpuCaches;
import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.ExecutorDoor;
import io.github.uring4j.engine.Jmx;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.ResultFilter;
import io.github.uring4j.engine.Waits;
import io.github.uring4j.engine.select.Engines;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.ring.SetupFlag;
import io.github.uring4j.ring.UringException;
import io.github.uring4j.ring.UringUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Cleaner;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs {@link AsyncFile} operations: io_uring event loops (one thread and one ring each), or, where io_uring
 * cannot be used, a pool of threads doing blocking calls behind the same API.
 *
 * <pre>{@code
 * try (IoExecutor io = IoExecutor.builder().loops(1).build();
 *      AsyncFile f = AsyncFile.open(io, path, StandardOpenOption.READ).join()) {
 *     int n = f.read(ByteBuffer.allocateDirect(4096), 0).join();
 * }
 * }</pre>
 *
 * <h2>Threads</h2>
 * Completions (future completions and {@link java.nio.channels.CompletionHandler} calls) run on the loop
 * thread: keep them short and never block in them ({@code join()} there fails at once rather than stop the loop).
 * Futures can be completed on an executor of your choice instead ({@link Builder#futureExecutor}); by default they
 * are not, because the hand-off cost more than it saved in the measurements ({@link Builder#futureExecutor} gives
 * them: each step of a chain crosses between two threads, and the bytes read between two cores).
 * Operations may be started from any thread, including a completion callback. An operation started on a loop's
 * own thread runs on that loop, without a queue or a wake-up, whichever loop opened the file; one started on any
 * other thread runs on the loop that opened the file. The loop threads are daemon threads unless a
 * {@link Builder#threadFactory} says otherwise, so an executor left open never keeps the JVM alive. An executor
 * dropped without {@link #close()} is closed once it is unreachable: its threads end and its rings are closed. Its
 * open files and the operations in flight on it (an open, a {@code readFile} included) hold it, so nothing is
 * closed under them.
 *
 * <h2>Waiting for a result</h2>
 * A platform thread that waits for a future ({@code join()}, {@code get()}) spins for a while before it parks
 * ({@link Builder#waitSpinMicros}): a parked thread costs a wake-up, which took 12-50 µs on the development machine.
 * Reads the page cache holds are made on the caller's thread at once ({@link Builder#callerReads}). A sync
 * ({@link AsyncFile#force}, {@link AsyncFile#writeAndSync(java.nio.ByteBuffer, long)}) lasts longer than the spin:
 * when a platform thread calls {@code join()} on its future before a loop has taken it in, and no earlier write or sync
 * of the file is still queued or in flight (the sync must cover them), the thread makes the calls itself, as the JDK's
 * {@code FileChannel} would, instead of waiting for the loop to make them and to wake it (one {@code writeAndSync} at
 * a time: 0.79-0.84 times the JDK's {@code write} + {@code force(false)} before, 0.85-1.06 after, in JMH on the
 * development machine). Virtual threads, timed {@code get}s and {@code get()} leave it to the loop (a virtual thread's
 * carrier stays free, and those waits can end early).
 *
 * <h2>Back-pressure</h2>
 * A loop keeps at most {@link Builder#inFlightLimit} operations of one file in the kernel; more wait, in order.
 * Files do not share the limit, so a file whose operations never complete (a FIFO nobody writes) holds back
 * neither another file nor its own {@code close()}.
 *
 * <h2>Closing</h2>
 * {@link #close()} stops taking work, cancels what is in flight, waits for every completion, fails the
 * operations that did not finish with {@link java.nio.channels.AsynchronousCloseException}, closes the files
 * still open, and frees the rings. A second call does nothing. Called on an event loop thread (in a completion, of
 * this executor or another), it starts all that and returns at once: waiting there could stop the loop that must
 * finish it, or wait for a loop that waits for this one (two executors closing each other from their handlers).
 * Nor does it wait for ever for a thread that code of yours keeps from its work (a completion handler or
 * continuation that blocks an event loop, or a call on a worker of the threads backend that does not return): after
 * two seconds without progress there it logs a warning, with the loop's stack, and returns; that thread finishes its
 * part when it runs again.
 */
public final class IoExecutor implements AutoCloseable {
    /** System property choosing the default backend: {@code auto}, {@code io_uring} or {@code threads}. */
    public static final String BACKEND_PROPERTY = "uring4j.backend";
    /**
     * System property setting the default executor's event loops, 1 to 1,024 (default: the builder's). One loop
     * makes every operation's submission and completion on one thread: with 10,000 virtual threads reading a disk
     * that takes 180,000 {@code O_DIRECT} reads a second (through the ring at depth 128), one loop on a 2-core machine
     * made 113,000-133,000 reads a second for the drop-in channels, two loops 144,000-159,000 (the JDK's
     * {@code FileChannel} on its 256 carrier threads: 130,000-164,000). Files are given to the loops in turn, each
     * file's operations going to its own loop (but those issued by code running on another loop of the executor).
     */
    public static final String LOOPS_PROPERTY = "uring4j.loops";

    private static final AtomicInteger EXECUTORS = new AtomicInteger();

    static {
        ExecutorDoor.register(new ExecutorDoor.Access() {
            @Override
            public IoBackend backend(Object executor) {
                return ((IoExecutor) executor).backend;
            }

            @Override
            public BouncePool bounces(Object executor) {
                return ((IoExecutor) executor).bounces;
            }
        });
    }
    private static IoExecutor defaultExecutor;

    final IoBackend backend;
    /** Where futures are completed ({@link Builder#futureExecutor}); null: the loop thread. */
    final Handoff futureExecutor;
    /** How long a platform thread waiting for one of its futures spins before it parks ({@link Waits}). */
    final long waitSpinNanos;
    /** Reads of futures are tried on the caller's thread first ({@link CallerReads}). */
    final boolean callerReads;
    final BouncePool bounces = new BouncePool();
    private final String fallbackReason;
    private final String name;
    private final String mbean;
    /** Whether it is closed, and the closing itself: shared with the cleaner, which holds no reference to this. */
    private final Lifecycle life;
    private final Cleaner.Cleanable cleanable;

    private IoExecutor(Builder b) throws IOException {
        io.github.uring4j.engine.Preload.engine(); // now, while the heap has room: see Preload
        this.name = b.name != null ? b.name : "uring4j-" + EXECUTORS.incrementAndGet();
        this.futureExecutor = Handoff.to(b.futureExecutor);
        this.waitSpinNanos = b.waitSpinNanos;
        this.callerReads = b.callerReads;
        EngineConfig c = new EngineConfig();
        c.want = switch (b.backend == null ? Backend.AUTO : b.backend) {
            case AUTO -> EngineConfig.Want.AUTO;
            case IO_URING -> EngineConfig.Want.IO_URING;
            case THREADS -> EngineConfig.Want.THREADS;
        };
        c.threadsReason = "the threads backend was chosen" + (b.backendFromProperty
                ? " (" + BACKEND_PROPERTY + "=threads)" : " (IoExecutor.Builder.backend)");
        c.loops = b.loops;
        c.entries = b.entries;
        c.setupFlags = b.setupFlags;
        c.spinNanos = b.spinMicros * 1000L;
        c.blockedWarnNanos = b.blockedWarnNanos;
        c.inFlightLimit = b.inFlightLimit;
        c.registeredFiles = b.registeredFiles;
        c.inlineWriteMax = b.inlineWriteMax;
        c.ioWorkers = b.ioWorkers;
        c.inFlightBytes = b.inFlightBytes;
        c.directInFlight = b.directInFlight;
        c.threads = b.threads;
        c.processWide = b.processWide;
        c.threadFactory = b.threadFactory != null ? b.threadFactory : daemonFactory(name, b.processWide);
        c.name = name;
        c.syscalls = b.syscalls;
        c.errors = Errors.INSTANCE;
        c.resultFilter = b.resultFilter;
        // an executor dropped without close() and found unreachable is released here first, so that a program that
        // drops them faster than the cleaner's thread releases them pays for them as it goes
        io.github.uring4j.engine.Cleaners.EXECUTORS.help(1);
        Engines.Started started = Engines.start(c, bounces);
        this.backend = started.backend();
        this.fallbackReason = started.fallbackReason();
        this.life = new Lifecycle(backend, b.processWide);
        this.mbean = register();
        life.mbean = mbean;
        this.cleanable = io.github.uring4j.engine.Cleaners.EXECUTORS.register(this, life, life::endWithoutWaiting);
    }


    /**
     * Closes the executor, once: by {@link #close()}, or when it became unreachable without it (nothing can start
     * an operation on it then, and none is in flight: an operation's file, or an open's completion, holds it).
     */
    private static final class Lifecycle implements Runnable {
        final IoBackend backend;
        /** The default executor's: its close takes the process-wide JMX views with it. */
        final boolean processWide;
        volatile String mbean;
        volatile boolean closed;

        Lifecycle(IoBackend backend, boolean processWide) {
            this.backend = backend;
            this.processWide = processWide;
        }

        /** The first close has done its work (guarded by this). */
        private boolean ended;

        @Override
        public void run() {
            end(true);
        }

        /** As {@link #run()} for an executor dropped and released by a thread building another: no waiting. */
        void endWithoutWaiting() {
            end(false);
        }

        private void end(boolean wait) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            try {
                if (wait) {
                    backend.shutdown();
                } else {
                    backend.shutdownWithoutWaiting();
                }
                Jmx.unregister(mbean);
                if (processWide) {
                    Jmx.unregisterProcessWide();
                }
            } finally {
                synchronized (this) {
                    ended = true;
                    notifyAll();
                }
            }
        }

        /**
         * Waits until the first close has done its work: a second {@code close()} racing it returned at once, with
         * the files still open. Not on a thread of the executor's own (a handler's close), which the first close may
         * be waiting for; an interrupt does not end the wait, and is set again after, as {@code ExecutorService.close}
         * does.
         */
        void awaitClosed() {
            if (backend.mustNotBlock(Thread.currentThread())) {
                return;
            }
            boolean interrupted = false;
            synchronized (this) {
                // after a clean(): the close has begun on some thread, which may not have marked it yet
                while (!ended) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The executor's counters as an MXBean; see {@link IoExecutorMXBean}. */
    private record Stats(String name, IoBackend backend, String fallbackReason, Lifecycle life)
            implements IoExecutorMXBean {
        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getBackend() {
            return backendOf(backend).name();
        }

        @Override
        public String getFallbackReason() {
            return fallbackReason == null ? "" : fallbackReason;
        }

        @Override
        public int getThreads() {
            return backend.stats().threads();
        }

        @Override
        public int getInFlight() {
            return backend.stats().inFlight();
        }

        @Override
        public int getQueued() {
            return backend.stats().queued();
        }

        @Override
        public long getCompleted() {
            return backend.stats().completed();
        }

        @Override
        public long getCqOverflows() {
            return backend.stats().cqOverflows();
        }

        @Override
        public long getLoopCalls() {
            return backend.stats().loopCalls();
        }

        @Override
        public long getSlowLoopCalls() {
            return backend.stats().slowLoopCalls();
        }

        @Override
        public long getFixedBufferOperations() {
            return backend.stats().fixedBufferOps();
        }

        @Override
        public boolean isOpen() {
            return !life.closed;
        }
    }

    /** Registers the MXBean; a second executor of the same name gets a numbered one. Null if JMX refuses. */
    private String register() {
        return Jmx.register("io.github.uring4j:type=IoExecutor", name, new Stats(name, backend, fallbackReason, life),
                IoExecutorMXBean.class);
    }

    /**
     * The JMX object name of this executor's {@link IoExecutorMXBean} ({@code io.github.uring4j:type=IoExecutor,
     * name="..."}), or empty when it is not registered: it could not be (the name was taken by other code, such as
     * another class loader's copy of uring4j), or the executor is closed. The bean itself is registered by a background
     * thread a few milliseconds after {@code build()} where the platform MBean server runs, else once it does or five
     * seconds after the library's first registration (see {@link IoExecutorMXBean}); this registers it now (starting
     * the server) and waits for that.
     */
    public Optional<String> jmxName() {
        return Jmx.registered(mbean) ? Optional.of(mbean) : Optional.empty();
    }

    /**
     * Daemons that take none of the builder's inheritable thread locals; the default executor's have the system
     * class loader as their context, an executor a program builds has the builder's ({@code LibraryThreads}).
     */
    private static ThreadFactory daemonFactory(String name, boolean processWide) {
        AtomicInteger n = new AtomicInteger();
        ClassLoader context = processWide ? ClassLoader.getSystemClassLoader()
                : Thread.currentThread().getContextClassLoader();
        return r -> {
            Thread t = io.github.uring4j.engine.LibraryThreads.shared(name + "-" + n.getAndIncrement(), r);
            t.setContextClassLoader(context);
            return t;
        };
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The default of {@link Builder#inFlightBytes} on this machine: a quarter of one core's share of its level-2
     * cache (from sysfs), at least 128 KiB and at most 2 MiB; 512 KiB where sysfs does not say. A program driving an
     * {@code IoUring} itself may keep its page-cache reads in flight under the same bound.
     */
    public static long defaultInFlightBytes() {
        return CpuCaches.defaultInFlightBytes();
    }

    /**
     * The shared executor, created on first use with default settings, the backend named by the system
     * property {@value #BACKEND_PROPERTY} (default {@code auto}) and the event loops {@value #LOOPS_PROPERTY} names
     * (default the builder's). Its threads are daemons. If it was closed, or an
     * event loop of it failed (an {@code OutOfMemoryError} on the loop, say), a new one is created.
     *
     * @throws UncheckedIOException when {@code uring4j.backend=io_uring} and io_uring cannot be set up
     */
    public static synchronized IoExecutor defaultExecutor() {
        if (defaultExecutor != null && defaultExecutor.isOpen() && defaultExecutor.backend.broken()) {
            // an event loop of it died (the heap was full, say): a new default serves what comes next
            defaultExecutor.close();
        }
        if (defaultExecutor == null || !defaultExecutor.isOpen()) {
            try {
                Builder b = builder().name("uring4j-default");
                b.loops = defaultLoops(b.loops);
                b.backend = Backend.parse(System.getProperty(BACKEND_PROPERTY));
                b.backendFromProperty = true;
                b.processWide = true;
                defaultExecutor = b.build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return defaultExecutor;
    }

    /** {@link #defaultLoops} said its property was wrong (under the class's lock). */
    private static boolean warnedLoops;

    /** The default executor's loops: {@value #LOOPS_PROPERTY} when set to a number it takes, else {@code otherwise}. */
    private static int defaultLoops(int otherwise) {
        String v = System.getProperty(LOOPS_PROPERTY);
        if (v == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1 && n <= 1024) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        if (!warnedLoops) {
            warnedLoops = true; // once: the default executor may be made again and again
            io.github.uring4j.engine.Log.warn("-D" + LOOPS_PROPERTY + "=" + v + " is not a number of event loops from 1"
                    + " to 1024: the default executor has " + otherwise);
        }
        return otherwise;
    }

    /** {@link Backend#IO_URING} or {@link Backend#THREADS}: what actually runs the operations. */
    public Backend backend() {
        return backendOf(backend);
    }

    private static Backend backendOf(IoBackend b) {
        return b.name().equals("io_uring") ? Backend.IO_URING : Backend.THREADS;
    }

    /** Why this executor runs on threads (the warning logged once per JVM), or empty on io_uring. */
    public Optional<String> fallbackReason() {
        return Optional.ofNullable(fallbackReason);
    }

    public boolean isOpen() {
        return !life.closed;
    }

    /**
     * Why an event loop of this executor failed for good (an {@code OutOfMemoryError} on its thread, say), or empty
     * while every loop runs. From then on the operations of the files it serves fail with that reason, and opens that
     * reach it too: close the executor and build a new one ({@link #defaultExecutor()} does so by itself). The threads
     * backend's workers are replaced as they die: it has none.
     */
    public Optional<String> failure() {
        return Optional.ofNullable(backend.failure());
    }

    /** Operations in the kernel (or on a worker) right now. */
    public int inFlight() {
        return backend.inFlight();
    }

    /** Operations submitted and not yet ended, queued ones included (tests wait for it to reach zero). */
    int unfinished() {
        return backend.unfinished();
    }

    void checkOpen() {
        if (life.closed) {
            throw new IllegalStateException("IoExecutor " + name + " is closed");
        }
    }

    @Override
    public void close() {
        cleanable.clean(); // runs the closing once, whoever asks first
        life.awaitClosed(); // and whoever asks next returns once it is done
    }

    @Override
    public String toString() {
        return "IoExecutor[" + name + ", " + backend() + (life.closed ? ", closed" : "") + "]";
    }

    /** Settings for {@link #build()}; every one has a default. */
    public static final class Builder {
        private int loops = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 4));
        private int entries = 256;
        private int setupFlags;
        private long spinMicros = 20;
        private long blockedWarnNanos = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        private long waitSpinNanos = Waits.DEFAULT_NANOS;
        private boolean callerReads = true;
        private int inFlightLimit = 256;
        private int registeredFiles = 256;
        private int inlineWriteMax = 1 << 20;
        private int ioWorkers = 64;
        private long inFlightBytes = CpuCaches.defaultInFlightBytes();
        private int directInFlight;
        private java.util.concurrent.Executor futureExecutor;
        private int threads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
        private ThreadFactory threadFactory;
        private Backend backend = Backend.AUTO;
        private boolean backendFromProperty;
        /** The default executor's: its threads serve the whole process ({@code LibraryThreads}). */
        private boolean processWide;
        private String name;
        private Syscalls syscalls;
        private ResultFilter resultFilter;

        private Builder() {
        }

        /**
         * Event loops (threads, each with its own ring), 1 to 1,024; default a quarter of the cores, 1 to 4. (A loop
         * is a thread and about eight memory mappings: 100,000 of them exhausted the process's mappings and the JVM
         * died, where a loop per core is what a machine can use.)
         */
        public Builder loops(int loops) {
            this.loops = within(loops, 1024, "loops");
            return this;
        }

        /**
         * SQ entries per ring, 4 to 32768 (default 256); the CQ has twice as many as the larger of this and the
         * in-flight limit. A loop prepares up to three entries for one operation (a write and its sync, a read and its
         * timeout), so a ring of fewer than four could never take one.
         */
        public Builder entries(int entries) {
            if (entries < 4 || entries > 32768) {
                throw new IllegalArgumentException("entries must be 4..32768 (a loop prepares up to 3 entries for one"
                        + " operation; 32768 is the kernel's limit per ring): " + entries);
            }
            this.entries = entries;
            return this;
        }

        /**
         * {@code IORING_SETUP_*} flags ({@link SetupFlag}), passed through. {@link SetupFlag#R_DISABLED} is refused:
         * the loops' rings must take work at once; so is {@link SetupFlag#IOPOLL}: a polled ring takes only
         * {@code O_DIRECT} reads and writes of devices with poll queues, and the loops also open, close, sync and read
         * through the page cache on theirs (every open failed with {@code EINVAL}). Polled I/O is the ring API's
         * ({@link io.github.uring4j.ring.IoUring}).
         */
        public Builder setupFlags(int setupFlags) {
            if ((setupFlags & SetupFlag.R_DISABLED) != 0) {
                throw new IllegalArgumentException("SetupFlag.R_DISABLED: an executor's rings must take work at once;"
                        + " leave the flag out");
            }
            if ((setupFlags & SetupFlag.IOPOLL) != 0) {
                throw new IllegalArgumentException("SetupFlag.IOPOLL: a polled ring takes only O_DIRECT reads and writes"
                        + " of devices with poll queues, and an executor's loops also open, close and sync files on"
                        + " theirs; use the ring API (IoUring) for polled I/O, or leave the flag out");
            }
            io.github.uring4j.ring.IoUring.options().flags(setupFlags); // bits the library does not know: refused here
            this.setupFlags = setupFlags;
            return this;
        }

        /**
         * How long a loop may be kept from its work before uring4j logs a warning that names it and shows where its
         * thread is (default 10 s; {@link java.time.Duration#ZERO}: never): a {@code CompletionHandler} or a
         * continuation that blocks on the loop stops every file of that loop, and without it the program would see
         * only operations that never end. A loop asleep in the kernel, waiting for work, is not kept from it. The
         * warning comes once per stall, and a second one when the loop runs again. io_uring backend only: the
         * threads backend adds workers instead.
         */
        public Builder blockedLoopWarning(java.time.Duration after) {
            Objects.requireNonNull(after, "after");
            if (after.isNegative()) {
                throw new IllegalArgumentException("negative blockedLoopWarning: " + after);
            }
            this.blockedWarnNanos = after.compareTo(java.time.Duration.ofDays(365)) > 0 ? Long.MAX_VALUE
                    : after.toNanos();
            return this;
        }

        /**
         * How long an idle loop spins before it sleeps in the kernel, in microseconds (default 20; 0: never). A request
         * that finds the loop asleep pays for waking it: on the development machine (2-core VM), a thread that worked
         * 30-100 µs between cached 4 KiB reads awaited one at a time waited 35-55 µs for each with the default, and
         * 3-5 µs (30-60 µs of work) or 23 µs (100 µs) with 100, while the loop kept a core busy for the whole time
         * (the process used 1.95 cores against 1.2-1.5). Longer spins trade a core for that latency.
         */
        public Builder spinMicros(long spinMicros) {
            if (spinMicros < 0 || spinMicros > 1_000_000) {
                throw new IllegalArgumentException("spinMicros must be 0..1000000: " + spinMicros);
            }
            this.spinMicros = spinMicros;
            return this;
        }

        /**
         * How long a platform thread that waits for one of this executor's futures ({@code join()}, {@code get()},
         * {@link AsyncFile#close()}) spins before it parks, in microseconds (default 50, or
         * {@code -During4j.waitSpinMicros}; 0: it parks at once). A parked thread costs a wake-up when the result
         * comes, and its next request costs the loop one: on the development machine (2-core VM) a cached 4 KiB read
         * awaited with {@code join()} took 18 µs parked and 1.2 µs spinning, an open 20 µs against 2.4, a close 19
         * against 1.7, and one thread made 441k reads/s instead of 50k. A thread whose spins the operations outlast
         * (reads from the device, syncs) spins on fewer and fewer of its waits, down to one in 257, and no more
         * threads spin at once than one fewer than the cores (at least one). Virtual threads never spin: they would
         * hold their carrier.
         */
        public Builder waitSpinMicros(long micros) {
            if (micros < 0 || micros > Waits.MAX_MICROS) {
                throw new IllegalArgumentException("waitSpinMicros must be 0.." + Waits.MAX_MICROS + ": " + micros);
            }
            this.waitSpinNanos = micros * 1000L;
            return this;
        }

        /**
         * Whether a read awaited through its future ({@link AsyncFile#read(ByteBuffer, long)},
         * {@link AsyncFile#read(java.lang.foreign.MemorySegment, long)} and their {@code readFully}) is first made on the
         * caller's own thread with {@code RWF_NOWAIT}, which takes the bytes from the page cache or refuses at once
         * (default true). When the page cache has all of it, the future is complete when {@code read} returns, and no
         * loop was involved; otherwise a loop reads as before. Regular files only, not {@code O_DIRECT}, a
         * {@code readFully} only when it got every byte, at most 256 KiB, never on a loop thread; on the io_uring
         * backend. On the development machine a cached 4 KiB read awaited one at a time took 0.6 µs so, 1.2-2.0 µs
         * through the loop with the caller spinning, 18-20 µs with it parked, and up to milliseconds after the loop
         * had slept (the JDK's {@code FileChannel}: 0.55 µs); false sends every read to a loop.
         */
        public Builder callerReads(boolean callerReads) {
            this.callerReads = callerReads;
            return this;
        }

        /**
         * Operations of one file a loop keeps in the kernel at once (default 256); more wait, in order. On the
         * threads backend each file runs at most {@link #threads} calls at once.
         */
        public Builder inFlightLimit(int inFlightLimit) {
            if (inFlightLimit <= 0 || inFlightLimit > 16384) {
                throw new IllegalArgumentException("inFlightLimit must be 1..16384: " + inFlightLimit);
            }
            this.inFlightLimit = inFlightLimit;
            return this;
        }

        /**
         * Largest buffered write an event loop makes itself, with a plain {@code pwrite}, on a file system that
         * cannot take writes without blocking (ext4 refuses {@code RWF_NOWAIT} writes); larger ones go through the
         * ring to the kernel's io-wq workers (default 1 MiB; 0: every such write goes through the ring).
         *
         * <p>io_uring hands every buffered ext4 write to an io-wq worker, one worker per file, and wakes the loop
         * for each completion: on the development machine that made 4 KiB random writes 0.4 times as fast as a
         * {@code FileChannel} loop. A write the loop makes itself costs what {@code FileChannel.write} costs, but
         * the loop does nothing else meanwhile (a 1 MiB copy into the page cache takes about 0.2 ms); a write that
         * blocks the loop for more than 10 ms (dirty-page throttling) while others waited for the loop (requests of
         * other threads, operations in the kernel) sends its file's writes through the ring for the next quarter of
         * a second. File systems that take {@code RWF_NOWAIT} writes (XFS, btrfs) need none of this: the loop
         * asks for a write that does not block, and hands only the ones the kernel refuses to the ring.
         * {@code O_DIRECT} files always use the ring, and so do {@code DSYNC}/{@code SYNC} files for writes that would
         * block (each waits for the device).
         *
         * <p>Syncs ({@code force}, and {@code writeAndSync} of a write up to this size) of a loop with nothing else in
         * the kernel or waiting are made by the loop itself too: io_uring gives every sync to an io-wq worker, and the
         * hand-overs from the caller to the loop to the worker and back made one sync at a time 0.35–0.65 times as fast
         * as {@code write} + {@code force} on a {@code FileChannel}; made by the idle loop, {@code writeAndSync} ran
         * at 0.71–0.94 times (measured on the development machine, one at a time). A busy loop sends them through
         * the ring, where several wait for the device at once; so does a file whose sync held the loop over 10 ms
         * while other threads' requests waited, the second time within a second, for the next quarter of a second.
         *
         * <p>Opens that create or truncate a file ({@code CREATE}, {@code CREATE_NEW}, {@code TRUNCATE_EXISTING}) are
         * made by an idle loop too, where io_uring would give each to an io-wq worker: an {@code AsyncFile} open +
         * close that creates took 78-96 µs through the worker and 13-19 µs made by the loop (the JDK's
         * {@code FileChannel}: 2-14 µs). Such an open asks for {@code O_NONBLOCK} (a FIFO without its reader, a file
         * under a lease: the ring's worker then waits) and has it turned off once the file is open. So are the
         * {@code statx} calls of {@link AsyncFile#size()} (1.1-1.5 µs awaited one at a time, against 3.9-4.1 through
         * the worker). Reads of files in memory (tmpfs, ramfs) are made by the loop too, up to this size: those
         * file systems refuse {@code RWF_NOWAIT}, so io_uring hands each of their reads to an io-wq worker, and cached
         * 4 KiB random reads of a tmpfs file ran at 0.16 times a {@code FileChannel}'s rate through {@code AsyncFile};
         * made by the loop, at 0.84-0.88 times (a read awaited through its future is made on the caller's thread, as
         * {@link #callerReads} says). So are reads of overlayfs files (a container's own file system) whose pages are
         * all in the page cache ({@code mincore} of a mapping of the file says so): 0.13 times a {@code FileChannel}'s
         * rate through io-wq, 0.63-0.67 made by the loop. With 0 the loop makes no blocking call for writes, syncs,
         * sizes, opens or reads.
         */
        public Builder inlineWriteMax(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("inlineWriteMax must be >= 0: " + bytes);
            }
            this.inlineWriteMax = bytes;
            return this;
        }

        /**
         * The most kernel worker threads (io-wq) each event loop's ring runs at once for work on regular files that
         * blocks: syncs, buffered writes on ext4 that go through the ring, opens that miss the cache (default 64; 0:
         * the kernel's default, four per CPU; set with {@code IORING_REGISTER_IOWQ_MAX_WORKERS}, Linux 5.15, and left
         * to the kernel before it). The JDK's virtual threads that block in such calls get up to 256 carrier threads
         * between them; with the kernel's default of 8 on a 2-core machine, 200 virtual threads calling
         * {@code force} on the drop-in {@code FileChannel} of cached files made 0.18 times the JDK channel's forces
         * a second, with 32 workers 0.47, with 64 0.52-0.61 and with 128 0.53 ({@code uring4j-bench mixed --ops
         * force}). Workers are started only when work waits for one, and end after a few idle seconds.
         */
        public Builder ioWorkers(int workers) {
            if (workers < 0 || workers > 4096) {
                throw new IllegalArgumentException("ioWorkers must be 0..4096: " + workers);
            }
            this.ioWorkers = workers;
            return this;
        }

        /**
         * Bytes of page-cache transfers one file keeps in flight on one loop (default
         * {@link #defaultInFlightBytes()}: a quarter of a core's level-2 cache); more wait, in order, and one transfer
         * always runs whatever its size. The kernel copies cached data with the CPU, one transfer after the other on
         * one loop, and buffers that no longer fit the core's cache cost more than the parallelism gains: on the
         * development machine (2 MiB of L2 per core), 64 KiB random reads from the page cache ran at 0.88–0.95 times
         * a {@code FileChannel}'s rate with 2 MiB in flight, 1.03–1.06 times with 1 MiB and 1.09–1.14 times with
         * 512 KiB, and cached 1 MiB sequential reads at 16 in flight at 0.6–0.75 times the rate of 2 in flight. Only
         * regular files count (a pipe's read may wait for a write behind it), and not their {@code O_DIRECT}
         * transfers: the device copies those, and wants depth.
         */
        public Builder inFlightBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("inFlightBytes must be positive: " + bytes);
            }
            this.inFlightBytes = bytes;
            return this;
        }

        /**
         * Where the futures {@link AsyncFile} returns are completed, and so where the stages chained to them without
         * an executor of their own ({@code thenApply}, {@code thenCompose}, ...) run; default null: on the loop
         * thread, with no hand-off. Name an executor (for example {@code ForkJoinPool.commonPool()} or a virtual
         * thread per task) when those stages block or run long (milliseconds): on the loop they hold back every other
         * completion of that loop. Short work on what was just read is cheaper on the loop: a CRC32C of each of
         * 20,000 cached files of 4-64 KiB, open, read, close and check chained 64 at a time, ran at 217 thousand
         * files/s completing on two loops and 75-89 thousand on one loop and the common pool's worker (2 cores, the
         * JDK's virtual threads 234 thousand): every file's bytes crossed from one core's cache to the other's, and
         * the worker checked each file after its close had gone to the loop and back, when 63 other files had passed
         * through its cache (the checksum took five times as long as on the JDK's carrier threads).
         * {@link java.nio.channels.CompletionHandler}s always run on the loop. Completions are queued and handed over in as few tasks as keep them moving: a burst of them costs the
         * executor one task, not one each, and a stage that blocks holds back no other (before it runs a stage while
         * more wait, a task makes sure another is waiting to start). A task the executor refuses (it was shut down)
         * completes the future on the loop instead; completions whose task {@code shutdownNow} dropped are completed
         * by a thread of the library's own within about a tenth of a second.
         */
        public Builder futureExecutor(java.util.concurrent.Executor executor) {
            this.futureExecutor = executor;
            return this;
        }

        /**
         * {@code O_DIRECT} operations one loop keeps in the kernel per block device (default 0: as many as one of
         * the device's hardware queues hands out without waiting, read from sysfs: the I/O scheduler's
         * {@code nr_requests} where there is a scheduler, the driver's {@code nr_tags} where there is none; unbounded
         * where sysfs does not say); more wait, in order. io_uring submits an {@code O_DIRECT} read without waiting
         * for a request: past them the block layer refuses it and io_uring hands it to a kernel worker thread, which
         * waits instead. On the development machine's virtio disk (mq-deadline, 256 requests, 128 tags), 10,000
         * virtual threads reading through one loop ran at 0.76 times the JDK's rate with 1,024 in the kernel, about
         * 0.9 with 128 and 0.85–1.0 with 256 (the disk itself takes about 85 at once; the rest are what the
         * kernel refills it from before the loop sees a completion).
         */
        public Builder directInFlight(int operations) {
            if (operations < 0) {
                throw new IllegalArgumentException(
                        "directInFlight must be >= 0 (0: what the device takes): " + operations);
            }
            this.directInFlight = operations;
            return this;
        }

        /** Registered-file slots per ring for {@link FileOption#REGISTERED} (default 256; 0: none). */
        public Builder registeredFiles(int registeredFiles) {
            if (registeredFiles < 0) {
                throw new IllegalArgumentException("registeredFiles must be >= 0: " + registeredFiles);
            }
            this.registeredFiles = registeredFiles;
            return this;
        }

        /**
         * Worker threads of the threads backend (default twice the cores, at least 4; at most 4,096), and the calls
         * one file runs at once there. While every worker is blocked the pool grows, up to 256 threads.
         */
        public Builder threads(int threads) {
            this.threads = within(threads, 4096, "threads");
            return this;
        }

        /**
         * Makes the loop (or worker) threads; default: daemon threads named after the executor. Each call must return
         * a new, unstarted thread that runs the {@code Runnable} it is given (a virtual thread factory will do: each
         * loop then holds a carrier while it waits in the kernel). {@link #build()} fails with
         * {@link IllegalStateException} saying so when one returns null, a started thread or one it returned
         * before, and when a thread has not run what it was given 10 s after its start; what the factory throws,
         * {@code build()} throws. Where the threads backend cannot get another worker later, the workers it has take
         * the calls in turn.
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        public Builder backend(Backend backend) {
            this.backend = Objects.requireNonNull(backend, "backend");
            this.backendFromProperty = false;
            return this;
        }

        /** Thread-name prefix. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Test seam: the system-call layer (internal type). */
        Builder syscalls(Syscalls syscalls) {
            this.syscalls = Objects.requireNonNull(syscalls, "syscalls");
            return this;
        }

        /** Test seam: rewrites completion results. */
        Builder resultFilter(ResultFilter filter) {
            this.resultFilter = filter;
            return this;
        }

        /**
         * Starts the executor. With {@link Backend#AUTO} an io_uring setup failure of the "not available here"
         * kind (EPERM from seccomp, io_uring_disabled, ENOSYS, ENOMEM) selects the threads backend and logs why,
         * once per JVM. An executor dropped without {@code close()} and found unreachable is closed here first, as
         * {@code close()} would (a program that drops them faster than the library's cleaner thread closes them pays
         * for them as it goes, instead of piling up rings and threads), without waiting for its loops to end: they
         * let go of their rings and threads as they end.
         *
         * @throws UringUnavailableException with {@link Backend#IO_URING} when io_uring cannot be set up
         * @throws UringException            when the ring rejects these settings
         */
        public IoExecutor build() throws IOException {
            return new IoExecutor(this);
        }

        private static int within(int v, int max, String what) {
            if (v <= 0 || v > max) {
                throw new IllegalArgumentException(what + " must be 1.." + max + ": " + v);
            }
            return v;
        }
    }
}
