package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.IoUringCqe;
import io.github.uring4j.linux.IoUringRsrc;
import io.github.uring4j.linux.KernelTimespec;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.linux.InternalAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.Objects;

/**
 * One io_uring instance: its submission and completion queues mapped into this process, typed encoders for the
 * operations ({@link Sqe}), registration, and submission/completion.
 *
 * <pre>{@code
 * try (IoUring ring = IoUring.open(IoUring.options().entries(64))) {
 *     ring.nextSqe().read(FileTarget.fd(fd), buffer, 0).userData(1);
 *     ring.submitAndWait(1);
 *     ring.reap((userData, res, flags) -> System.out.println(userData + " -> " + res));
 * }
 * }</pre>
 *
 * <h2>Threads</h2>
 * A ring belongs to the thread that opened it (see {@link #handOff(Thread)}); any other thread gets a
 * {@link WrongThreadException} from the library, before the kernel could answer {@code EEXIST} to a
 * {@code SINGLE_ISSUER} ring. The completion side may be given to one other thread with
 * {@link #bindCompletionsTo(Thread)}, for a submitter/reaper pair. A ring works on a virtual thread, but what the
 * kernel ties to one OS thread does not: {@link #registerRingFd()}, and {@code SINGLE_ISSUER} or
 * {@code DEFER_TASKRUN} rings, are refused there (a virtual thread moves between carrier threads), as is handing
 * such a ring to another thread.
 *
 * <h2>Memory</h2>
 * As with liburing, the caller keeps every buffer, path and struct handed to an encoder valid until the
 * operation's completion is reaped: the kernel reads and writes them asynchronously, and nothing here can know
 * when the caller frees them. What can be checked is refused with an exception, before anything reaches the
 * kernel: a segment whose arena is already closed, a heap segment, a negative or oversized length, an address
 * range outside the registered buffer a fixed operation names. After {@link #close()} every method throws
 * {@link IllegalStateException}; the mappings are released exactly as they were made.
 *
 * <h2>Where the kernel does the work</h2>
 * An operation the kernel can finish without blocking runs inside {@code io_uring_enter} (a read from the page
 * cache); one that would block waits for readiness (pipes, sockets) or goes to an io-wq worker thread. Two cases
 * measured on this project's machine cost more than the system call they replace:
 * <ul>
 * <li>Buffered writes on a file system that refuses {@code RWF_NOWAIT} writes (ext4, {@code EOPNOTSUPP}) always go to
 * io-wq, and a file's writes are serialised on one worker that wakes the submitter for each completion: 4 KiB random
 * writes to a cached file ran at 0.5–0.85 times a {@code pwrite} loop even with {@link SetupFlag#DEFER_TASKRUN} and
 * waiting for half the window at a time (1 completion at a time: 0.3–0.6). {@code AsyncFile} makes such writes on its
 * loop thread instead ({@code IoExecutor.Builder.inlineWriteMax}).</li>
 * <li>{@code O_DIRECT} operations beyond the requests a hardware queue of the device hands out
 * ({@code /sys/block/DEV/queue/nr_requests} with an I/O scheduler, {@code /sys/block/DEV/mq/N/nr_tags} without one)
 * are refused by the block layer and handed to io-wq; keep no more in flight than that. Keeping that many does
 * help: the device may take fewer at once, and the kernel refills it from the rest without waiting for you.</li>
 * </ul>
 * And buffers the kernel copies into with the CPU (page-cache reads) are cheapest when they fit its caches: no more
 * of them in flight than a quarter of a core's level-2 cache ({@code IoExecutor.defaultInFlightBytes()} reads it),
 * not 16 of 1 MiB. Registered buffers help here too: the kernel copies into their pinned pages with {@code memcpy}
 * instead of {@code copy_to_user}.
 *
 * <h2>Release</h2>
 * {@link #close()} releases the ring. A ring whose owner thread has ended may be closed from any thread, and a
 * ring that becomes unreachable without {@code close()} is released by a cleaner: no descriptor or mapping
 * outlives its ring.
 */
public final class IoUring implements AutoCloseable {

    /** Release/acquire access to the ring indexes shared with the kernel. */
    private static final VarHandle INT = JAVA_INT.varHandle();
    /** Rings dropped unclosed: made on first use (a thread that could not start in a static initializer failed the class for good). */
    private static volatile Cleaner cleaner;

    private static Cleaner cleaner() {
        Cleaner c = cleaner;
        if (c == null) {
            synchronized (IoUring.class) {
                c = cleaner;
                if (c == null) {
                    c = Cleaner.create(r -> io.github.uring4j.engine.LibraryThreads.shared("uring4j-ring-cleaner", r));
                    cleaner = c;
                }
            }
        }
        return c;
    }

    static {
        InternalAccess.ringOptions((options, syscalls) -> ((Options) options).syscalls(syscalls));
    }

