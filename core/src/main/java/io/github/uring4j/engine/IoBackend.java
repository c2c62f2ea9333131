package io.github.uring4j.engine;

/**
 * What runs requests: io_uring event loops, or a pool of threads making blocking calls. Clients build a
 * {@link Request} (from {@link #acquire()}), {@link #submit} it, and learn the end through its {@link Completion}.
 * Every request ends exactly once, whatever happens: success, failure, cancellation, close.
 */
public interface IoBackend {

    /** {@code "io_uring"} or {@code "threads"}. */
    String name();

    /** A clean request to fill in. */
    Request acquire();

    /**
     * Starts {@code r}: an {@link Request#OPEN} (no handle yet), a {@link Request#CLOSE} of a handle whose
     * {@link FileHandle#beginClose()} the caller won, or an operation on an open handle.
     */
    void submit(Request r);

    /** The client cancelled {@code r} while it had {@code generation}; a cancel of an ended request does nothing. */
    void cancel(Request r, int generation);

    /** Closes a handle nobody will be told about (its {@link FileHandle#beginClose()} was won by the caller). */
    void closeOrphan(FileHandle h);

    /**
     * Runs requests on a descriptor its client opened and keeps owning (a drop-in channel's own): the backend never
     * closes it. After {@link Request#CLOSE}, or its own shutdown, once none of its calls can use the descriptor any
     * more (every one ended, those in the kernel cancelled and completed), it runs {@code giveBack}, once, and the
     * client may close the descriptor then. Null when the backend is shutting down ({@code giveBack} never runs).
     */
    FileHandle adopt(OpenSpec spec, int fd, int memAlign, int offAlign, Runnable giveBack);

    /**
     * Registers {@code region}'s buffers for fixed-buffer transfers; returns null, or why they stay unregistered
     * (the region still works, unregistered).
     */
    String registerBuffers(PinnedRegion region);

    void unregisterBuffers(PinnedRegion region);

    /**
     * True for the threads that complete requests and must not wait for one (an event loop that blocked in
     * {@code join()} could never complete what it waits for).
     */
    boolean mustNotBlock(Thread t);

    /** True once a thread the backend needs has failed for good (an event loop that died): it serves nothing more. */
    default boolean broken() {
        return failure() != null;
    }

    /** Why a thread the backend needs failed for good ({@link #broken}), or null. */
    default String failure() {
        return null;
    }

    /** Stops accepting requests, ends everything in flight, closes the files, frees the rest. Idempotent. */
    void shutdown();

    /**
     * As {@link #shutdown()}, but returns without waiting for the backend's own threads to end: they let go of what
     * they hold as they end. For an executor dropped without {@code close()} and released by a thread that builds
     * another, which must not wait for a loop that a handler holds up.
     */
    default void shutdownWithoutWaiting() {
        shutdown();
    }

    /**
     * Whether the calling thread itself ends the close of {@code h} once the client code it runs now returns: a wait
     * there for that close would never end.
     */
    default boolean endsCloseOnReturn(FileHandle h) {
        return false;
    }

    /**
     * Waits for {@code done} (a close) unless a thread that must complete it is kept from its work: an event loop
     * that has not turned for two seconds, held by code of the client's that blocks it (a completion handler or a
     * continuation waiting for something) or by a system call that does not return. Returns null once {@code done}
     * completed, or which thread holds it up and where. An interrupt does not end the wait; the flag is kept.
     */
    default String awaitUnlessHeldUp(java.util.concurrent.CompletableFuture<?> done) {
        boolean interrupted = false;
        while (true) {
            try {
                done.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    boolean isOpen();

    /** Requests in the kernel or on a worker right now. */
    int inFlight();

    /**
     * Requests submitted whose operation has not ended yet, wherever they wait (a client may have been told of a
     * timeout or a cancel meanwhile): zero once everything handed to this backend has run or been dropped.
     */
    default int unfinished() {
        return inFlight() + stats().queued();
    }

    /**
     * True when a client may make a read that cannot block ({@code RWF_NOWAIT}) on its own thread first, with the
     * descriptor pinned ({@link FileHandle#tryPin}), and hand the request over only when that read could not do it: the
     * backend then waits for such reads before it closes a descriptor. Not for {@code h} once the loop that serves it
     * has failed: every later operation of the file must learn why.
     */
    default boolean takesCallerReads(FileHandle h) {
        return false;
    }

    /** A request the client completed on its own thread ({@link #takesCallerReads}): counted as completed. */
    default void callerReadDone() {
    }

    /**
     * The thread that waits for generation {@code generation} of {@code r} (submitted) makes it itself when the
     * backend allows that and has not begun it: true when it did (the request is ended, or ends without this thread
     * waiting for another). Only syncs on io_uring so far; every other request, and every other backend, says false.
     */
    default boolean help(Request r, int generation) {
        return false;
    }

    /** The counters now (monitoring). */
    BackendStats stats();

    /** A snapshot of the state for diagnostics (a hang, a test failure). */
    default String describe() {
        return name();
    }
}
