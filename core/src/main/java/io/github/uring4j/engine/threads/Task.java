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

    Task(ThreadsBackend backend, Request request) {
        this.backend = backend;
        this.request = request;
        backend.unfinished.incrementAndGet();
    }

    @Override
    public void run() {
        backend.run(this);
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