    /** sizeof(sigset_t) as the kernel counts it (_NSIG / 8). */
    private static final int KERNEL_SIGSET_SIZE = 8;

    private final Syscalls sys;
    private final int ringFd;
    private final int flags;
    private final int features;
    private final int sqEntries;
    private final int cqEntries;
    /** {address, length} of the SQ ring, CQ ring and SQE mappings (tests). */
    private final long[] mappings;

    private final MemorySegment sqRing;
    private final MemorySegment cqRing;

    private final long sqHead;
    private final long sqTail;
    private final long sqFlags;
    private final long sqDropped;
    private final int sqMask;
    private final long cqHead;
    private final long cqTail;
    private final long cqOverflow;
    private final long cqes;
    private final int cqMask;
    private final int sqeShift;
    private final int cqeShift;
    private final Registrar registrar;

    /** Scratch for timed waits; confined use by the owner. */
    private final MemorySegment waitArg;
    private final MemorySegment waitTs;

    private final Sqe sqe;
    private final Probe probe;
    private final boolean[] supported;

    /** Next free SQE (local, not yet published). */
    private int sqeTail;
    /** Last value published to the kernel's SQ tail. */
    private int publishedTail;
    /** Local copy of the CQ head; the kernel reads ours, we own it. */
    private int cqLocalHead;

    private int enterFd;
    private int enterFlags;
    private int registeredRingIndex = -1;

    private Thread owner;
    private Thread completionOwner;
    private boolean reaping;
    private volatile boolean closed;
    private final Cleaner.Cleanable cleanable;
    /** What the cleaner runs for a ring dropped unclosed: also gives its registered index back (see {@link Release}). */
    private final Release release;

    // ------------------------------------------------------------------------------------------------ setup

    /** Options for {@link #open(Options)}. */
    public static Options options() {
        return new Options();
    }

    /** A ring of {@code entries} SQEs with default options. */
    public static IoUring open(int entries) throws UringException {
        return open(options().entries(entries));
    }

    public static IoUring open(Options options) throws UringException {
        return new IoUring(options.copy());
    }

    private IoUring(Options o) throws UringException {
        if (issuerBound(o.flags) && Thread.currentThread().isVirtual()) {
            throw new IllegalStateException(issuerMessage("opened on a virtual thread"));
        }
        RingMemory m = new RingMemory(o);
        this.sys = m.sys;
        this.ringFd = m.ringFd;
        this.flags = m.flags;
        this.features = m.features;
        this.sqEntries = m.sqEntries;
        this.cqEntries = m.cqEntries;
        this.sqRing = m.sqRing;
        this.cqRing = m.cqRing;
        this.sqHead = m.sqHead;
        this.sqTail = m.sqTail;
        this.sqFlags = m.sqFlags;
        this.sqDropped = m.sqDropped;
        this.sqMask = m.sqMask;
        this.cqHead = m.cqHead;
        this.cqTail = m.cqTail;
        this.cqOverflow = m.cqOverflow;
        this.cqes = m.cqes;
        this.cqMask = m.cqMask;
        this.sqeShift = m.sqeShift;
        this.cqeShift = m.cqeShift;
        this.waitArg = m.waitArg;
        this.waitTs = m.waitTs;
        this.probe = m.probe;
        this.supported = probe.known() ? probe.table() : null;
        this.mappings = new long[] {m.sqRingAddr, m.sqRingLen, m.cqRingAddr, m.cqRingLen, m.sqesAddr, m.sqesLen};
        this.sqeTail = (int) INT.getAcquire(sqRing, sqTail);
        this.publishedTail = sqeTail;
        this.cqLocalHead = (int) INT.getAcquire(cqRing, cqHead);
        this.enterFd = ringFd;
        this.owner = Thread.currentThread();
        this.completionOwner = owner;
        this.registrar = new Registrar(this, sys, ringFd);
        this.sqe = new Sqe(this, m.sqes);
        Cleaner c;
        try {
            c = cleaner();
        } catch (OutOfMemoryError | RuntimeException noThread) {
            m.release.run(); // the ring's descriptor and mappings: nobody else will release them
            throw noThread;
        }
        this.release = new Release(m.release);
        this.cleanable = c.register(this, release);
    }

    /** The setup flags of {@link SetupFlag}: those whose rings this library lays out and uses as the kernel does. */
    private static final int KNOWN_SETUP_FLAGS = SetupFlag.IOPOLL | SetupFlag.SQPOLL | SetupFlag.SQ_AFF
            | SetupFlag.CQSIZE | SetupFlag.CLAMP | SetupFlag.ATTACH_WQ | SetupFlag.R_DISABLED | SetupFlag.SUBMIT_ALL
            | SetupFlag.COOP_TASKRUN | SetupFlag.TASKRUN_FLAG | SetupFlag.SQE128 | SetupFlag.CQE32
            | SetupFlag.SINGLE_ISSUER | SetupFlag.DEFER_TASKRUN | SetupFlag.NO_SQARRAY;

