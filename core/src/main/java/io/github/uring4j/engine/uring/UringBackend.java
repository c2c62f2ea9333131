package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.BouncePool;
import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.PinnedRegion;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.RequestPool;
import io.github.uring4j.ring.UringException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The io_uring backend: a fixed set of event loops, each a thread with its own ring.
 *
 * <h2>Where a request runs</h2>
 * A request issued on a loop's own thread (from a completion) runs on that loop, without a queue or a wake-up: a
 * file's descriptor is valid on every ring. A request from any other thread runs on its file's home loop (the loop
 * that opened it); an open from another thread goes to the loops in turn. A registered-file slot belongs to the
 * home ring: the home loop uses the slot, the other loops the descriptor.
 */
public final class UringBackend implements IoBackend {
    private final EngineConfig config;
    /** Syncs the threads waiting for them make themselves. */
    private final HelpedSyncs helped;
    private final EventLoop[] loops;
    private final RequestPool requests;
    private final AtomicInteger next = new AtomicInteger();
    /** Reads clients completed on their own threads ({@link #takesCallerReads}). */
    private final java.util.concurrent.atomic.LongAdder callerReads = new java.util.concurrent.atomic.LongAdder();
    private volatile boolean open = true;
    private volatile ExecutorService blocking;

    /**
     * How long the builder waits for a loop's thread to run it (a loop's start takes milliseconds): a thread factory
     * may return a thread that never does.
     */
    private static final long START_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    /** Starts the loops and waits until each has its ring, or throws the first setup failure. */
    public UringBackend(EngineConfig config, BouncePool bounces) throws UringException {
        this.config = config;
        this.helped = new HelpedSyncs(this, config);
        this.requests = new RequestPool(bounces);
        this.loops = new EventLoop[config.loops];
        ThreadFactory factory = config.threadFactory;
        for (int i = 0; i < loops.length; i++) {
            EventLoop l = new EventLoop(this, i, config.name + "-" + i, config);
            l.thread = loopThread(factory, l, i);
            requests.addCache(l.thread);
            loops[i] = l;
        }
        Throwable failure = null;
        int started = 0;
        for (EventLoop l : loops) {
            try {
                l.thread.start();
                started++;
            } catch (Throwable e) { // no native thread to be had (a process or container thread limit), say
                failure = new IllegalStateException("uring4j: the thread of event loop " + l.name
                        + " could not be started: " + e, e);
                break;
            }
        }
        // Starting takes a moment and always ends: a caller with its interrupt flag set (a drop-in channel opened by
        // an interrupted thread) still gets its executor, and keeps its flag.
        boolean interrupted = false;
        boolean[] running = new boolean[loops.length];
        long deadline = System.nanoTime() + START_WAIT_NANOS;
        for (int i = 0; i < started; i++) {
            EventLoop l = loops[i];
            while (true) {
                try {
                    l.started.get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
                    running[i] = true;
                } catch (ExecutionException e) {
                    running[i] = true; // it failed and ended
                    if (failure == null) {
                        failure = e.getCause();
                    }
                } catch (java.util.concurrent.TimeoutException e) {
                    if (failure == null) {
                        failure = new IllegalStateException("uring4j: the thread of event loop " + l.name + " ("
                                + l.thread + "), made by the executor's thread factory, did not run the loop within "
                                + java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(START_WAIT_NANOS) + " s"
                                + (l.refused == null ? "" : " (it was run on " + l.refused + " instead, and refused)")
                                + ": a thread factory must return a new thread that runs the Runnable it is given");
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                    continue;
                }
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            open = false;
            for (EventLoop l : loops) {
                l.beginShutdown(); // a loop whose thread runs it later finds it closing, and ends at once
            }
            for (int i = 0; i < loops.length; i++) {
                if (running[i]) {
                    loops[i].terminated.join();
                }
            }
            if (failure instanceof UringException u) {
                throw u;
            }
            if (failure instanceof RuntimeException r) {
                throw r;
            }
            if (failure instanceof Error err) {
                throw err;
            }
            throw new CompletionException(failure);
        }
        for (EventLoop l : loops) {
            LoopWatchdog.watch(l, config.blockedWarnNanos);
        }
    }

    /** The thread of loop {@code i} from {@code factory}, which must give a new one of its own for each loop. */
    private Thread loopThread(ThreadFactory factory, EventLoop l, int i) {
        Thread t;
        try {
            t = factory.newThread(l);
        } catch (RuntimeException | Error e) {
            // it may have started a thread running the loop before it threw: that loop ends at once
            l.beginShutdown();
            throw e;
        }
        String problem = t == null ? "returned null"
                : t.getState() != Thread.State.NEW ? "returned a thread that was already started (" + t + ")"
                : null;
        for (int k = 0; problem == null && k < i; k++) {
            if (loops[k].thread == t) {
                problem = "returned the thread of event loop " + loops[k].name + " again";
            }
        }
        if (problem != null) {
            // A thread the factory started itself may be running this loop already, with a ring of its own, or run it
            // later: told to end, the loop ends at once (each refused build left a ring and a live thread behind)
            l.beginShutdown();
            if (t != null && t.getState() != Thread.State.NEW) {
                try {
                    l.terminated.get(1, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    // it runs something else, or ends later: the loop is closing whenever it runs
                }
            }
            throw new IllegalStateException("uring4j: the executor's thread factory " + problem + " for event loop "
                    + l.name + ": it must return a new thread that runs the Runnable it is given");
        }
        return t;
    }

    @Override
    public String name() {
        return "io_uring";
    }

    EventLoop[] loops() {
        return loops;
    }

    int loopCount() {
        return loops.length;
    }

    /** The loop whose thread is the caller, or null. */
    private EventLoop current() {
        Thread t = Thread.currentThread();
        for (EventLoop l : loops) {
            if (l.thread == t) {
                return l;
            }
        }
        return null;
    }

    @Override
    public Request acquire() {
        return requests.acquire();
    }

    @Override
    public void submit(Request r) {
        r.taken();
        r.countChange();
        EventLoop here = current();
        EventLoop to;
        if (r.kind == Request.OPEN || r.kind == Request.READ_FILE) {
            to = here != null ? here : loops.length == 1 ? loops[0] : loops[Math.floorMod(next.getAndIncrement(), loops.length)];
        } else {
            EventLoop home = ((UringFile) r.handle).home;
            to = r.kind == Request.CLOSE || here == null ? home : here;
        }
        if (to == here) {
            to.addLocal(r);
        } else {
            if ((r.kind == Request.WRITE_SYNC || r.kind == Request.FSYNC) && r.timeoutNanos == 0) {
                r.helpable(); // a platform thread that joins its future may make the calls itself (help)
            }
            to.enqueue(r);
        }
    }

    @Override
    public void cancel(Request r, int generation) {
        if (!r.markCancelled(generation)) {
            return; // ended already
        }
        // The loop that runs it is not recorded in the request: each loop looks in its own slots.
        for (EventLoop l : loops) {
            l.enqueueMessage(new LoopMessage.Cancel(r, generation));
        }
    }

    @Override
    public FileHandle adopt(OpenSpec spec, int fd, int memAlign, int offAlign, Runnable giveBack) {
        if (!open) {
            return null;
        }
        EventLoop home = loops.length == 1 ? loops[0] : loops[Math.floorMod(next.getAndIncrement(), loops.length)];
        UringFile f = new UringFile(this, spec, fd, -1, home, loops.length, memAlign, offAlign);
        f.lentBy(giveBack);
        if (spec.direct()) {
            f.deviceKey = deviceOf(fd);
        }
        home.homeFiles.add(f);
        // A shutdown that began before the add may have closed its files already: whoever removes the file owns it.
        if (home.closing && home.homeFiles.remove(f)) {
            f.beginClose();
            f.markClosed(); // not given back: the caller, told null, still has it
            return null;
        }
        return f;
    }

    /** The device key of {@code fd}'s file system ({@link DeviceBudget#key}), or -1 when statx fails. */
    private static long deviceOf(int fd) {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            io.github.uring4j.ring.StatxBuffer st = io.github.uring4j.ring.StatxBuffer.allocate(a);
            int r = io.github.uring4j.linux.LeanCalls.statx(io.github.uring4j.linux.LeanCalls.allocateCapture(a), fd,
                    a.allocateFrom(""), io.github.uring4j.linux.Uapi.AT_EMPTY_PATH,
                    io.github.uring4j.linux.Statx.STATX_TYPE, st.segment());
            return r == 0 ? DeviceBudget.key(st.deviceMajor(), st.deviceMinor()) : -1;
        } catch (IllegalStateException | LinkageError e) {
            return -1;
        }
    }

    @Override
    public void closeOrphan(FileHandle h) {
        if (!open) {
            return; // the shutdown closes it
        }
        Request r = acquire();
        r.kind = Request.CLOSE;
        r.handle = h;
        submit(r);
    }

    @Override
    public String registerBuffers(PinnedRegion region) {
        String failure = null;
        CompletableFuture<Void>[] done = onEveryLoop(l -> l.encoder.registerBuffers(region));
        if (EventLoop.onAnyLoop()) {
            // A pool built in a completion: this loop's part is done (run here), the others register in their turn.
            // Waiting could stop this loop for a loop that waits for it (two handlers building pools at once). A
            // loop that cannot register says why and uses the buffers unregistered (the lookup is per ring).
            EventLoop here = current();
            for (int i = 0; i < done.length; i++) {
                if (loops[i] == here) {
                    failure = failureOf(done[i]);
                } else {
                    String name = loops[i].name;
                    done[i].whenComplete((v, t) -> {
                        if (t != null && !(t instanceof java.nio.channels.AsynchronousCloseException)) {
                            io.github.uring4j.engine.Log.warn("a BufferPool built on another loop is used unregistered"
                                    + " on event loop " + name + ": " + describe(t));
                        }
                    });
                }
            }
            if (failure != null) {
                unregisterBuffers(region);
            }
            return failure;
        }
        for (int i = 0; i < done.length; i++) {
            CompletableFuture<Void> f = done[i];
            String heldUp = awaitUnlessHeldUp(f, new EventLoop[] {loops[i]});
            if (heldUp != null) {
                // the registration stays queued there: the unregistration below, queued after it, undoes it
                failure = failure != null ? failure : "the registration could not wait: " + heldUp;
                continue;
            }
            if (failure == null) {
                failure = failureOf(f);
            }
        }
        if (failure != null) {
            unregisterBuffers(region);
        }
        return failure;
    }

    /** Why a completed registration failed, or null if it did not. */
    private static String failureOf(CompletableFuture<Void> registration) {
        try {
            registration.join();
            return null;
        } catch (CompletionException e) {
            return describe(e.getCause());
        }
    }

    private static String describe(Throwable t) {
        return t instanceof UringException || t instanceof IllegalStateException ? t.getMessage() : String.valueOf(t);
    }

    @Override
    public void unregisterBuffers(PinnedRegion region) {
        CompletableFuture<Void>[] done = onEveryLoop(l -> l.encoder.unregisterBuffers(region));
        if (EventLoop.onAnyLoop()) {
            // A pool closed in a completion: this loop's part is done (run here), the others do theirs in turn.
            // Waiting could stop this loop for a loop that waits for it (two handlers closing pools at once).
            return;
        }
        for (int i = 0; i < done.length; i++) {
            CompletableFuture<Void> f = done[i];
            // A loop held up does it when it runs again. Until then nothing can use the slots: requests made before
            // the pool closed pin its memory, and later ones are refused.
            String heldUp = awaitUnlessHeldUp(f, new EventLoop[] {loops[i]});
            if (heldUp != null) {
                io.github.uring4j.engine.Log.warn("a BufferPool's buffers are unregistered once the loop runs again: "
                        + heldUp);
                continue;
            }
            try {
                f.join();
            } catch (CompletionException e) {
                // a closed loop: its ring (and registration) is gone already
            }
        }
    }

    /** Runs {@code body} on every loop's thread (directly on the caller's own loop). */
    private CompletableFuture<Void>[] onEveryLoop(LoopMessage.Task.Body body) {
        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array can only be created raw
        CompletableFuture<Void>[] done = new CompletableFuture[loops.length];
        EventLoop here = current();
        for (int i = 0; i < loops.length; i++) {
            if (loops[i] == here) {
                LoopMessage.Task t = new LoopMessage.Task(body);
                t.run(here);
                done[i] = t.done;
            } else {
                LoopMessage.Task t = new LoopMessage.Task(body);
                loops[i].enqueueMessage(t);
                done[i] = t.done;
            }
        }
        return done;
    }

    /** A helper thread for the rare system call a ring cannot make (ftruncate before Linux 6.9). */
    ExecutorService blockingCalls() {
        ExecutorService b = blocking;
        if (b == null) {
            synchronized (this) {
                b = blocking;
                if (b == null) {
                    b = Executors.newCachedThreadPool(r -> io.github.uring4j.engine.LibraryThreads.of(
                            config.processWide, config.name + "-blocking", r));
                    blocking = b;
                }
            }
        }
        return b;
    }

    /** True on the thread of any io_uring event loop, of this executor or another. */
    public static boolean onAnyLoop() {
        return EventLoop.onAnyLoop();
    }

    @Override
    public String failure() {
        for (EventLoop l : loops) {
            String why = l.failure();
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    @Override
    public boolean mustNotBlock(Thread t) {
        for (EventLoop l : loops) {
            if (l.thread == t) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void shutdownWithoutWaiting() {
        open = false;
        for (EventLoop l : loops) {
            l.beginShutdown(); // each loop ends, and frees its ring, files and memory, on its own thread
        }
    }

    @Override
    public void shutdown() {
        shutdownWithoutWaiting();
        if (EventLoop.onAnyLoop()) {
            // Called from a completion, of this executor (the loops finish on their own) or another (two executors
            // closing each other from their handlers would each wait for the other's loop for ever).
            return;
        }
        for (EventLoop l : loops) {
            String heldUp = awaitUnlessHeldUp(l.terminated, new EventLoop[] {l});
            if (heldUp != null) {
                // Its files, ring and memory are let go when the loop runs again and ends.
                io.github.uring4j.engine.Log.warn("the executor's close returns before its loops have ended: " + heldUp);
            }
        }
        if (!helped.awaitIdle(HELD_UP_NANOS)) {
            io.github.uring4j.engine.Log.warn("the executor's close returns while " + helped.active()
                    + " thread(s) still make the sync they joined (the device has not answered for "
                    + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(HELD_UP_NANOS) + " ms)");
        }
        ExecutorService b = blocking;
        if (b != null) {
            b.shutdown();
        }
    }

    @Override
    public int unfinished() {
        return IoBackend.super.unfinished() + helped.active();
    }

    /** How long a close waits for a loop that does not turn before it returns without it. */
    static final long HELD_UP_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

    @Override
    public String awaitUnlessHeldUp(CompletableFuture<?> done) {
        return awaitUnlessHeldUp(done, loops);
    }

    /** As {@link #awaitUnlessHeldUp(CompletableFuture)}, watching only {@code watched}, the loops that complete it. */
    private static String awaitUnlessHeldUp(CompletableFuture<?> done, EventLoop[] watched) {
        if (done.isDone()) {
            return null;
        }
        long[] lastTurn = new long[watched.length];
        long[] sameSince = new long[watched.length];
        long start = System.nanoTime();
        for (int i = 0; i < watched.length; i++) {
            lastTurn[i] = watched[i].turns();
            sameSince[i] = start;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get(50, java.util.concurrent.TimeUnit.MILLISECONDS);
                    return null;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | java.util.concurrent.CancellationException e) {
                    return null;
                } catch (java.util.concurrent.TimeoutException e) {
                    // look at the loops
                }
                long now = System.nanoTime();
                for (int i = 0; i < watched.length; i++) {
                    EventLoop l = watched[i];
                    long turn = l.turns();
                    if (turn != lastTurn[i] || l.asleepInKernel() || l.terminated.isDone()) {
                        lastTurn[i] = turn;
                        sameSince[i] = now;
                    } else if (now - sameSince[i] >= HELD_UP_NANOS) {
                        return l.heldUp(now - sameSince[i]);
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public int inFlight() {
        int n = 0;
        for (EventLoop l : loops) {
            n += l.stats.inFlight();
        }
        return n;
    }

    @Override
    public boolean takesCallerReads(FileHandle h) {
        // a filter (tests) sees every result: the loops make every read
        return open && config.resultFilter == null && (!(h instanceof UringFile f) || f.home.failure() == null);
    }

    @Override
    public void callerReadDone() {
        callerReads.increment();
    }

    @Override
    public boolean help(Request r, int generation) {
        return helped.help(r, generation);
    }

    /** Threads making a sync they joined, now (tests). */
    public int helpingNow() {
        return helped.active();
    }

    /** Syncs that the threads waiting for them made themselves (tests). */
    public long helpedSyncs() {
        return helped.made.sum();
    }

    /** Reads clients completed on their own threads (tests). */
    public long callerReads() {
        return callerReads.sum();
    }

    @Override
    public io.github.uring4j.engine.BackendStats stats() {
        int inFlight = 0;
        int queued = 0;
        long completed = callerReads.sum() + helped.made.sum(); // ended on the clients' own threads
        long overflows = 0;
        long loopCalls = 0;
        long slow = 0;
        long fixed = 0;
        for (EventLoop l : loops) {
            inFlight += l.stats.inFlight();
            queued += l.stats.queued();
            completed += l.stats.completed();
            overflows += l.cqOverflows();
            loopCalls += l.stats.inlineWrites() + l.stats.inlineSyncs() + l.stats.inlineOpens() + l.stats.inlineSizes()
                    + l.stats.inlineReads();
            slow += l.stats.inlineBlocked();
            fixed += l.stats.fixedOps();
        }
        return new io.github.uring4j.engine.BackendStats(loops.length, inFlight, queued, completed, overflows, loopCalls,
                slow, fixed);
    }

    @Override
    public String describe() {
        StringBuilder sb = new StringBuilder("io_uring, ").append(loops.length).append(" loop(s)");
        for (EventLoop l : loops) {
            sb.append("\n  ").append(l.describe());
        }
        return sb.toString();
    }

    /** READ_FIXED/WRITE_FIXED entries prepared by every loop (tests). */
    public long fixedOps() {
        long n = 0;
        for (EventLoop l : loops) {
            n += l.stats.fixedOps();
        }
        return n;
    }

    /** Writes the loops made themselves instead of through the ring (tests). */
    public long inlineWrites() {
        return sum(LoopStats::inlineWrites);
    }

    /** {@code fsync}/{@code fdatasync} calls the idle loops made themselves instead of through the ring (tests). */
    public long inlineSyncs() {
        return sum(LoopStats::inlineSyncs);
    }

    /** Opens that create or truncate which the idle loops made themselves instead of through the ring (tests). */
    public long inlineOpens() {
        return sum(LoopStats::inlineOpens);
    }

    /** Sizes ({@code statx}) the idle loops asked of the kernel themselves instead of through the ring (tests). */
    public long inlineSizes() {
        return sum(LoopStats::inlineSizes);
    }

    /** Reads of files in memory the loops made themselves instead of through the ring (tests). */
    public long inlineReads() {
        return sum(LoopStats::inlineReads);
    }

    /** The file systems of files read that the loops asked with {@code fstatfs} (tests). */
    public long fileSystemsAsked() {
        return sum(LoopStats::fileSystemsAsked);
    }

    /** A loop counter summed over the loops. */
    private long sum(java.util.function.ToLongFunction<LoopStats> counter) {
        long n = 0;
        for (EventLoop l : loops) {
            n += counter.applyAsLong(l.stats);
        }
        return n;
    }

    /** The loop threads (tests). */
    public Thread[] threads() {
        Thread[] t = new Thread[loops.length];
        for (int i = 0; i < loops.length; i++) {
            t[i] = loops[i].thread;
        }
        return t;
    }
}
