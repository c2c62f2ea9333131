package io.github.uring4j.engine.threads;

import io.github.uring4j.engine.Request;
import java.util.concurrent.ScheduledFuture;

/**
 * The threads backend's state of one request: the blocking call runs on a worker; a timeout or a close may tell
 * the client first, and the call's own end then only releases the request. Those two are serialised on this
 * object.
 */
final class Task implements Runnable {
    final ThreadsBackend backend;
    final Request request;
    /** The request ended (the client was told by the end, or is told nothing more). Guarded by this. */
    boolean ended;
    ScheduledFuture<?> timeout;
    /** When a timed request's time runs out ({@code System.nanoTime()}), set with {@link #timeout}. */
    long deadline;
    /**
     * The last non-blocking attempt of a pipe's read took bytes ({@link NativeCalls}): the call ends with them, and
     * an early tell that comes meanwhile waits in {@link #heldBack} (told if the call has to wait again).
     * Guarded by this.
     */
    boolean moved;
    Throwable heldBack;
    /**
     * The request changes its file and has not yet ended that part (a write-and-sync's ends with its write, before
     * its sync); {@link #ticket} orders it among the file's changes. Guarded by the file.
     */
    boolean changing;
    long ticket;

    /** The task's run, or a failure to hand it to a worker, claimed it ({@link #claim}). */
    private volatile boolean claimed;
    private static final java.lang.invoke.VarHandle CLAIMED;

    static {
        try {
            CLAIMED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Task.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Tasks the backend started on a worker together with this one ({@link ThreadsBackend#end}), in a chain through
     * this field: a list made there could not be had on a full heap, and the tasks taken out of the file's queue for
     * it were never run (the file's later calls waited behind them for ever).
     */
    Task nextStarted;

    Task(ThreadsBackend backend, Request request) {
        this.backend = backend;
        this.request = request;
        backend.unfinished.incrementAndGet();
    }

    @Override
    public void run() {
        if (claim()) {
            backend.run(this);
        }
    }

    /**
     * True once: for the worker that runs the task, or for the thread whose hand-over to the workers failed and
     * which ends it instead. A pool that queued the task and then threw (its new worker could not be made, on a full
     * heap) had the task ended twice, its handler called twice, and its request, back in its pool, ended again.
     */
    boolean claim() {
        return CLAIMED.compareAndSet(this, false, true);
    }

    /**
     * Tells the client {@code error} now unless the request ended; the blocking call goes on. Only the claim is made
     * under the lock: the client's code (a handler that closes the file, say) runs after it, since a thread that
     * holds the lock while another waits for it behind that handler's close would never let go.
     */
    void tellEarly(Throwable error) {
        Runnable tell;
        synchronized (this) {
            if (ended) {
                return;
            }
            if (moved) {
                if (heldBack == null) {
                    heldBack = error;
                }
                return;
            }
            tell = request.claimEarlyTell(error);
        }
        if (tell != null) {
            tell.run();
        }
    }

    /** Marks the end; after this no one tells the client early. */
    void markEnded() {
        synchronized (this) {
            if (!ended) {
                backend.unfinished.decrementAndGet();
            }
            ended = true;
        }
        ScheduledFuture<?> t = timeout;
        if (t != null) {
            t.cancel(false);
        }
    }
}