    /** Options for {@link IoUring#open(Options)}; each flag reaches {@code io_uring_setup} as given. */
    public static final class Options {
        int entries = 128;
        int cqEntries;
        int flags;
        int sqThreadIdleMillis;
        int sqThreadCpu = -1;
        int attachWqFd = -1;
        Syscalls syscalls = Syscalls.system();

        Options() {
        }

        /** SQ size; the kernel rounds it up to a power of two (and with {@link SetupFlag#CLAMP} clamps it). */
        public Options entries(int entries) {
            if (entries <= 0) {
                throw new IllegalArgumentException("entries must be positive: " + entries);
            }
            this.entries = entries;
            return this;
        }

        /** CQ size (sets {@code IORING_SETUP_CQSIZE}); default twice the SQ. */
        public Options cqEntries(int cqEntries) {
            if (cqEntries <= 0) {
                throw new IllegalArgumentException("cqEntries must be positive: " + cqEntries);
            }
            this.cqEntries = cqEntries;
            return this;
        }

        /**
         * {@code IORING_SETUP_*} bits ({@link SetupFlag}), passed to the kernel unchanged. Bits this library does not
         * know are refused ({@link IllegalArgumentException}): some change the rings' layout (a ring set up with
         * {@code IORING_SETUP_CQE_MIXED} posted completions this library read as two each) or want memory it does
         * not give ({@code NO_MMAP}, {@code REGISTERED_FD_ONLY}).
         */
        public Options flags(int setupFlags) {
            int unknown = setupFlags & ~KNOWN_SETUP_FLAGS;
            if (unknown != 0) {
                throw new IllegalArgumentException("io_uring setup flags 0x" + Integer.toHexString(unknown)
                        + " are not supported by uring4j (its SetupFlag constants are)");
            }
            this.flags = setupFlags;
            return this;
        }

        /** Adds {@code IORING_SETUP_SQPOLL}: a kernel thread submits, sleeping after {@code idleMillis} idle. */
        public Options sqPoll(int idleMillis) {
            if (idleMillis < 0) {
                throw new IllegalArgumentException("sqPoll idle time must be 0 or more milliseconds: " + idleMillis);
            }
            this.flags |= Uapi.IORING_SETUP_SQPOLL;
            this.sqThreadIdleMillis = idleMillis;
            return this;
        }

        /** Pins the SQPOLL thread to {@code cpu} ({@code IORING_SETUP_SQ_AFF}); {@code cpu} is a CPU number, 0 or more. */
        public Options sqThreadCpu(int cpu) {
            if (cpu < 0) {
                throw new IllegalArgumentException("sqThreadCpu must be a CPU number (0 or more): " + cpu);
            }
            this.sqThreadCpu = cpu;
            return this;
        }

        /**
         * Shares {@code other}'s async worker pool ({@code IORING_SETUP_ATTACH_WQ}).
         *
         * @throws IllegalStateException when {@code other} is closed (its descriptor number may already name
         *                               another ring)
         */
        public Options attachWq(IoUring other) {
            if (!other.isOpen()) {
                throw new IllegalStateException("attachWq: " + other + " is closed");
            }
            this.attachWqFd = other.ringFd;
            return this;
        }

        /** The system-call layer; tests pass one that injects failures. */
        Options syscalls(Syscalls syscalls) {
            this.syscalls = Objects.requireNonNull(syscalls);
            return this;
        }

        Options copy() {
            Options o = new Options();
            o.entries = entries;
            o.cqEntries = cqEntries;
            o.flags = flags;
            o.sqThreadIdleMillis = sqThreadIdleMillis;
            o.sqThreadCpu = sqThreadCpu;
            o.attachWqFd = attachWqFd;
            o.syscalls = syscalls;
            return o;
        }
    }

    // ------------------------------------------------------------------------------------------------ facts

    /** {@code IORING_FEAT_*} bits ({@link Feature}) the kernel reported. */
    public int features() {
        checkOpen();
        return features;
    }

    /** The setup flags the ring was made with. */
    public int setupFlags() {
        return flags;
    }

    /** Opcodes the kernel supports. */
    public Probe probe() {
        checkOpen();
        return probe;
    }

    public int sqEntries() {
        return sqEntries;
    }

    public int cqEntries() {
        return cqEntries;
    }

    /** The ring's file descriptor (for {@link Sqe#msgRing} and {@link Options#attachWq}). */
    public int fd() {
        checkOpen();
        return ringFd;
    }

    /** Completions the kernel dropped because the CQ was full (stays 0 on kernels with {@link Feature#NODROP}). */
    public int cqOverflowCount() {
        checkOpen();
        return (int) INT.getAcquire(cqRing, cqOverflow);
    }

    /** Invalid SQEs the kernel skipped. */
    public int sqDroppedCount() {
        checkOpen();
        return (int) INT.getAcquire(sqRing, sqDropped);
    }

