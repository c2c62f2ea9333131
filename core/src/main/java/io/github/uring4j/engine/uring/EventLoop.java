package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.FullHeap;
import io.github.uring4j.engine.Log;
import io.github.uring4j.engine.MpscQueue;
import io.github.uring4j.engine.Request;
import io.github.uring4j.linux.InternalAccess;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.Opcode;
import io.github.uring4j.ring.SetupFlag;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.AsynchronousCloseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One event loop: a thread that owns one ring. Other threads hand it requests and messages through an MPSC queue
 * and wake it through {@link Wakeup}; requests issued on this thread (from a completion) skip the queue. Each
 * request in flight holds a {@link Slot}; {@link Encoder} writes its entries, {@link Completions} acts on its
 * results, {@link Closer} runs the close of a file, {@link SyncOrder} keeps syncs behind the changes they cover.
 * This class is the thread: intake, the submit/reap cycle, and how it waits.
 *
 * <p>Everything but {@link #enqueue}, {@link #enqueueMessage}, {@link #beginShutdown()} and {@link #stats} runs on
 * the loop thread only.
 */
final class EventLoop implements Runnable {
    /** The ASYNC_CANCEL of everything at shutdown: its own result matters to nobody. */
    private static final long CANCEL_ALL = -2L;

    final UringBackend backend;
    final int index;
    final String name;
    final EngineConfig config;
    final Syscalls sys;
    private final MpscQueue queue = new MpscQueue();
    private final Object terminationLock = new Object();
    final CompletableFuture<Void> started = new CompletableFuture<>();
    final CompletableFuture<Void> terminated = new CompletableFuture<>();
    volatile boolean closing;
    private volatile boolean dead;
    /** Why the loop failed, for the requests that reach it afterwards; null while healthy. */
    private volatile String failure;
    /** What {@link #failure} says once the loop failed, made beforehand: with the heap full, nothing may be made. */
    private final String deadMessage;
    /** The steps of the loop thread's end, made beforehand for the same reason. */
    private final Runnable leaveRunning;
    private final Runnable closeFiles;
    private final Runnable freeAll;
    private final Runnable freeButScratch;
    private final Runnable terminating;
    /**
     * Slots of loops that failed with requests in the kernel: the kernel may still write into their memory, so it
     * stays reachable for the life of the process. Only a failed loop adds here.
     */
    private static final java.util.List<Object> KEPT_FOR_THE_KERNEL = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** What the loop counts, for any thread to read. */
    final LoopStats stats = new LoopStats();
    Thread thread;
    /** Whether {@link #run} was entered on {@link #thread}: it runs once. */
    private final java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
    /** The last other thread that called {@link #run} (a thread factory that ran the Runnable itself too), refused. */
    volatile Thread refused;
    /** Turns of the loop, and whether it sleeps in the kernel now: for {@link LoopWatchdog} (opaque access). */
    private long turns;
    private boolean asleep;
    private static final java.lang.invoke.VarHandle TURNS;
    private static final java.lang.invoke.VarHandle ASLEEP;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            TURNS = l.findVarHandle(EventLoop.class, "turns", long.class);
            ASLEEP = l.findVarHandle(EventLoop.class, "asleep", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static {
        FullHeap.loadNow(); // a loop failing under a full heap waits there: not the time to load it
    }

    /** Loops whose thread runs, for the JVM's exit ({@link #exiting}). */
    private static final Set<EventLoop> RUNNING = ConcurrentHashMap.newKeySet();
    /**
     * The JVM is exiting: an idle loop naps in Java instead of sleeping in {@code io_uring_enter}. HotSpot's exit waits
     * for threads in native code to leave it, up to 300 ms for threads of the program's: a loop asleep in the kernel
     * made every program that had started one (the provider starts the default executor) exit 300 ms late. Measured
     * with {@code uring4j-bench startup} (fresh JVMs, 500 ms of the program's own work, then a read and a write): the
     * whole run took 887 ms on the provider against 574 ms on the JDK's; the VM thread ended 300 ms after the last
     * hook. A napping loop still takes requests made during the exit (another shutdown hook's writes), within a
     * millisecond.
     */
    private static volatile boolean exiting;
    /** Guards {@link #RUNNING}'s changes and the exit hook, which is registered only while a loop runs. */
    private static final Object HOOK_LOCK = new Object();
    /** The exit hook (made once, registered while loops run); null until the first loop. Guarded by HOOK_LOCK. */
    private static Thread exitHook;
    private static boolean hooked;
    /**
     * How long an idle loop naps at a time while the JVM exits: a request ends the nap at once (its wake-up unparks the
     * loop). Naps of 1 ms, each ended by its time, kept two cores busy with 2,048 loops and their JVM from exiting
     * for minutes.
     */
    static final long EXIT_NAP_NANOS = 50_000_000L;

    /**
     * This loop's thread runs: it is counted for the exit, and the exit hook is registered while any loop runs. When
     * the last loop ends the hook is removed: a hook registered for good kept the class loader of a web application
     * that bundles the library from being unloaded after it closed everything.
     */
    private void enterRunning() {
        synchronized (HOOK_LOCK) {
            RUNNING.add(this);
            if (hooked) {
                return;
            }
            if (exitHook == null) {
                exitHook = io.github.uring4j.engine.LibraryThreads.shared("uring4j-loops-exit", new Runnable() {
                    @Override
                    public void run() {
                        atExit();
                    }
                });
            }
            try {
                Runtime.getRuntime().addShutdownHook(exitHook);
                hooked = true;
            } catch (IllegalStateException e) {
                exiting = true; // the JVM is exiting already
            }
        }
    }

    /** This loop's thread ends; the last one to end removes the exit hook. */
    private void leaveRunning() {
        synchronized (HOOK_LOCK) {
            RUNNING.remove(this);
            if (hooked && RUNNING.isEmpty()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(exitHook);
                    hooked = false;
                } catch (IllegalStateException e) {
                    // the JVM is exiting: the hook runs (or ran) and stays registered
                }
            }
        }
    }

    private static void atExit() {
        exiting = true;
        for (EventLoop l : RUNNING) {
            if (l.insideExit()) {
                l.stuckInExit();
            } else {
                l.wakeup.wake();
            }
        }
    }

    /** Whether this loop's thread is the one that called {@code System.exit} (from code the loop ran). */
    private boolean insideExit() {
        Thread t = thread;
        if (t == null || t == Thread.currentThread()) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().equals("java.lang.Shutdown")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The loop's thread is inside {@code System.exit}, waiting for the shutdown hooks, and takes no more work: what
     * waits for it fails now, and so does every later request (a hook's write to a file of this loop waited for
     * ever, and so did the JVM's exit).
     */
    private void stuckInExit() {
        failure = "uring4j event loop " + name + " is inside System.exit (called from a completion or continuation"
                + " it ran) and takes no more work";
        synchronized (terminationLock) {
            dead = true;
            abandonQueued();
        }
    }

    // ------------------------------------------------------------------------------------------ loop thread
    IoUring ring;
    private Arena arena;
    Wakeup wakeup;
    SlotTable slots;
    Encoder encoder;
    Completions completions;
    SyncOrder syncOrder;
    Closer closer;
    Cancels cancels;
    InlineWrites inline;
    /** Which whole-file reads read on after a short read. */
    ShortReads shortReads;
    Deadlines deadlines;
    /** Completions still to come for entries already prepared. */
    long expected;
    /** Requests issued on this thread, in order. */
    private final ArrayDeque<Request> local = new ArrayDeque<>();
    /** Slots whose next entries wait for room in the SQ. */
    private final ArrayDeque<Slot> retries = new ArrayDeque<>();
    /** Files with requests or waiting requests on this loop. */
    final ArrayList<UringFile> touched = new ArrayList<>();
    /**
     * O_DIRECT requests let in by completions are submitted this many at a time while the completions are still
     * being handled, not after all of them. It matters where the kernel holds no more than the device takes (no I/O
     * scheduler: the budget is the driver's tags): with a budget of 128 on the development machine's disk, waking
     * the threads of a large batch of completions kept it short of work, and 10,000 virtual threads ran at 0.88 times
     * the JDK's rate (mean of four runs) against 1.03 this way. With the scheduler's 256 the kernel refills the disk
     * by itself and it made no difference (0.93 against 0.91).
     */
    static final int REFILL_BATCH = 8;
    /** A submission of refills failed while completions were handled: the loop throws it after the reap. */
    private UringException refillFailure;
    /** This loop's O_DIRECT budgets, by device. */
    private final java.util.HashMap<Long, DeviceBudget> budgets = new java.util.HashMap<>();
    /** Files this loop is home to; clients adopt files from any thread, so the set is concurrent. */
    final Set<UringFile> homeFiles = ConcurrentHashMap.newKeySet();
    private boolean cancelAllSent;
    /** IORING_OP_FTRUNCATE exists (6.9); before, ftruncate runs off the loop. */
    boolean ftruncateOp;

    EventLoop(UringBackend backend, int index, String name, EngineConfig config) {
        this.backend = backend;
        this.index = index;
        this.name = name;
        this.config = config;
        this.sys = config.syscalls();
        this.deadMessage = "uring4j event loop " + name + " failed";
        this.leaveRunning = this::leaveRunning;
        this.closeFiles = () -> closer.closeAllAtShutdown();
        this.freeAll = () -> free(false);
        this.freeButScratch = () -> free(true);
        this.terminating = this::terminate;
    }

    // ------------------------------------------------------------------------------------------ any thread

    /** Queues a request or message; wakes the loop if it sleeps. A closing loop refuses requests. */
    void enqueue(MpscQueue.Node n) {
        if (closing && n instanceof Request) {
            abandon(n);
            return;
        }
        queue.offer(n);
        if (dead) {
            // The loop is gone: whoever holds the lock drains the queue now.
            synchronized (terminationLock) {
                abandonQueued();
            }
            return;
        }
        wakeup.wake();
    }

    /** Queues a message: a closing loop still runs it (it may carry the end of something in flight). */
    void enqueueMessage(LoopMessage m) {
        enqueue(m);
    }

    /** Starts the shutdown: what is in flight is cancelled, what waits fails. */
    void beginShutdown() {
        closing = true;
        Wakeup w = wakeup;
        if (w != null) {
            w.wake();
        }
    }

    /** Set on every loop's own thread: a close made there must not wait for another executor's loops. */
    private static final ThreadLocal<Boolean> ON_A_LOOP = new ThreadLocal<>();

    /** True on the thread of any event loop, of any executor. */
    static boolean onAnyLoop() {
        return ON_A_LOOP.get() != null;
    }

    /** Turns the loop has made (any thread; {@link LoopWatchdog}). */
    long turns() {
        return (long) TURNS.getOpaque(this);
    }

    /** Whether the loop sleeps in the kernel, waiting for work (any thread; {@link LoopWatchdog}). */
    boolean asleepInKernel() {
        return (boolean) ASLEEP.getOpaque(this);
    }

    /**
     * Says that this loop, which has not turned for {@code nanos}, holds something up: its name, thread and the top
     * of its stack (code of the client's that blocks it, or a system call), and that it does its part when it runs
     * again.
     */
    String heldUp(long nanos) {
        Thread t = thread;
        StringBuilder where = new StringBuilder();
        StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i < Math.min(8, stack.length); i++) {
            where.append("\n\tat ").append(stack[i]);
        }
        boolean releasing = false;
        for (StackTraceElement e : stack) {
            if (e.getClassName().startsWith("io.github.uring4j.")) {
                // the library's own frames first: the loop ends, letting go of its ring and memory
                releasing = e.getMethodName().equals("free") || e.getClassName().endsWith("RingMemory$Release");
                break;
            }
        }
        return "event loop " + name + " (" + t.getName() + ") has not turned for "
                + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos) + " ms, "
                + (releasing ? "releasing its ring's memory (the JVM stops every thread at a handshake for that: it"
                        + " takes long where there are many threads)"
                        : "held by code of yours that waits (a CompletionHandler or a continuation) or by a system"
                        + " call that does not return")
                + "; it does its part when it runs again. It is here:" + where;
    }

    boolean isDead() {
        return dead;
    }

    /** Why the loop failed, or null. */
    String failure() {
        return failure;
    }

    /**
     * The loop failed with {@code t}: its operations are told, then the log says it. With the heap full (an
     * {@code OutOfMemoryError}) the first try may throw again (the thread died in it once, and no operation of the
     * loop was ever told: their callers waited for ever); telling twice is harmless, so it is tried again.
     */
    private void failed(Throwable t) {
        failure = deadMessage; // made when the loop was: the loop counts as failed whatever happens next
        for (int tries = 0;; tries++) { // no lambda here: making one may be what fails
            try {
                KEPT_FOR_THE_KERNEL.add(slots);
                break;
            } catch (OutOfMemoryError again) {
                if (!FullHeap.waitForMemory(tries)) {
                    break;
                }
            }
        }
        for (int tries = 0;; tries++) {
            try {
                String why = "uring4j event loop " + name + " failed: " + t;
                failure = why; // before the operations are told: whoever asks then learns the cause
                IOException e = new IOException(why, t);
                completions.failEverything(e);
                failQueued(() -> e);
                break;
            } catch (OutOfMemoryError again) {
                if (!FullHeap.waitForMemory(tries)) {
                    break;
                }
            }
        }
        try {
            Log.loopFailed(name, t);
        } catch (Throwable logging) {
            // nothing more to say it with: the failure is in every operation's exception
        }
    }

    /**
     * Fails the requests this loop had taken in but not yet into a slot: issued on its thread, waiting for their
     * file's turn, waiting for room on a device (a shutdown's, and a failed loop's: before, a failed loop told only
     * the requests in slots, and a write waiting for its file's turn when the loop's thread met an OutOfMemoryError
     * waited for ever, 1 of 64 once in CI). Each is taken off its queue once told, so that a telling that meets the
     * full heap again is made again.
     */
    private void failQueued(java.util.function.Supplier<? extends Throwable> error) {
        for (Request r; (r = local.peek()) != null; ) {
            r.fail(error.get());
            local.poll();
        }
        for (UringFile f : touched) {
            UringFile.PerLoop p = f.peek(this);
            for (Request r; p != null && (r = p.waiting.peek()) != null; ) {
                r.fail(error.get());
                p.waiting.poll();
                stats.queued(-1);
            }
        }
        for (DeviceBudget b : budgets.values()) {
            for (Request r; (r = b.waiting.peek()) != null; ) {
                r.fail(error.get());
                b.waiting.poll();
                stats.queued(-1);
            }
        }
        failInHand(error);
    }

    /** Runs {@code step}, again after an {@code OutOfMemoryError}, for up to ten seconds. */
    private static void persist(Runnable step) {
        for (int tries = 0;; tries++) {
            try {
                step.run();
                return;
            } catch (OutOfMemoryError e) {
                if (!FullHeap.waitForMemory(tries)) {
                    throw e;
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ the thread

    @Override
    public void run() {
        Thread me = Thread.currentThread();
        if (me != thread || !ran.compareAndSet(false, true)) {
            // A thread factory that also ran the Runnable on a thread of its own (or ran it twice): a second ring on
            // another thread failed the loop's first calls with WrongThreadException and was left open
            if (me != thread) {
                refused = me;
            }
            Thread own = thread;
            throw new IllegalStateException("uring4j: event loop " + name + " runs once, on the thread its"
                    + " executor's thread factory returns" + (own == null ? "" : " (" + own + ")") + "; refused on "
                    + me);
        }
        ON_A_LOOP.set(Boolean.TRUE);
        try {
            init();
        } catch (Throwable t) {
            started.completeExceptionally(t);
            free(false);
            terminate();
            return;
        }
        boolean clean = false;
        try {
            // inside the try: with the heap full these may throw, and the thread died here without telling anyone
            enterRunning();
            started.complete(null);
            loop();
            clean = true;
        } catch (Throwable t) {
            failed(t);
            if (!started.isDone()) {
                try {
                    started.completeExceptionally(t); // a start that failed here is said to build()
                } catch (Throwable again) {
                    // the heap is full: the build waits out its start time and says the loop did not start
                }
            }
            // (before, with the heap full, this completion's allocation threw first and no operation was told)
        } finally {
            // With the heap full, each step may throw again: each is tried until it is done (the steps were made
            // with the loop), since a loop thread that died here left operations untold and a close waiting for ever.
            // A step that still fails after that does not keep the others, and the end of the loop, from running.
            Throwable left = persistQuietly(leaveRunning, null);
            left = persistQuietly(closeFiles, left);
            // After a failure the kernel may still own in-flight memory: leave the scratch arena to the process.
            left = persistQuietly(clean ? freeAll : freeButScratch, left);
            dead = true; // whatever terminate() manages: from now on callers fail their own requests
            left = persistQuietly(terminating, left);
            if (left instanceof Error e) {
                throw e;
            }
            if (left instanceof RuntimeException e) {
                throw e;
            }
        }
    }

    /** {@link #persist}, keeping what it could not get past: the first such throwable of a sequence of steps. */
    private static Throwable persistQuietly(Runnable step, Throwable earlier) {
        try {
            persist(step);
            return earlier;
        } catch (Throwable t) {
            return earlier != null ? earlier : t;
        }
    }

    private void init() throws UringException {
        if ((config.setupFlags & SetupFlag.R_DISABLED) != 0) {
            throw new IllegalArgumentException("SetupFlag.R_DISABLED: an executor's rings must take work at once;"
                    + " leave the flag out");
        }
        // CQ room for a loop's usual load; more overflows into the kernel's backlog (IORING_FEAT_NODROP), which
        // reap() flushes. Ring memory counts against memlock on some kernels.
        long cq = Math.min(65536, 2L * Math.max(config.entries, config.inFlightLimit));
        // Only this thread submits: SINGLE_ISSUER (6.0) lets the kernel skip work for that; older kernels refuse it.
        int flags = config.setupFlags;
        // (not on a virtual thread, which a thread factory may make: the kernel would tie the ring to its carrier)
        boolean virtual = Thread.currentThread().isVirtual();
        boolean addedSingleIssuer = (flags & (SetupFlag.SQPOLL | SetupFlag.SINGLE_ISSUER)) == 0 && !virtual;
        if (addedSingleIssuer) {
            flags |= SetupFlag.SINGLE_ISSUER;
        }
        try {
            ring = openRing(flags, (int) cq);
        } catch (UringException e) {
            if (!addedSingleIssuer || e.errno() != io.github.uring4j.linux.Errno.EINVAL) {
                throw e;
            }
            ring = openRing(config.setupFlags, (int) cq);
        }
        if (!virtual) {
            try {
                ring.registerRingFd(); // 5.18: io_uring_enter skips the ring's descriptor lookup
            } catch (UringException e) {
                // older kernel: enter by descriptor
            }
        }
        if (config.ioWorkers > 0) {
            try {
                ring.setIoWqMaxWorkers(config.ioWorkers, 0); // 5.15; the unbounded limit stays the kernel's
            } catch (UringException e) {
                // an older kernel: its default (four per CPU)
            }
        }
        // Confined to this thread, which alone reads and writes it (and frees it at the end): closing a shared arena
        // makes every thread of the JVM stop at a handshake, and closing an executor of 1,024 loops took 15 s.
        arena = Arena.ofConfined();
        wakeup = new Wakeup(sys, arena);
        slots = new SlotTable(arena, Math.min(config.inFlightLimit, 1024));
        encoder = new Encoder(this);
        completions = new Completions(this);
        syncOrder = new SyncOrder(this);
        closer = new Closer(this);
        cancels = new Cancels(this);
        inline = new InlineWrites(this, arena, config.inlineWriteMax);
        shortReads = new ShortReads(arena);
        deadlines = new Deadlines(this, arena);
        ftruncateOp = ring.probe().supports(Opcode.FTRUNCATE);
        encoder.init(config.registeredFiles);
        // The first submission proves the ring takes work (a ring set up disabled, or one the kernel refuses
        // reads on, fails here, in build(), with the reason, rather than later with every request).
        wakeup.arm(ring);
        expected++;
        ring.submit();
    }

    private IoUring openRing(int flags, int cqEntries) throws UringException {
        IoUring.Options o = IoUring.options().entries(config.entries).cqEntries(cqEntries).flags(flags);
        InternalAccess.ringOptions().syscalls(o, sys);
        return IoUring.open(o);
    }

    private void loop() throws UringException {
        long spinNanos = config.spinNanos;
        while (true) {
            boolean progress = false;
            TURNS.setOpaque(this, turns + 1);
            Thread.interrupted(); // left by user code run outside a completion (see Completions.finishSafely)
            if (closing) {
                startShutdown();
            }
            progress |= intake();
            progress |= cancels.send();
            progress |= processRetries();
            progress |= deadlines.expire();
            if (!closing && wakeup.arm(ring)) {
                expected++;
            }
            if (ring.sqPending() > 0) {
                ring.submit();
            }
            progress |= ring.reap(completions) > 0;
            if (refillFailure != null) {
                throw refillFailure;
            }
            progress |= inline.deliver();
            progress |= syncOrder.flush();
            int dropped = ring.cqOverflowCount();
            if (dropped != 0) {
                // Without IORING_FEAT_NODROP a full CQ loses completions: which requests ended is unknown.
                throw new UringException("io_uring", io.github.uring4j.linux.Errno.EIO, "the kernel dropped " + dropped
                        + " completion(s) (CQ overflow without IORING_FEAT_NODROP): the ring is broken, its operations"
                        + " fail; use a larger IoExecutor.Builder.entries or a kernel with NODROP (5.5+)");
            }
            if (closing && expected == 0 && retries.isEmpty() && local.isEmpty()) {
                intake();
                return;
            }
            if (progress || !local.isEmpty()) {
                continue;
            }
            if (passedHelped) {
                passedHelped = false;
            } else if (spinNanos > 0 && spin(spinNanos)) {
                continue;
            }
            // Sleep: announce it, then look once more (a producer that queued before seeing SLEEPING is seen
            // here; one that queues after sees SLEEPING and writes the eventfd).
            for (int tries = 1; !wakeup.trySleep(); tries++) {
                // A producer is finishing its eventfd write. Its write may have woken this loop on the producer's own
                // CPU and been preempted by it before it could say so: after a few spins, let it run (a loop that
                // only spun here held the producer off until the scheduler's next tick, 21 µs a request on average
                // in a profile of one writeAndSync at a time).
                if (tries % 64 == 0) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
            if (hasWork()) {
                wakeup.awake();
                continue;
            }
            ASLEEP.setOpaque(this, true);
            try {
                if (wakeup.isBroken()) {
                    ring.submit();
                    ring.waitCompletions(1, 1_000_000L);
                } else if (exiting && idle()) {
                    ring.submit();
                    wakeup.napping(Thread.currentThread());
                    try {
                        if (!hasWork()) { // after the napping mark: a request queued since then unparks this thread
                            java.util.concurrent.locks.LockSupport.parkNanos(this, EXIT_NAP_NANOS);
                        }
                    } finally {
                        wakeup.napping(null);
                    }
                } else {
                    ring.submitAndWait(1);
                }
            } finally {
                ASLEEP.setOpaque(this, false);
            }
            wakeup.awake();
        }
    }

    private boolean spin(long nanos) {
        long end = System.nanoTime() + nanos;
        do {
            if (hasWork() || ring.cqReady() > 0) {
                return true;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0);
        return false;
    }

    /**
     * True when nothing but the wakeup's read is in the kernel or waiting here: a call the loop makes itself now
     * delays no other request (requests that arrive meanwhile wait for it).
     */
    boolean idle() {
        return expected == (wakeup.armed() ? 1 : 0) + deadlines.armedCount() && local.isEmpty() && retries.isEmpty()
                && !inline.pending() && queue.isEmpty();
    }

    /**
     * Someone other than the loop's own call may have waited for it: requests of other threads wait to be taken in,
     * or operations are in the kernel (or on a helper thread) whose completions the loop was not there to take
     * (loop thread).
     */
    boolean othersKeptWaiting() {
        return !queue.isEmpty()
                || expected - inline.pendingCqes() - (wakeup.armed() ? 1 : 0) - deadlines.armedCount() > 0;
    }

    private boolean hasWork() {
        return (closing && !cancelAllSent) || !queue.isEmpty() || !local.isEmpty() || !retries.isEmpty()
                || cancels.pending() || inline.pending();
    }

    // ------------------------------------------------------------------------------------------ intake

    /** A request issued on this thread: taken in after the current batch of completions, never recursively. */
    void addLocal(Request r) {
        local.add(r);
    }

    private boolean intake() {
        boolean progress = false;
        MpscQueue.Node n;
        while ((n = queue.poll()) != null) {
            if (n instanceof Request r) {
                hold(r);
                boolean admitted = admit(r);
                inHand = null;
                if (admitted) {
                    progress = true;
                } else {
                    passedHelped = true;
                }
            } else {
                progress = true;
                try {
                    ((LoopMessage) n).run(this);
                } catch (Throwable t) {
                    Log.warn("loop " + name + ": " + n.getClass().getSimpleName() + " failed: " + t);
                }
            }
        }
        Request r;
        while ((r = local.poll()) != null) {
            progress = true;
            hold(r);
            admit(r);
            inHand = null;
        }
        return progress;
    }

    /**
     * The request taken off a queue and not yet put anywhere (a slot, a waiting queue), and its generation: a failure
     * of the loop meanwhile (the heap full as it was admitted) tells it too, where before nobody did.
     */
    private Request inHand;
    private int inHandGeneration;
    /**
     * The requests whose slots were given back last ({@link #release}), each ended right after, and their generations:
     * one the loop's failure came between (the heap full as a drain or a change's end made room) has neither ended nor
     * been told, and is told with the rest (1 of 64 writes waited for ever). Those ended since have a new generation.
     */
    private final Request[] released = new Request[8];
    private final int[] releasedGenerations = new int[8];
    private int nextReleased;

    private void hold(Request r) {
        inHand = r;
        inHandGeneration = r.generation();
    }

    /** Fails the requests in hand and just released that neither ended nor were told, nor are in a slot. */
    private void failInHand(java.util.function.Supplier<? extends Throwable> error) {
        if (lost(inHand, inHandGeneration)) {
            inHand.fail(error.get()); // nothing of it began: it ends as one refused would
        }
        inHand = null;
        for (int i = 0; i < released.length; i++) {
            if (lost(released[i], releasedGenerations[i])) {
                // Told only: its end may have delivered its result into the client's buffer before the heap filled
                // (a position moved), and failing it would deliver again. The request stays out of its pool.
                released[i].tellEarly(error.get());
            }
            released[i] = null;
        }
    }

    /** Whether {@code r} is still at {@code generation}, untold, and in no slot (told with the slots). */
    private boolean lost(Request r, int generation) {
        if (r == null || r.generation() != generation || r.wasTold()) {
            return false;
        }
        for (int i = 0; i < slots.capacity(); i++) {
            if (slots.get(i).request == r) {
                return false; // the kernel may hold its memory
            }
        }
        return true;
    }

    /**
     * The last intake met requests that waiting callers make themselves ({@link HelpedSyncs}) and nothing else to do:
     * the loop sleeps at once instead of spinning for the next request, which comes no sooner than the caller's sync
     * ends (a spin there only took the CPU from the caller's own calls).
     */
    private boolean passedHelped;

    /** Takes a request in: it starts, waits behind its file's in-flight limit, or fails; false when a caller runs it. */
    private boolean admit(Request r) {
        if (!r.takeIn()) {
            return false; // a caller waiting for it runs it (UringBackend.help)
        }
        admitTaken(r);
        return true;
    }

    private void admitTaken(Request r) {
        if (closing) {
            r.fail(new AsynchronousCloseException());
            return;
        }
        Deadlines.start(r);
        if (r.kind == Request.OPEN || r.kind == Request.READ_FILE) {
            if (r.isCancelled()) {
                r.fail(new CancellationException(r.name() + " cancelled"));
                return;
            }
            start(slots.take(r));
            return;
        }
        UringFile f = (UringFile) r.handle;
        if (r.kind == Request.CLOSE) {
            closer.begin(r, f);
            return;
        }
        UringFile.PerLoop p = f.peek(this);
        if (p == null) {
            p = f.on(this); // recorded as a user of the file before its state is checked
            touched.add(f);
        }
        if (!f.isOpen() || p.quiescing) {
            r.fail(new AsynchronousCloseException());
            return;
        }
        if (r.isCancelled()) {
            r.fail(new CancellationException(r.name() + " cancelled"));
            return;
        }
        long bytes = bytesOf(r, f);
        if (p.inflight >= config.inFlightLimit || !p.waiting.isEmpty() || tooManyBytes(f, p, bytes)
                || SyncOrder.waitsForChanges(r, f, p)) {
            p.waiting.add(r);
            stats.queued(1);
            deadlines.queued(r);
            return;
        }
        DeviceBudget b = budget(f);
        if (b != null) {
            if (b.inFlight >= b.cap || !b.waiting.isEmpty()) {
                b.waiting.add(r);
                stats.queued(1);
                deadlines.queued(r);
                return;
            }
            b.inFlight++;
        }
        take(p, r, bytes, b);
    }

    /** The device budget of an O_DIRECT file on this loop, or null (none, or a device of unknown depth). */
    private DeviceBudget budget(UringFile f) {
        long key = f.deviceKey;
        if (key < 0) {
            return null;
        }
        DeviceBudget b = budgets.get(key);
        if (b == null) {
            int cap = config.directInFlight > 0 ? config.directInFlight : DeviceBudget.tags(key);
            b = new DeviceBudget(cap);
            budgets.put(key, b);
        }
        return b.cap == DeviceBudget.UNKNOWN ? null : b;
    }

    private void submitRefills() {
        try {
            ring.submit();
        } catch (UringException e) {
            if (refillFailure == null) {
                refillFailure = e;
            }
        }
    }

    /** Lets waiting O_DIRECT requests of the device in while it has room. */
    private void drain(DeviceBudget b) {
        while (b.inFlight < b.cap && !b.waiting.isEmpty()) {
            Request next = b.waiting.poll();
            hold(next);
            stats.queued(-1);
            UringFile nf = (UringFile) next.handle;
            UringFile.PerLoop np = nf.peek(this);
            if (next.isCancelled()) {
                next.fail(new CancellationException(next.name() + " cancelled"));
                continue;
            }
            if (closing || !nf.isOpen() || np.quiescing) {
                next.fail(new AsynchronousCloseException());
                continue;
            }
            b.inFlight++;
            take(np, next, 0, b);
        }
        inHand = null;
    }

    /** Takes {@code r} out of the queue it waits in (its file's or its device's); false if it waits in none. */
    boolean unqueue(Request r) {
        if (!(r.handle instanceof UringFile f)) {
            return false;
        }
        UringFile.PerLoop p = f.peek(this);
        DeviceBudget b = f.deviceKey < 0 ? null : budgets.get(f.deviceKey);
        if ((p != null && p.waiting.remove(r)) || (b != null && b.waiting.remove(r))) {
            stats.queued(-1);
            return true;
        }
        return false;
    }

    /** Fails the waiting O_DIRECT requests of {@code f}. */
    void failWaitingDirect(UringFile f) {
        for (DeviceBudget b : budgets.values()) {
            java.util.Iterator<Request> it = b.waiting.iterator();
            while (it.hasNext()) {
                Request r = it.next();
                if (r.handle == f) {
                    it.remove();
                    stats.queued(-1);
                    r.fail(new AsynchronousCloseException());
                }
            }
        }
    }

    /**
     * What {@code r} moves through the page cache of a regular file: counted against
     * {@link io.github.uring4j.engine.EngineConfig#inFlightBytes}.
     */
    private long bytesOf(Request r, UringFile f) {
        if (f.direct) {
            return 0; // the device copies, not the CPU, and wants depth
        }
        return switch (r.kind) {
            case Request.READ, Request.WRITE, Request.WRITE_SYNC -> r.length;
            case Request.READV, Request.WRITEV -> r.iovTotal();
            default -> 0;
        };
    }

    /**
     * One request at least always runs, whatever its size; only a regular file's requests wait for bytes (a pipe's
     * read may wait for a write behind it), asked only when it would matter (a statx per file otherwise).
     */
    private boolean tooManyBytes(UringFile f, UringFile.PerLoop p, long bytes) {
        return p.inflight > 0 && p.bytes + bytes > config.inFlightBytes && inline.isRegular(f);
    }

    private void take(UringFile.PerLoop p, Request r, long bytes, DeviceBudget budget) {
        p.inflight++;
        p.bytes += bytes;
        Slot s = slots.take(r);
        s.admittedBytes = bytes;
        s.budget = budget; // before start: a request that fails as it is encoded is released at once
        start(s);
    }

    /** Prepares the slot's entries now, or when the SQ has room. */
    void start(Slot s) {
        stats.inFlight(slots.used());
        if (!s.queued && retries.isEmpty() && encoder.encodeIfRoom(s)) {
            return;
        }
        if (!s.queued) {
            s.queued = true;
            retries.add(s);
            stats.queued(1);
        }
    }

    /** Encodes slots that waited for SQ room; requests that meanwhile were cancelled or closed end here. */
    private boolean processRetries() throws UringException {
        boolean progress = false;
        while (!retries.isEmpty()) {
            Slot s = retries.peek();
            if (!encoder.room()) {
                break;
            }
            retries.poll();
            stats.queued(-1);
            s.queued = false;
            progress = true;
            Request r = s.request;
            if (r.kind != Request.CLOSE && s.stage == 0 && r.handle != null) {
                if (r.isCancelled()) {
                    completions.end(s, new CancellationException(r.name() + " cancelled"));
                    continue;
                }
                if (closing || !r.handle.isOpen()) {
                    completions.end(s, new AsynchronousCloseException());
                    continue;
                }
            }
            encoder.encodeOrFail(s);
        }
        return progress;
    }

    /** The slot is done: free it, and let the file's next waiting request in (or finish the file's quiesce). */
    void release(Slot s) {
        Request r = s.request;
        if (r != null) {
            int i = nextReleased;
            released[i] = r;
            releasedGenerations[i] = r.generation();
            nextReleased = (i + 1) & (released.length - 1);
        }
        boolean change = s.change;
        long epoch = s.epoch;
        syncOrder.leaving(s); // before the slot is given back, which may hand it to the next request at once (drain)
        long bytes = s.admittedBytes;
        DeviceBudget budget = s.budget;
        s.admittedBytes = 0;
        slots.give(s);
        if (budget != null) {
            budget.inFlight--;
            drain(budget);
            if (ring.sqPending() >= REFILL_BATCH) {
                submitRefills();
            }
        }
        stats.inFlight(slots.used());
        stats.completedOne();
        if (r == null || r.handle == null || r.kind == Request.OPEN || r.kind == Request.CLOSE) {
            return;
        }
        UringFile f = (UringFile) r.handle;
        UringFile.PerLoop p = f.peek(this);
        p.inflight--;
        p.bytes -= bytes;
        ArrayList<Slot> ready = null;
        if (change) {
            ready = SyncOrder.changeEnded(p, epoch);
        }
        if (p.quiescing) {
            if (ready != null) {
                syncOrder.syncAll(ready, f, p); // they fail, and the last of their ends finishes the quiesce
            } else if (p.inflight == 0) {
                closer.quiesced(f);
            }
            return;
        }
        while (!p.waiting.isEmpty() && p.inflight < config.inFlightLimit) {
            Request next = p.waiting.peek();
            if (next.isCancelled()) {
                p.waiting.poll();
                stats.queued(-1);
                next.fail(new CancellationException(next.name() + " cancelled"));
                continue;
            }
            long need = bytesOf(next, f);
            if (tooManyBytes(f, p, need) || SyncOrder.waitsForChanges(next, f, p)) {
                break;
            }
            p.waiting.poll();
            DeviceBudget b = budget(f);
            if (b != null) {
                if (b.inFlight >= b.cap || !b.waiting.isEmpty()) {
                    b.waiting.add(next); // still queued: now behind the device
                    continue;
                }
                b.inFlight++;
            }
            stats.queued(-1);
            take(p, next, need, b);
        }
        syncOrder.syncAll(ready, f, p);
    }

    // ------------------------------------------------------------------------------------------ shutdown

    private void startShutdown() throws UringException {
        if (cancelAllSent) {
            return;
        }
        intake(); // requests fail (closing), messages run
        failQueued(AsynchronousCloseException::new);
        deadlines.clear();
        cancels.clear();
        if (expected == 0) {
            cancelAllSent = true;
            return;
        }
        if (encoder.room()) {
            cancelAllSent = true;
            // Everything in flight, the eventfd read included.
            ring.nextSqe().cancelAll().userData(CANCEL_ALL);
            expected++;
        }
    }

    /** Fails everything still queued; the consumer is the loop or, after termination, the lock holder. */
    private void abandonQueued() {
        MpscQueue.Node n;
        while ((n = queue.poll()) != null || !queue.isEmpty()) {
            if (n == null) {
                Thread.onSpinWait();
                continue;
            }
            abandon(n);
        }
    }

    private void abandon(MpscQueue.Node n) {
        if (n instanceof Request r) {
            if (!r.takeIn()) {
                return; // a caller waiting for it runs it
            }
            String why = failure;
            r.fail(why != null ? new IOException(why) : new AsynchronousCloseException());
        } else {
            ((LoopMessage) n).abandon();
        }
    }

    private void free(boolean leakScratch) {
        if (wakeup != null) {
            wakeup.close();
        }
        if (ring != null) {
            ring.close();
        }
        if (arena != null && !leakScratch) {
            arena.close();
        }
    }

    private void terminate() {
        stats.inFlight(0); // a failed loop's last count stayed (an executor with nothing left said 1 in flight)
        synchronized (terminationLock) {
            dead = true;
            abandonQueued();
        }
        terminated.complete(null);
    }

    /** Completions the kernel dropped (any thread; 0 once the ring is closed). */
    int cqOverflows() {
        IoUring r = ring;
        try {
            return r == null ? 0 : r.cqOverflowCount();
        } catch (IllegalStateException closed) {
            return 0;
        }
    }

    /** A racy snapshot of the loop's state, for diagnosing a hang. */
    String describe() {
        StringBuilder sb = new StringBuilder(name).append(": inFlight=").append(stats.inFlight()).append(" expected=")
                .append(expected).append(" retries=").append(retries.size()).append(" local=").append(local.size())
                .append(" queueEmpty=").append(queue.isEmpty()).append(' ').append(wakeup == null ? "" : wakeup.describe())
                .append(" closing=").append(closing).append(" completed=").append(stats.completed());
        return sb.toString();
    }
}
