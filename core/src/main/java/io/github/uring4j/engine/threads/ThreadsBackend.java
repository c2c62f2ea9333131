package io.github.uring4j.engine.threads;

import io.github.uring4j.engine.BouncePool;
import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.FullHeap;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Log;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.PinnedRegion;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.RequestPool;
import io.github.uring4j.engine.Rules;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The fallback backend: the same requests as blocking system calls ({@code pread}, {@code pwrite},
 * {@code fdatasync}, ...) on worker threads. Used where io_uring cannot be set up.
 *
 * <p>Each file runs at most {@code threads} calls at once; more wait for it in order. The pool grows while its
 * workers are all busy, so a file whose calls never return (a read on an empty FIFO) holds back neither other
 * files nor its own close. A blocking call cannot be interrupted: a timeout, a close or a shutdown tells the
 * client at once, and the call finishes on its worker, keeping its buffer (and the file's descriptor) until then.
 * Reads of pipes, FIFOs and sockets, which could wait for ever, do not block: they take only bytes that are there
 * and look between waits whether their client was told, so one that timed out or whose file closed ends within
 * {@link NativeCalls#WAIT_SLICE_MILLIS} and takes nothing (see {@code NativeCalls.unpositioned}).
 */
public final class ThreadsBackend implements IoBackend {
    /** How long a shutdown lets running calls finish before it tells their clients and returns. */
    static final long CLOSE_WAIT_NANOS = closeWaitNanos(System.getProperty("uring4j.threads.closeWaitMillis"));

    /**
     * {@code uring4j.threads.closeWaitMillis}: 1 to 3,600,000 ms (default 2,000); anything else is said once and the
     * default used (a huge value overflowed into a negative wait, 0 and -1 were taken as they were).
     */
    static long closeWaitNanos(String v) {
        if (v == null) {
            return 2_000L * 1_000_000L;
        }
        try {
            long ms = Long.parseLong(v.trim());
            if (ms >= 1 && ms <= 3_600_000L) {
                return ms * 1_000_000L;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        Log.warn("uring4j.threads.closeWaitMillis=" + v + " is not 1 to 3600000 (milliseconds); using 2000");
        return 2_000L * 1_000_000L;
    }

    private final EngineConfig config;
    private final RequestPool requests;
    private final Calls calls;
    private final WorkerPool pool;
    private final int perFile;
    private final Set<ThreadsFile> files = ConcurrentHashMap.newKeySet();
    private final Set<Task> running = ConcurrentHashMap.newKeySet();
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    /** Set on the worker threads of every threads backend: a close made there must not wait for its pool. */
    private static final ThreadLocal<Boolean> ON_A_WORKER = new ThreadLocal<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    /**
     * Tasks made and not yet ended (queued, waiting behind their file, running): {@link #inFlight} alone misses a
     * task between the pool's queue and its worker.
     */
    final AtomicInteger unfinished = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong completed = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean open = true;
    private ScheduledThreadPoolExecutor timer;

    /**
     * @param jdkCalls make the calls through the JDK's {@code FileChannel} instead of the system-call layer (for a
     *                 JVM that denies uring4j native access)
     */
    public ThreadsBackend(EngineConfig config, BouncePool bounces, boolean jdkCalls) {
        this.config = config;
        this.requests = new RequestPool(bounces);
        this.calls = jdkCalls ? new JdkCalls(config.errors)
                : new NativeCalls(config.syscalls(), config.errors, config.resultFilter);
        this.perFile = Math.max(1, config.threads);
        ThreadFactory factory = config.threadFactory;
        this.pool = new WorkerPool(config.threads, Math.max(config.threads, config.maxThreads), r -> {
            Vetted worker = new Vetted(() -> {
                Thread me = Thread.currentThread();
                for (int tries = 0;; tries++) {
                    // On a full heap these threw, and the thread ended before the pool's worker ran: the call handed
                    // to it with the thread was never made, and its file's later calls waited behind it for ever.
                    try {
                        workers.add(me);
                        ON_A_WORKER.set(Boolean.TRUE);
                        break;
                    } catch (OutOfMemoryError e) {
                        if (!FullHeap.waitForMemory(tries)) {
                            break; // the worker runs all the same
                        }
                    }
                }
                try {
                    r.run();
                } finally {
                    workers.remove(me);
                }
            });
            Thread t;
            try {
                t = factory.newThread(worker);
            } catch (RuntimeException | Error e) {
                worker.refuse(); // a thread it started before it threw ends without running the worker
                throw e;
            }
            if (t == null || t.getState() != Thread.State.NEW) {
                worker.refuse();
                throw new IllegalStateException("uring4j: the executor's thread factory returned "
                        + (t == null ? "null" : "a thread that was already started (" + t + ")")
                        + " for a worker of " + config.name + ": it must return a new thread that runs the Runnable"
                        + " it is given");
            }
            worker.accept(t);
            return t;
        });
        // One worker now: a thread factory that cannot make one fails the executor's build, not its first call.
        try {
            pool.startOne();
        } catch (RuntimeException | Error e) {
            pool.shutdown();
            throw e;
        }
        long deadline = System.nanoTime() + START_WAIT_NANOS;
        while (workers.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                pool.shutdown();
                throw new IllegalStateException("uring4j: the worker thread of " + config.name + ", made by the"
                        + " executor's thread factory, did not run within "
                        + TimeUnit.NANOSECONDS.toSeconds(START_WAIT_NANOS) + " s: a thread factory must return a"
                        + " new thread that runs the Runnable it is given");
            }
            LockSupport.parkNanos(50_000); // a thread starts in tens of microseconds
        }
    }

    /** How long the build waits for the first worker to run (a thread starts in milliseconds). */
    private static final long START_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    @Override
    public String name() {
        return "threads";
    }

    @Override
    public Request acquire() {
        return requests.acquire();
    }

    /** A timer thread for per-request timeouts, started on first use. */
    private synchronized ScheduledThreadPoolExecutor timer() {
        if (!open) {
            throw new RejectedExecutionException("the backend is shut down"); // no timer thread started after it
        }
        if (timer == null) {
            timer = new ScheduledThreadPoolExecutor(1, r -> io.github.uring4j.engine.LibraryThreads.of(
                    config.processWide, config.name + "-timer", r));
            timer.setRemoveOnCancelPolicy(true);
        }
        return timer;
    }

    @Override
    public void submit(Request r) {
        r.taken();
        Task t = new Task(this, r);
        if (!open && r.kind == Request.CLOSE) {
            // A close during the shutdown closes the file now (or after its running calls) rather than fail: the
            // shutdown would close it anyway, and a caller waiting for its close may be the thread shutting down.
            close((ThreadsFile) r.handle, t);
            return;
        }
        if (!open) {
            end(t, 0, new AsynchronousCloseException());
            return;
        }
        if (r.kind == Request.OPEN || r.kind == Request.READ_FILE) {
            execute(t);
            return;
        }
        ThreadsFile f = (ThreadsFile) r.handle;
        if (r.kind == Request.CLOSE) {
            close(f, t);
            return;
        }
        boolean accepted;
        synchronized (f) {
            accepted = f.isOpen();
            if (accepted && r.timeoutNanos > 0) {
                try {
                    // at most ~146 years: never overflows
                    t.deadline = System.nanoTime() + Math.min(r.timeoutNanos, Long.MAX_VALUE / 2);
                    t.timeout = timer().schedule(() -> t.tellEarly(Rules.timedOut(r)),
                            r.timeoutNanos, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    accepted = false; // the shutdown stopped the timer after this call saw the backend open
                }
            }
            if (accepted) {
                if (f.running >= perFile || !f.waiting.isEmpty() || waitsForChanges(r, f)) {
                    f.waiting.add(t);
                    return;
                }
                starts(f, t);
            }
        }
        if (!accepted) {
            r.fail(new AsynchronousCloseException());
            return;
        }
        execute(t);
    }

    /** {@code t} of {@code f} runs now (guarded by {@code f}). */
    private static void starts(ThreadsFile f, Task t) {
        f.runningTasks.add(t); // first: on a full heap it throws, and the file's count of running calls is as it was
        f.running++;
        if (changes(t.request.kind)) {
            f.runningChanges++;
            t.changing = true;
            t.ticket = ++f.changeTickets;
        }
    }

    /**
     * A write-and-sync's write ended (its sync is next): its change has ended, and its sync, which must cover the
     * changes of the file that began before it, waits until those have ended too. So write-and-syncs of a file run
     * side by side, their syncs together (one journal commit can serve several), where a sync that waited for every
     * running change before it began made them run one at a time. A sync whose client stopped waiting (cancel,
     * timeout, close), or whose worker is interrupted (the backend's close), waits no longer.
     */
    void wroteBeforeSync(Task t, ThreadsFile f) {
        synchronized (f) {
            changeEnded(f, t);
        }
        awaitEarlierChanges(t, f);
    }

    /** Before a write-and-sync's sync: waits until the changes of the file begun before it have ended. */
    private void awaitEarlierChanges(Task t, ThreadsFile f) {
        synchronized (f) {
            boolean interrupted = false;
            while (earlierChangeRuns(f, t) && open && !t.request.isCancelled() && !t.request.wasTold()) {
                try {
                    f.wait(NativeCalls.WAIT_SLICE_MILLIS); // and looks again whether its client still waits
                } catch (InterruptedException e) {
                    interrupted = true;
                    break;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Whether {@code r}, a sync, must wait in the file's queue until the file's changes that run now have ended: it
     * must cover them, and on another worker it ran beside them (guarded by {@code f}). Waiting on its worker
     * instead, with the later writes going on, it waited for them too (16 writes at a time to an O_DIRECT file and a
     * thread forcing it: 235-296 forces a second against 751-817, the writes' rate the same). A write-and-sync starts
     * at once and waits after its write ({@link #wroteBeforeSync}).
     */
    private static boolean waitsForChanges(Request r, ThreadsFile f) {
        return f.runningChanges > 0 && (r.kind == Request.FSYNC || r.kind == Request.SYNC_RANGE);
    }

    /** A change of {@code f} that began before {@code t}'s is still running (guarded by {@code f}). */
    private static boolean earlierChangeRuns(ThreadsFile f, Task t) {
        for (Task x : f.runningTasks) {
            if (x.changing && x.ticket < t.ticket) {
                return true;
            }
        }
        return false;
    }

    /** {@code t}'s change of {@code f} has ended, if it had one running (guarded by {@code f}). */
    private static void changeEnded(ThreadsFile f, Task t) {
        if (t.changing) {
            t.changing = false;
            f.runningChanges--;
            f.notifyAll(); // a write-and-sync's sync may wait for it
        }
    }

    /** A request that changes its file's data or size. */
    private static boolean changes(int kind) {
        return kind == Request.WRITE || kind == Request.WRITEV || kind == Request.WRITE_SYNC
                || kind == Request.TRUNCATE || kind == Request.ALLOCATE;
    }

    private void execute(Task t) {
        for (int tries = 0;; tries++) {
            try {
                pool.execute(t);
                return;
            } catch (RejectedExecutionException e) {
                if (t.claim()) {
                    end(t, 0, new AsynchronousCloseException());
                }
                return;
            } catch (OutOfMemoryError e) {
                // The heap full, or no native thread for a worker: handed over again a little later (a task the pool
                // queued before it threw runs once all the same: the first run claims it).
                if (!FullHeap.waitForMemory(tries)) {
                    failExecute(t, e);
                    return;
                }
            } catch (RuntimeException | Error e) {
                failExecute(t, e);
                return;
            }
        }
    }

    /** No worker for {@code t}: the thread factory failed, or no native thread could be made (a thread limit). */
    private void failExecute(Task t, Throwable e) {
        if (t.claim()) {
            end(t, 0, new IOException("uring4j: no worker thread of " + config.name + " could take "
                    + t.request.name() + ": " + e, e));
        }
    }

    // ------------------------------------------------------------------------------------------ workers

    void run(Task t) {
        Request r = t.request;
        if (r.isCancelled()) {
            end(t, 0, new CancellationException(r.name() + " cancelled"));
            return;
        }
        if (!open) {
            end(t, 0, new AsynchronousCloseException());
            return;
        }
        if (pastItsTime(t)) {
            end(t, 0, Rules.timedOut(r)); // its time ran out in the queue: the call is not made (the timer may lag)
            return;
        }
        inFlight.incrementAndGet();
        long v = 0;
        ThreadsFile opened = null;
        Throwable error = null;
        try {
            running.add(t); // in the try: a full heap here fails the call, and its end is still made
            if (r.kind == Request.OPEN) {
                opened = open(r);
            } else if (r.kind == Request.READ_FILE) {
                v = readFile(t);
            } else {
                ThreadsFile f = (ThreadsFile) r.handle;
                v = switch (r.kind) {
                    case Request.READ, Request.WRITE, Request.WRITE_SYNC -> calls.transfer(t, f);
                    case Request.READV, Request.WRITEV -> calls.vector(t, f);
                    default -> calls.other(r, f);
                };
            }
        } catch (Throwable e) {
            error = e;
        } finally {
            // Out of flight before the client hears of it: what it sees next is the backend's true state.
            running.remove(t);
            inFlight.decrementAndGet();
        }
        if (opened != null) {
            t.markEnded();
            opened.deleteIfAsked();
            r.opened(opened);
        } else {
            if (error == null && pastItsTime(t)) {
                // ended after its time, before the timer told (its thread runs beside the workers, and may lag):
                // timed out, as io_uring's link timeout says it, not a success reported late
                error = Rules.timedOut(r);
            }
            end(t, v, error);
        }
    }

    /** A timed request whose time has run out. */
    private static boolean pastItsTime(Task t) {
        return t.timeout != null && System.nanoTime() - t.deadline >= 0;
    }

    /** Opens the path, reads from its start, closes it; the bytes read (0 for an empty file). */
    private long readFile(Task task) throws Throwable {
        ThreadsFile f = calls.open(this, task.request);
        Throwable failure = null;
        try {
            // to the end of the file or of the buffer: a file made as it is read (/proc) gives about a page a read,
            // and one read moves at most 2 GiB - 4 KiB; a pipe or a device without offsets is read once
            task.request.untilEnd = true;
            return calls.transfer(task, f);
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            IOException closed = calls.close(f);
            if (closed != null && failure == null) {
                throw closed;
            }
        }
    }

    /** Opens the file, or throws what the open fails with. */
    private ThreadsFile open(Request r) throws IOException {
        ThreadsFile f = calls.open(this, r);
        if (r.isCancelled() || !open) {
            calls.close(f);
            if (r.isCancelled()) {
                throw new CancellationException("OPEN cancelled");
            }
            throw new AsynchronousCloseException();
        }
        files.add(f);
        if (!open && files.remove(f)) {
            calls.close(f);
            throw new AsynchronousCloseException();
        }
        return f;
    }

    /**
     * Ends {@code t}: the file's next waiting call starts, an idle closed file closes its descriptor, and the
     * client is told (unless a timeout or close told it already).
     */
    private void end(Task t, long value, Throwable error) {
        t.markEnded();
        completed.incrementAndGet();
        Request r = t.request;
        // a sync that waited for the changes before it lets those behind it go too: a chain, in the file's order
        Task next = null;
        Task last = null;
        boolean closeNow = false;
        Task closing = null;
        ThreadsFile file = r.handle instanceof ThreadsFile tf && r.kind != Request.CLOSE ? tf : null;
        if (file != null) {
            ThreadsFile f = file;
            synchronized (f) {
                if (f.runningTasks.remove(t)) {
                    f.running--;
                    changeEnded(f, t);
                    while (f.isOpen() && !f.waiting.isEmpty() && f.running < perFile
                            && !waitsForChanges(f.waiting.peek().request, f)) {
                        Task n = f.waiting.poll();
                        starts(f, n);
                        if (last == null) {
                            next = n;
                        } else {
                            last.nextStarted = n;
                        }
                        last = n;
                    }
                    closeNow = f.closeWhenIdle && f.running == 0 && !f.descriptorClosed;
                    if (closeNow) {
                        f.descriptorClosed = true;
                        closing = f.pendingClose;
                        f.pendingClose = null;
                        f.closesAfterTelling = Thread.currentThread();
                    }
                } else {
                    f.waiting.remove(t);
                }
            }
        }
        // before the client's code runs: a handler that closes the file waits for these, which must be running
        while (next != null) {
            Task n = next;
            next = n.nextStarted;
            n.nextStarted = null;
            execute(n);
        }
        try {
            if (error != null) {
                r.fail(error);
            } else {
                r.succeed(value);
            }
        } finally {
            if (closeNow) {
                file.closesAfterTelling = null;
            }
        }
        if (closeNow) {
            IOException failure = closeDescriptor(file);
            if (closing != null) {
                endClose(closing, failure);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ closing

    /**
     * A close tells the calls running on the file's descriptor at once and ends when the last of them returned and
     * the descriptor is closed, as on io_uring (it returned at once, and a write it said had failed could still land
     * after it); but it never waits for a call that may never return: after the close wait
     * ({@link #CLOSE_WAIT_NANOS}) it ends, and the descriptor follows the last call.
     */
    private void close(ThreadsFile f, Task closeTask) {
        List<Task> waiting;
        List<Task> busy;
        boolean now;
        synchronized (f) {
            waiting = new ArrayList<>(f.waiting);
            f.waiting.clear();
            busy = new ArrayList<>(f.runningTasks);
            now = f.running == 0 && !f.descriptorClosed;
            if (now) {
                f.descriptorClosed = true;
            } else {
                f.closeWhenIdle = true;
                f.pendingClose = closeTask;
            }
        }
        for (Task w : waiting) {
            w.markEnded();
            w.request.fail(new AsynchronousCloseException());
        }
        for (Task b : busy) {
            b.tellEarly(new AsynchronousCloseException());
        }
        if (!now) {
            f.markClosed(); // the descriptor follows when the last call returns (the file stays in files till then)
            try {
                timer().schedule(() -> giveUpWaiting(f), CLOSE_WAIT_NANOS, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                giveUpWaiting(f); // the executor is closing: its own close waits for the calls
            }
            return;
        }
        try {
            pool.execute(() -> {
                if (closeTask.claim()) {
                    finishClose(f, closeTask);
                }
            });
        } catch (RejectedExecutionException | OutOfMemoryError e) {
            // closed here (a full heap, or no worker to be had); once, should the pool have queued it before it threw
            if (closeTask.claim()) {
                finishClose(f, closeTask);
            }
        }
    }

    /** The close wait is over and a call still runs: the close ends; the descriptor closes after the last call. */
    private void giveUpWaiting(ThreadsFile f) {
        Task closing;
        synchronized (f) {
            closing = f.pendingClose;
            f.pendingClose = null;
        }
        if (closing != null) {
            endClose(closing, null);
        }
    }

    private void finishClose(ThreadsFile f, Task closeTask) {
        endClose(closeTask, closeDescriptor(f));
    }

    private static void endClose(Task closeTask, IOException failure) {
        closeTask.markEnded();
        if (failure != null) {
            closeTask.request.fail(failure);
        } else {
            closeTask.request.succeed(0);
        }
    }

    private IOException closeDescriptor(ThreadsFile f) {
        files.remove(f);
        IOException res = f.borrowed() ? null : calls.close(f);
        f.markClosed();
        f.giveBack();
        return res;
    }

    @Override
    public void cancel(Request r, int generation) {
        // A blocking call cannot be stopped; one that has not started is skipped, and a read of a pipe waiting for
        // bytes sees the mark between its waits.
        r.markCancelled(generation);
    }

    @Override
    public FileHandle adopt(OpenSpec spec, int fd, int memAlign, int offAlign, Runnable giveBack) {
        if (!open) {
            return null;
        }
        ThreadsFile f = new ThreadsFile(this, spec, fd, null, memAlign, offAlign);
        f.lentBy(giveBack);
        return f;
    }

    @Override
    public void closeOrphan(FileHandle h) {
        if (!open && !h.borrowed()) {
            return; // the shutdown closes it (a borrowed descriptor is not among its files: a close gives it back)
        }
        Request r = acquire();
        r.kind = Request.CLOSE;
        r.handle = h;
        submit(r);
    }

    @Override
    public String registerBuffers(PinnedRegion region) {
        return "the threads backend does not register buffers";
    }

    @Override
    public void unregisterBuffers(PinnedRegion region) {
        // nothing registered
    }

    /**
     * The file's last call ended as its close came (the close saw it running): this thread tells its client, then
     * closes the descriptor and ends the close, so the operation is told before the close, as when the close told it
     * first. A handler of that operation closing the file waited for ever for the close it held back (found by the
     * hostile stress test: a worker and the test's threads all waiting in {@code close()}).
     */
    @Override
    public boolean endsCloseOnReturn(FileHandle h) {
        return h instanceof ThreadsFile f && f.closesAfterTelling == Thread.currentThread();
    }

    @Override
    public boolean mustNotBlock(Thread t) {
        return false; // the pool grows: a worker that waits does not stop the others
    }

    @Override
    public void shutdownWithoutWaiting() {
        shutdown(false);
    }

    @Override
    public void shutdown() {
        shutdown(true);
    }

    private void shutdown(boolean wait) {
        synchronized (this) {
            if (!open) {
                return;
            }
            open = false;
        }
        for (Runnable r : pool.shutdown()) {
            if (r instanceof Task t) {
                end(t, 0, new AsynchronousCloseException());
            } else {
                r.run(); // the end of a file's close: it must still tell its caller
            }
        }
        for (ThreadsFile f : files) {
            List<Task> waiting;
            synchronized (f) {
                waiting = new ArrayList<>(f.waiting);
                f.waiting.clear();
            }
            for (Task w : waiting) {
                w.markEnded();
                w.request.fail(new AsynchronousCloseException());
            }
        }
        if (!wait || workers.contains(Thread.currentThread()) || ON_A_WORKER.get() != null
                || io.github.uring4j.engine.uring.UringBackend.onAnyLoop()) {
            // Called from a completion on a worker, of this executor or another, or on an event loop: waiting here
            // would wait for ourselves, or hold that thread (two executors whose handlers closed each other each
            // waited the full close wait, and an event loop was held as long; the IoExecutor's javadoc promises that
            // such a close starts and returns).
            Thread t = io.github.uring4j.engine.LibraryThreads.of(config.processWide, config.name + "-close",
                    this::finishShutdown);
            t.start();
            return;
        }
        finishShutdown();
    }

    private void finishShutdown() {
        synchronized (this) {
            if (timer != null) {
                timer.shutdownNow();
            }
        }
        boolean interrupted = false;
        boolean idle = false;
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (!idle && System.nanoTime() - deadline < 0) {
            try {
                idle = pool.awaitTermination(Math.max(1, deadline - System.nanoTime()));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (!idle) {
            // A call that never returns (a read on an empty pipe) cannot be interrupted: tell its client, and close
            // its file's descriptor when it returns, rather than hang or close a descriptor still in use.
            Log.warn(inFlight.get() + " call(s) still blocked in the kernel after " + CLOSE_WAIT_NANOS / 1_000_000
                    + " ms; their operations fail with AsynchronousCloseException and their files close when they"
                    + " return");
            for (Task t : running) {
                t.tellEarly(new AsynchronousCloseException());
            }
        }
        for (ThreadsFile f : files) {
            boolean now;
            synchronized (f) {
                now = f.running == 0 && !f.descriptorClosed;
                if (now) {
                    f.descriptorClosed = true;
                } else {
                    f.closeWhenIdle = true;
                }
            }
            f.beginClose();
            if (now) {
                closeDescriptor(f);
            } else {
                f.markClosed();
            }
            giveUpWaiting(f); // a close of the file waiting for its calls: the timer that would end it is gone
        }
        files.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public int unfinished() {
        return unfinished.get();
    }

    @Override
    public io.github.uring4j.engine.BackendStats stats() {
        int queued = pool.queued();
        for (ThreadsFile f : files) {
            synchronized (f) {
                queued += f.waiting.size();
            }
        }
        return new io.github.uring4j.engine.BackendStats(pool.threads(), inFlight.get(), queued, completed.get(), 0, 0, 0,
                0);
    }

    @Override
    public String describe() {
        return "threads, " + pool.threads() + " worker(s), " + inFlight.get() + " call(s) running";
    }

    /**
     * A worker that runs only once its thread was accepted: a thread factory that starts the thread it returns runs
     * the pool's worker before the thread is refused, and that worker, which the pool never counted, waited for tasks
     * for ever (the thread lived on after the refused build, or took tasks beside the pool's own workers).
     */
    private static final class Vetted implements Runnable {
        private final Runnable worker;
        private final java.util.concurrent.CountDownLatch settled = new java.util.concurrent.CountDownLatch(1);
        /** The thread the factory returned, once accepted; null if refused. */
        private volatile Thread accepted;
        private final java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();

        Vetted(Runnable worker) {
            this.worker = worker;
        }

        /** Refused: a thread that runs this ends without running the worker. */
        void refuse() {
            settled.countDown();
        }

        /** The worker runs once, on {@code t}. */
        void accept(Thread t) {
            accepted = t;
            settled.countDown();
        }

        @Override
        public void run() {
            while (settled.getCount() > 0) {
                try {
                    io.github.uring4j.engine.Waits.awaitUninterruptibly(settled);
                } catch (OutOfMemoryError e) {
                    // the wait's queue node could not be had: waited out, not died of (its first call was lost)
                    FullHeap.waitForMemory(0); // settled soon after the thread is made: waited for however long
                }
            }
            Thread me = Thread.currentThread();
            // A factory that also runs the Runnable on a thread of its own, or twice: the pool's worker would run on
            // two threads and its accounting go wrong
            if (me == accepted && ran.compareAndSet(false, true)) {
                worker.run();
            }
        }
    }
}