    /** {@code sq_ring->flags} ({@code IORING_SQ_*}), read with a full fence before it as the kernel requires. */
    public int sqFlags() {
        checkOpen();
        VarHandle.fullFence();
        return (int) INT.getVolatile(sqRing, sqFlags);
    }

    // ------------------------------------------------------------------------------------------------ SQ side

    /** SQEs that can still be prepared before a submit. */
    public int sqSpaceLeft() {
        checkOwner();
        return sqEntries - (sqeTail - (int) INT.getAcquire(sqRing, sqHead));
    }

    /** Prepared SQEs not yet handed to the kernel by {@link #submit()}. */
    public int sqPending() {
        checkOwner();
        return sqeTail - publishedTail;
    }

    /**
     * The next free SQE: the same {@link Sqe} object each time, positioned on the next free entry. The entry is
     * claimed only when an encoder ({@link Sqe#read}, {@link Sqe#nop}, ...) has written all of it; if anything
     * throws before that (an argument the encoder refuses, or the caller's own code computing an argument), nothing
     * is claimed and nothing reaches the kernel. Each entry needs its own {@code nextSqe()}.
     *
     * @throws SubmissionQueueFullException when every SQE is taken ({@link #trySqe()} returns null instead)
     */
    public Sqe nextSqe() {
        Sqe s = trySqe();
        if (s == null) {
            throw new SubmissionQueueFullException(sqEntries);
        }
        return s;
    }

    /** Like {@link #nextSqe()}, but null when the SQ is full. */
    public Sqe trySqe() {
        checkOwner();
        int tail = sqeTail;
        // Acquire: with SQPOLL the kernel thread moves the head; entries before it may be reused.
        int head = (int) INT.getAcquire(sqRing, sqHead);
        if (tail - head >= sqEntries) {
            return null;
        }
        sqe.arm(((long) (tail & sqMask)) << sqeShift);
        return sqe;
    }

    /** An encoder finished writing the armed entry: it becomes part of the next submission. */
    void claim() {
        sqeTail++;
    }

    /** Gives back the entry claimed last, when a modifier refused its argument after the encoder ran. */
    void unclaimLast() {
        if (sqeTail != publishedTail) {
            sqeTail--;
        }
    }

    /**
     * Checks that {@code [address, address + length)} lies inside registered buffer {@code index}: the kernel would
     * otherwise read or write wherever the address points.
     */
    void checkFixedRange(long address, long length, int index) {
        registrar.checkFixedRange(address, length, index);
    }

    boolean opSupported(int opcode) {
        return supported == null || supported[opcode];
    }

    /** Publishes prepared SQEs and tells the kernel; returns how many were submitted. */
    public int submit() throws UringException {
        return submit(0, false);
    }

    /** Submits and waits until at least {@code waitNr} completions are ready. */
    public int submitAndWait(int waitNr) throws UringException {
        return submit(waitNr, waitNr > 0);
    }

    private int submit(int waitNr, boolean getEvents) throws UringException {
        checkOwner();
        sqe.disarm();
        int tail = sqeTail;
        int flushed = tail - publishedTail;
        if (flushed != 0) {
            // Release: the SQE contents written above must be visible before the kernel sees the new tail.
            INT.setRelease(sqRing, sqTail, tail);
            publishedTail = tail;
        }
        int enter = enterFlags;
        boolean needEnter;
        int sqf;
        if ((flags & Uapi.IORING_SETUP_SQPOLL) != 0) {
            // Full fence: the tail store must be ordered before the NEED_WAKEUP load, or the kernel thread may go to
            // sleep having missed our new entries while we miss its flag.
            VarHandle.fullFence();
            sqf = (int) INT.getVolatile(sqRing, sqFlags);
            needEnter = (sqf & Uapi.IORING_SQ_NEED_WAKEUP) != 0;
            if (needEnter) {
                enter |= Uapi.IORING_ENTER_SQ_WAKEUP;
            }
        } else {
            sqf = (int) INT.getAcquire(sqRing, sqFlags);
            needEnter = flushed != 0 || tail != (int) INT.getAcquire(sqRing, sqHead);
        }
        boolean cqFlush = (sqf & (Uapi.IORING_SQ_CQ_OVERFLOW | Uapi.IORING_SQ_TASKRUN)) != 0;
        if (getEvents || cqFlush || (flags & Uapi.IORING_SETUP_IOPOLL) != 0) {
            enter |= Uapi.IORING_ENTER_GETEVENTS;
            needEnter |= getEvents || cqFlush;
        }
        if (!needEnter) {
            return flushed;
        }
        if ((flags & Uapi.IORING_SETUP_SQPOLL) != 0) {
            int r = enter(0, waitNr, enter, MemorySegment.NULL, 0);
            return r < 0 ? r : flushed;
        }
        return enter(-1, waitNr, enter, MemorySegment.NULL, 0);
    }

    /**
     * The one {@code io_uring_enter} site. {@code toSubmit < 0} means "all pending": recomputed from the kernel's
     * head on each attempt, so a retry after {@code EINTR} never submits an entry twice.
     */
    private int enter(int toSubmit, int minComplete, int enterFlags, MemorySegment arg, long argSize)
            throws UringException {
        while (true) {
            int n = toSubmit >= 0 ? toSubmit : sqeTailPublishedPending();
            int r = sys.ioUringEnter(enterFd, n, minComplete, enterFlags, arg, argSize);
            if (r >= 0) {
                return r;
            }
            switch (-r) {
                case Errno.EINTR:
                    continue;
                case Errno.EAGAIN, Errno.EBUSY:
                    // The kernel could not take more now (CQ overflow backlog, out of request memory): nothing
                    // submitted; the caller reaps and retries.
                    return 0;
                case Errno.ETIME:
                    return 0;
                default:
                    throw new UringException("io_uring_enter", -r);
            }
        }
    }

    private int sqeTailPublishedPending() {
        return publishedTail - (int) INT.getAcquire(sqRing, sqHead);
    }

    // ------------------------------------------------------------------------------------------------ CQ side

    /** Completions ready to reap, without entering the kernel. */
    public int cqReady() {
        checkCompletionOwner();
        return (int) INT.getAcquire(cqRing, cqTail) - cqLocalHead;
    }

    /**
     * Hands every ready completion to {@code handler}, without blocking; flushes an overflowed CQ first when the
     * kernel says one is pending. Returns the number handled.
     */
    public int reap(CqeHandler handler) throws UringException {
        return reap(handler, Integer.MAX_VALUE);
    }

    /**
     * As {@link #reap(CqeHandler)}, at most {@code max} completions.
     *
     * @throws NullPointerException     for a null handler, before any completion is taken
     * @throws IllegalArgumentException for a negative {@code max}
     */
    public int reap(CqeHandler handler, int max) throws UringException {
        java.util.Objects.requireNonNull(handler, "handler"); // a null one took the first completion with it
        if (max < 0) {
            throw new IllegalArgumentException("max is negative: " + max);
        }
        checkCompletionOwner();
        if (reaping) {
            throw new IllegalStateException("reap() called while a reap() of this ring is running (from inside a"
                    + " CqeHandler, or while the handler of the thread that handed the ring over still runs)");
        }
        int total = reapReady(handler, max);
        if (total < max) {
            int sqf = (int) INT.getAcquire(sqRing, sqFlags);
            if ((sqf & (Uapi.IORING_SQ_CQ_OVERFLOW | Uapi.IORING_SQ_TASKRUN)) != 0 && Thread.currentThread() == owner) {
                // Completions wait in the kernel's overflow list (or as task work): a GETEVENTS enter posts them.
                enter(0, 0, enterFlags | Uapi.IORING_ENTER_GETEVENTS, MemorySegment.NULL, 0);
                total += reapReady(handler, max - total);
            }
        }
        return total;
    }

    private int reapReady(CqeHandler handler, int max) {
        int head = cqLocalHead;
        // Acquire: CQE contents are visible once we see the tail that covers them.
        int tail = (int) INT.getAcquire(cqRing, cqTail);
        int n = 0;
        reaping = true;
        try {
            while (head != tail && n < max) {
                long base = cqes + (((long) (head & cqMask)) << cqeShift);
                long ud;
                int res;
                int f;
                try {
                    ud = cqRing.get(JAVA_LONG, base + IoUringCqe.USER_DATA);
                    res = cqRing.get(JAVA_INT, base + IoUringCqe.RES);
                    f = cqRing.get(JAVA_INT, base + IoUringCqe.FLAGS);
                } catch (IllegalStateException unmapped) {
                    // the owner closed the ring under a reaper of another thread (bindCompletionsTo)
                    throw closed ? new IllegalStateException("io_uring ring is closed", unmapped) : unmapped;
                }
                head++;
                n++;
                handler.handle(ud, res, f);
            }
        } finally {
            reaping = false;
            if (n > 0) {
                cqLocalHead = head;
                // Release, once per batch: the kernel may reuse these slots once it sees the new head.
                if (!closed || cqRing.scope().isAlive()) {
                    try {
                        INT.setRelease(cqRing, cqHead, head);
                    } catch (IllegalStateException unmapped) {
                        // closed meanwhile by the owner: nothing to tell the kernel any more
                    }
                }
            }
        }
        return n;
    }

    /**
     * Waits until {@code n} completions are ready or {@code timeoutNanos} pass (a negative timeout waits without
     * limit). Returns the number ready. Uses {@code IORING_ENTER_EXT_ARG}.
     */
    public int waitCompletions(int n, long timeoutNanos) throws UringException {
        checkOwner();
        int ready = (int) INT.getAcquire(cqRing, cqTail) - cqLocalHead;
        if (ready >= n) {
            return ready;
        }
        if (timeoutNanos < 0) {
            enter(0, n, enterFlags | Uapi.IORING_ENTER_GETEVENTS, MemorySegment.NULL, 0);
        } else {
            if ((features & Uapi.IORING_FEAT_EXT_ARG) == 0) {
                throw new UnsupportedOperationException("timed wait needs IORING_FEAT_EXT_ARG (Linux 5.11)");
            }
            waitTs.set(JAVA_LONG, KernelTimespec.TV_SEC, timeoutNanos / 1_000_000_000L);
            waitTs.set(JAVA_LONG, KernelTimespec.TV_NSEC, timeoutNanos % 1_000_000_000L);
            waitArg.set(JAVA_LONG, IoUringRsrc.GETEVENTS_SIGMASK, 0L);
            waitArg.set(JAVA_INT, IoUringRsrc.GETEVENTS_SIGMASK_SZ, KERNEL_SIGSET_SIZE);
            waitArg.set(JAVA_LONG, IoUringRsrc.GETEVENTS_TS, waitTs.address());
            enter(0, n, enterFlags | Uapi.IORING_ENTER_GETEVENTS | Uapi.IORING_ENTER_EXT_ARG, waitArg,
                    IoUringRsrc.GETEVENTS_ARG.byteSize());
        }
        return (int) INT.getAcquire(cqRing, cqTail) - cqLocalHead;
    }

    // ------------------------------------------------------------------------------------------------ registration

    /** Registers {@code fds} as the fixed file table: slot i is {@code fds[i]} ({@code -1} leaves it empty). */
    public void registerFiles(int... fds) throws UringException {
        java.util.Objects.requireNonNull(fds, "fds");
        registrar.files(fds);
    }

    /**
     * Registers an empty fixed file table of {@code count} slots ({@code IORING_RSRC_REGISTER_SPARSE}, 5.19).
     *
     * @throws IllegalArgumentException when {@code count} is not positive (the kernel reads it as unsigned and says
     *                                  {@code EMFILE}, as if too many were asked)
     */
    public void registerFilesSparse(int count) throws UringException {
        if (count <= 0) {
            throw new IllegalArgumentException("a sparse file table needs at least one slot: " + count);
        }
        registrar.filesSparse(count);
    }

    /**
     * Replaces slots {@code offset..offset+fds.length-1} of the fixed file table ({@code -1} empties a slot,
     * {@code -2} skips it). Operations already submitted keep the file they were issued against. Returns the
     * number of slots updated.
     */
    public int updateFiles(int offset, int... fds) throws UringException {
        java.util.Objects.requireNonNull(fds, "fds");
        return registrar.updateFiles(offset, fds);
    }

    public void unregisterFiles() throws UringException {
        registrar.unregisterFiles();
    }

    /**
     * Registers {@code buffers} for {@link Sqe#readFixed}/{@link Sqe#writeFixed}: buffer i is index i. The kernel
     * pins the pages; they count against the locked-memory limit.
     */
    public void registerBuffers(MemorySegment... buffers) throws UringException {
        java.util.Objects.requireNonNull(buffers, "buffers");
        registrar.buffers(buffers);
    }

    /**
     * A registered-buffer table of {@code count} empty slots (at most 16384; kernel 5.19+), filled and emptied one
     * range at a time with {@link #updateBuffers}, so that several independent sets of buffers can come and go
     * without unregistering the others.
     */
    public void registerBuffersSparse(int count) throws UringException {
        registrar.buffersSparse(count);
    }

    /**
     * Puts {@code buffers} into the registered-buffer slots from {@code offset} on, replacing what they held; an
     * empty segment ({@link MemorySegment#NULL}) empties its slot. The kernel keeps a replaced buffer pinned until
     * the operations already using it complete. When the kernel refuses one (the locked-memory limit, most often), the
     * slots this call filled are left empty and the error thrown.
     */
    public void updateBuffers(int offset, MemorySegment... buffers) throws UringException {
        registrar.updateBuffers(offset, buffers);
    }

    public void unregisterBuffers() throws UringException {
        registrar.unregisterBuffers();
    }

    /** Signals {@code eventFd} on each completion. */
    public void registerEventFd(int eventFd) throws UringException {
        registrar.eventFd(eventFd);
    }

    public void unregisterEventFd() throws UringException {
        registrar.unregisterEventFd();
    }

    /**
     * Registers the ring's own descriptor (5.18): later {@code io_uring_enter} calls pass its index instead of the
     * fd and skip the fd-table lookup. Returns the index. The index is the calling thread's (a table of 16 per
     * thread): {@link #handOff} and {@link #close()} on the owner's thread unregister it again.
     */
    public int registerRingFd() throws UringException {
        checkOwner();
        if (registeredRingIndex >= 0) {
            return registeredRingIndex;
        }
        if (Thread.currentThread().isVirtual()) {
            // the kernel's table is the carrier thread's: after the virtual thread moved to another carrier, its
            // enters used another thread's index (EBADF, or another ring's entries)
            throw new IllegalStateException("registerRingFd() on a virtual thread: the kernel registers ring"
                    + " descriptors per OS thread, and a virtual thread moves between carrier threads");
        }
        Orphans orphans = ORPHANS.get();
        giveBack(orphans);
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment u = tmp.allocate(IoUringRsrc.RSRC_UPDATE2);
            u.set(JAVA_INT, IoUringRsrc.RSRC_UPDATE2_OFFSET, -1); // any free slot
            u.set(JAVA_LONG, IoUringRsrc.RSRC_UPDATE2_DATA, ringFd);
            int n = registrar.register("IORING_REGISTER_RING_FDS", Uapi.IORING_REGISTER_RING_FDS, u, 1);
            if (n != 1) {
                throw new UringException("IORING_REGISTER_RING_FDS", Errno.EINVAL);
            }
            registeredRingIndex = u.get(JAVA_INT, IoUringRsrc.RSRC_UPDATE2_OFFSET);
            release.registered(orphans, registeredRingIndex);
            enterFd = registeredRingIndex;
            enterFlags |= Uapi.IORING_ENTER_REGISTERED_RING;
            return registeredRingIndex;
        }
    }

    /**
     * Registered ring indexes of one thread whose rings were dropped unclosed. The index is in the kernel's table of
     * that thread, which only it can change, and the registration holds the ring (its memory, its locked pages) until
     * the thread ends: the cleaner that releases such a ring leaves its index here, and the thread's next
     * {@link #registerRingFd()} gives it back (before, a thread's 17th registration said {@code EBUSY} once 16 rings
     * had been dropped).
     */
    private static final class Orphans extends java.util.concurrent.ConcurrentLinkedQueue<Integer> {
    }

    private static final ThreadLocal<Orphans> ORPHANS = ThreadLocal.withInitial(Orphans::new);

    /** The cleaner's action: the ring's descriptor and mappings, and its registered index to its thread's orphans. */
    private static final class Release implements Runnable {
        private final Runnable unmap;
        private volatile Orphans orphans;
        private volatile int index = -1;

        Release(Runnable unmap) {
            this.unmap = unmap;
        }

        void registered(Orphans orphans, int index) {
            this.orphans = orphans;
            this.index = index;
        }

        @Override
        public void run() {
            Orphans o = orphans;
            int i = index;
            if (o != null && i >= 0) {
                o.add(i);
            }
            unmap.run();
        }
    }

    /** Unregisters the indexes of this thread's rings that were dropped unclosed. */
    private void giveBack(Orphans orphans) {
        for (Integer i; (i = orphans.poll()) != null; ) {
            try (Arena tmp = Arena.ofConfined()) {
                MemorySegment u = tmp.allocate(IoUringRsrc.RSRC_UPDATE2);
                u.set(JAVA_INT, IoUringRsrc.RSRC_UPDATE2_OFFSET, i);
                registrar.register("IORING_UNREGISTER_RING_FDS", Uapi.IORING_UNREGISTER_RING_FDS, u, 1);
            } catch (UringException e) {
                // already gone: nothing to give back
            }
        }
    }

    /**
     * Gives the registered index back ({@code IORING_UNREGISTER_RING_FDS}) and enters by descriptor again. Owner's
     * thread only: the index is in its table. Before, a ring handed to another thread entered with an index of the
     * old owner's table (EINVAL, or another ring's entries when the new owner had registered one of its own there),
     * and closed rings kept their slots until the thread ended: the 17th registration said EBUSY.
     */
    private void unregisterRingFd() {
        int index = registeredRingIndex;
        if (index < 0) {
            return;
        }
        registeredRingIndex = -1;
        release.registered(null, -1);
        enterFd = ringFd;
        enterFlags &= ~Uapi.IORING_ENTER_REGISTERED_RING;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment u = tmp.allocate(IoUringRsrc.RSRC_UPDATE2);
            u.set(JAVA_INT, IoUringRsrc.RSRC_UPDATE2_OFFSET, index);
            registrar.register("IORING_UNREGISTER_RING_FDS", Uapi.IORING_UNREGISTER_RING_FDS, u, 1);
        } catch (UringException e) {
            // the slot stays taken until the thread ends; the ring itself enters by descriptor from now on
        }
    }

    /**
     * Caps the io-wq workers (bounded: disk I/O; unbounded: everything else) and returns the previous limits;
     * 0 leaves a limit as it is.
     */
    public int[] setIoWqMaxWorkers(int bounded, int unbounded) throws UringException {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment v = tmp.allocateFrom(JAVA_INT, bounded, unbounded);
            registrar.register("IORING_REGISTER_IOWQ_MAX_WORKERS", Uapi.IORING_REGISTER_IOWQ_MAX_WORKERS, v, 2);
            return new int[] {v.getAtIndex(JAVA_INT, 0), v.getAtIndex(JAVA_INT, 1)};
        }
    }

    // ------------------------------------------------------------------------------------------------ threads, close

    /**
     * Gives the ring to {@code newOwner}; only the current owner may call this. A thread that has ended is refused
     * ({@link IllegalArgumentException}): nothing could use the ring after it but {@link #close()}.
     */
    public void handOff(Thread newOwner) {
        checkOwner();
        Objects.requireNonNull(newOwner, "newOwner");
        if (newOwner.getState() == Thread.State.TERMINATED) {
            throw new IllegalArgumentException("cannot hand the ring to " + newOwner + ": the thread has ended");
        }
        if (issuerBound(flags) && newOwner != owner) {
            throw new IllegalStateException(issuerMessage("handed to another thread"));
        }
        unregisterRingFd(); // its index is this thread's
        boolean cqFollows = completionOwner == owner;
        owner = newOwner;
        if (cqFollows) {
            completionOwner = newOwner;
        }
    }

    /**
     * Lets {@code reaper} (and only it) reap completions while the owner keeps submitting. The reaper never enters
     * the kernel; the owner's {@link #submit()} flushes an overflowed CQ.
     */
    public void bindCompletionsTo(Thread reaper) {
        checkOwner();
        Objects.requireNonNull(reaper, "reaper");
        if (reaper.getState() == Thread.State.TERMINATED) {
            throw new IllegalArgumentException("cannot bind completions to " + reaper + ": the thread has ended");
        }
        if ((flags & SetupFlag.DEFER_TASKRUN) != 0 && reaper != owner) {
            // the kernel runs a DEFER_TASKRUN ring's deferred work (the completions of operations that waited) only
            // when the submitter enters to wait for completions: another thread's reap would never see them
            throw new IllegalStateException("a DEFER_TASKRUN ring's completions cannot be reaped by another thread:"
                    + " they are posted only when its submitter waits for them");
        }
        completionOwner = reaper;
    }

    /**
     * Whether the kernel ties the ring to the OS thread that set it up ({@code SINGLE_ISSUER}, which
     * {@code DEFER_TASKRUN} needs, without {@code SQPOLL}): any other thread's {@code io_uring_enter} gets
     * {@code EEXIST}.
     */
    private static boolean issuerBound(int setupFlags) {
        return (setupFlags & (SetupFlag.SINGLE_ISSUER | SetupFlag.DEFER_TASKRUN)) != 0
                && (setupFlags & SetupFlag.SQPOLL) == 0;
    }

    private static String issuerMessage(String what) {
        return "a SINGLE_ISSUER or DEFER_TASKRUN ring cannot be " + what + ": the kernel ties it to the OS thread"
                + " that set it up, and refuses every other (EEXIST); use a platform thread, or a ring without those"
                + " flags";
    }

    /** Throws unless the calling thread owns the ring and it is open. */
    void checkOwner() {
        if (closed) {
            throw new IllegalStateException("io_uring ring is closed");
        }
        if (Thread.currentThread() != owner) {
            throw new WrongThreadException("io_uring ring is owned by " + owner + ", not " + Thread.currentThread());
        }
    }

    private void checkCompletionOwner() {
        if (closed) {
            throw new IllegalStateException("io_uring ring is closed");
        }
        if (Thread.currentThread() != completionOwner) {
            throw new WrongThreadException("io_uring completions are reaped by " + completionOwner + ", not "
                    + Thread.currentThread());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("io_uring ring is closed");
        }
    }

    public boolean isOpen() {
        return !closed;
    }

    /**
     * Unmaps the rings with the lengths they were mapped with and closes the descriptor; the kernel cancels what
     * is still in flight. A second call does nothing. Only the owner may close the ring, or any thread once the
     * owner has ended.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        Thread o = owner;
        if (Thread.currentThread() != o && o.isAlive()) {
            throw new WrongThreadException("io_uring ring is owned by " + o + ", not " + Thread.currentThread());
        }
        if (reaping) {
            // reap() goes on reading the completion queue and moving its head after the handler returns
            throw new IllegalStateException("close() called while a reap() of this ring is running (from inside a"
                    + " CqeHandler, or while the handler of the thread that handed the ring over still runs): close"
                    + " the ring after reap() returns");
        }
        if (Thread.currentThread() == o) {
            unregisterRingFd();
        }
        closed = true;
        cleanable.clean();
    }

    /** The mappings as {address, length} pairs: SQ ring, CQ ring (same as SQ with SINGLE_MMAP), SQEs. For tests. */
    long[] mappings() {
        return mappings.clone();
    }

    @Override
    public String toString() {
        return "IoUring[fd=" + ringFd + ", sq=" + sqEntries + ", cq=" + cqEntries + ", flags=0x"
                + Integer.toHexString(flags) + (closed ? ", closed" : "") + "]";
    }
}
