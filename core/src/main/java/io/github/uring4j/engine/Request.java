package io.github.uring4j.engine;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One operation handed from a client (the file API, the channels) to a backend: what to do, on which file and
 * memory, and whom to tell. Requests are pooled and are their own queue nodes, so the handler path allocates
 * nothing. A backend keeps its own state about a request (its slot, its task) to itself.
 *
 * <p>Fields written by the client before {@link IoBackend#submit} are read by the backend after it; the hand-off
 * (queue or lock) orders them. Exactly one of {@link #succeed}, {@link #opened} and {@link #fail} ends a request;
 * it then returns to its pool before the client is told, so a callback may issue its next request at once.
 */
public final class Request extends MpscQueue.Node {
    public static final int OPEN = 1;
    public static final int CLOSE = 2;
    public static final int READ = 3;
    public static final int WRITE = 4;
    public static final int READV = 5;
    public static final int WRITEV = 6;
    public static final int FSYNC = 7;
    public static final int SIZE = 8;
    public static final int TRUNCATE = 9;
    public static final int ALLOCATE = 10;
    public static final int ADVISE = 11;
    public static final int SYNC_RANGE = 12;
    /** A write, then {@code fdatasync}: on io_uring one linked chain. */
    public static final int WRITE_SYNC = 13;
    /** Open a path read-only, read from its start, close it: one request, no file handle. */
    public static final int READ_FILE = 14;

    private static final String[] NAMES = {"?", "OPEN", "CLOSE", "READ", "WRITE", "READV", "WRITEV", "FSYNC",
        "STATX", "FTRUNCATE", "FALLOCATE", "FADVISE", "SYNC_FILE_RANGE", "WRITE+FDATASYNC", "READ_FILE"};

    /** Most buffers one vectored request may name. */
    public static final int MAX_IOV = 64;

    private static final VarHandle STAMP;

    static {
        try {
            STAMP = MethodHandles.lookup().findVarHandle(Request.class, "stamp", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static {
        FullHeap.loadNow(); // an end under a full heap waits there: not the time to load it
    }

    private final RequestPool pool;
    /**
     * The generation (bumped on each recycle) above {@link #GEN_SHIFT} bits of state: {@link #CANCELLED}, and who
     * runs a request a waiting caller may run itself ({@link #HELPABLE}, {@link #TAKEN}, {@link #HELPED},
     * {@link #PASSED}, {@link #DONE}). A cancel or a claim made for an older use is void.
     */
    @SuppressWarnings("unused")
    private volatile int stamp;
    /** Counted among its file's changes outstanding ({@link #countChange}) until it ends. */
    private boolean countedChange;
    /** The result a helping caller got ({@link #helped}), for the loop to end the request with when it comes. */
    private long helpValue;
    private Throwable helpError;
    /** The client was told already (a timeout, a close that gave up): the end only releases. */
    private volatile boolean told;

    // ---- what to do
    public int kind;
    /** The file; null for {@link #OPEN}. */
    public FileHandle handle;
    /** How to open, for {@link #OPEN}. */
    public OpenSpec open;
    /** File offset of the current chunk. */
    public long position;
    /**
     * File offset the transfer began at, set by the backend as it takes the request ({@link #taken}): read by a
     * thread that does not own the transfer's progress (a timer), which {@code position - done} could tear.
     */
    public long start;
    /** Native address the kernel reads or writes for the current chunk. */
    public long address;
    /** Bytes of the current chunk. */
    public int length;
    /** Bytes moved by earlier chunks. */
    public long done;
    /** Finish short transfers ({@code readFully}, {@code writeFully}). */
    public boolean fully;
    /** A {@link #READ_FILE} that reads on after a short read, until the end of the file or of the buffer. */
    public boolean untilEnd;
    /** 0: none. */
    public long timeoutNanos;
    /** {@link System#nanoTime()} when {@link #timeoutNanos} runs out, set by a backend as it takes the request in. */
    public long deadline;
    /** Size for truncate, length for allocate/advise/sync-range. */
    public long arg;
    /** Advice, sync-range flags. */
    public int flags;
    /** {@code fsync} (true) or {@code fdatasync}. */
    public boolean metaData;
    public int iovCount;
    private long[] iovAddr;
    private long[] iovLen;

    // ---- which memory (see Memory)
    /** The client's buffer or segment, held so its memory stays reachable until the end. */
    public Object keep;
    /** Library memory the kernel uses instead of the client's; returned to the bounce pool at the end. */
    public MemorySegment bounce;
    /** For a read through {@link #bounce}: the client's ByteBuffer or MemorySegment to copy into. */
    public Object copyBackTo;
    /** A ByteBuffer whose position advances by the bytes moved. */
    public ByteBuffer advance;
    /** Buffers of a vectored request, advanced in order. */
    public ByteBuffer[] advanceAll;
    /** A pool region the memory belongs to, pinned until the end. */
    public PinnedRegion pinned;

    // ---- whom to tell
    public Completion completion;
    public Object target;
    public Object attachment;
    /** The client object (an AsyncFile, a channel): kept reachable while the request is in flight. */
    public Object client;

    Request(RequestPool pool) {
        this.pool = pool;
    }

    /** {@code "READ"}, {@code "OPEN"}, ... for messages. */
    public String name() {
        return NAMES[kind];
    }

    /** The file's path, or the path being opened, for messages. */
    public String pathForErrors() {
        return handle != null ? handle.path : open != null ? open.path() : null;
    }

    // ------------------------------------------------------------------------------------------ vectors

    public void iov(int i, long address, long length) {
        if (iovAddr == null) {
            iovAddr = new long[MAX_IOV];
            iovLen = new long[MAX_IOV];
        }
        iovAddr[i] = address;
        iovLen[i] = length;
    }

    public long iovAddress(int i) {
        return iovAddr[i];
    }

    public long iovLength(int i) {
        return iovLen[i];
    }

    /** Bytes all buffers of a vectored request ask for. */
    public long iovTotal() {
        long t = 0;
        for (int i = 0; i < iovCount; i++) {
            t += iovLen[i];
        }
        return t;
    }

    // ------------------------------------------------------------------------------------------ cancellation

    private static final int CANCELLED = 1;
    /** Queued for a loop by another thread: a caller waiting for it may run it instead ({@link #claimHelp}). */
    private static final int HELPABLE = 2;
    /** A loop took it in: it is the loop's. */
    private static final int TAKEN = 4;
    /** A waiting caller claimed it before a loop took it in: the caller runs it. */
    private static final int HELPED = 8;
    /** The loop met it, helped, in its queue and left it to the caller, which ends it. */
    private static final int PASSED = 16;
    /** The caller finished before the loop met it: the loop ends it with the caller's result. */
    private static final int DONE = 32;
    /**
     * The end is moving a result into the client's memory ({@link #succeed}): a cancel waits for it; one that came
     * first keeps the end from touching that memory.
     */
    private static final int DELIVERING = 64;
    private static final int GEN_SHIFT = 7;

    /** The generation a client remembers to cancel this use of the request later. */
    public int generation() {
        return (int) STAMP.getVolatile(this) >>> GEN_SHIFT;
    }

    /**
     * Marks the request cancelled if it is still generation {@code gen}; false when it already ended or was cancelled
     * already. An end delivering its result into the client's memory (a copy, a position moved: no client code) is
     * waited for, so that nothing changes that memory once the cancel returned.
     */
    public boolean markCancelled(int gen) {
        long deadline = 0;
        for (int spins = 0;; spins++) {
            int s = (int) STAMP.getVolatile(this);
            if (s >>> GEN_SHIFT != gen || (s & CANCELLED) != 0) {
                return false;
            }
            if ((s & DELIVERING) != 0) {
                if (spins < 1000) {
                    Thread.onSpinWait();
                } else if (deadline == 0) {
                    deadline = System.nanoTime() + 1_000_000_000L;
                } else if (System.nanoTime() - deadline > 0) {
                    return false; // a delivery that never ends (an Error in it): nothing more will come
                } else {
                    Thread.yield();
                }
                continue;
            }
            if (STAMP.compareAndSet(this, s, s | CANCELLED)) {
                return true;
            }
        }
    }

    public boolean isCancelled() {
        return ((int) STAMP.getVolatile(this) & CANCELLED) != 0;
    }

    // ------------------------------------------------------------------------------------------ helping callers

    /**
     * Backend, as it takes the request from its client: a request that changes its file (a write, a sync, a truncate,
     * an allocation) counts among the file's changes outstanding until it ends, so that a waiter making a sync itself
     * ({@link #claimHelp}) can tell that no earlier change is still queued or in flight.
     */
    public void countChange() {
        if (handle != null && !countedChange && changes(kind)) {
            countedChange = true;
            handle.changeBegun();
        }
    }

    /** Backend, as it takes the request from its client: where its transfer begins ({@link #start}). */
    public void taken() {
        if (done == 0) {
            start = position;
        }
    }

    private static boolean changes(int kind) {
        return switch (kind) {
            case WRITE, WRITEV, FSYNC, WRITE_SYNC, TRUNCATE, ALLOCATE, SYNC_RANGE -> true;
            default -> false;
        };
    }

    /**
     * Backend, before it queues the request for a loop from another thread: a caller that waits for it may claim it
     * ({@link #claimHelp}) until the loop takes it in ({@link #takeIn}).
     */
    public void helpable() {
        STAMP.getAndBitwiseOr(this, HELPABLE);
    }

    /**
     * Loop, as it takes a request in from its queue: true when the request is the loop's to run; false when a waiting
     * caller claimed it first, in which case the caller ends it, or (when the caller was done already) this call
     * ended it with the caller's result.
     */
    public boolean takeIn() {
        for (;;) {
            int s = (int) STAMP.getVolatile(this);
            if ((s & HELPABLE) == 0 || (s & TAKEN) != 0) {
                return true;
            }
            if ((s & HELPED) == 0) {
                if (STAMP.compareAndSet(this, s, s | TAKEN)) {
                    return true;
                }
            } else if ((s & DONE) != 0) {
                endHelped();
                return false;
            } else if (STAMP.compareAndSet(this, s, s | PASSED)) {
                return false;
            }
        }
    }

    /**
     * A caller waiting for generation {@code gen} of this request claims it, to run it on its own thread: true when
     * it is the caller's now (no loop took it in, nobody cancelled it), and the caller then ends it with
     * {@link #helped}, once.
     */
    public boolean claimHelp(int gen) {
        for (;;) {
            int s = (int) STAMP.getVolatile(this);
            if (s >>> GEN_SHIFT != gen || (s & HELPABLE) == 0 || (s & (TAKEN | HELPED | CANCELLED)) != 0) {
                return false;
            }
            if (STAMP.compareAndSet(this, s, s | HELPED)) {
                return true;
            }
        }
    }

    /**
     * The helping caller's end of a request it claimed: {@code error}, or else {@code value} as {@link #succeed} takes
     * it. Ends the request now when the loop has met it in its queue already; otherwise the loop ends it when it does
     * (the request is still a node of that queue, and must not be reused before).
     */
    public void helped(long value, Throwable error) {
        helpValue = value;
        helpError = error;
        for (;;) {
            int s = (int) STAMP.getVolatile(this);
            if ((s & PASSED) != 0) {
                endHelped();
                return;
            }
            if (STAMP.compareAndSet(this, s, s | DONE)) {
                return; // the loop reads the result after this (volatile) write
            }
        }
    }

    private void endHelped() {
        Throwable e = helpError;
        long v = helpValue;
        helpError = null;
        if (e != null) {
            fail(e);
        } else {
            succeed(v);
        }
    }

    // ------------------------------------------------------------------------------------------ the end

    /** Succeeds with {@code value} (bytes, a size, -1 at end of file, 0 for void operations). */
    public void succeed(long value) {
        Throwable copy = null;
        // A client told already (a timeout, a close) may be using its buffer again: nothing more is delivered to it.
        if (value > 0 && !told) {
            // Claimed against a cancel: a cancel that came first leaves the client's buffer as it was (its contents
            // and position; the end says it was cancelled, whatever it finds the future), one that comes later waits
            // for the delivery.
            if (claimDelivery()) {
                copy = Memory.finish(this, value);
            } else if (copyBackTo != null || advance != null || advanceAll != null) {
                copy = new java.util.concurrent.CancellationException(name() + " cancelled");
            }
        }
        end(value, null, copy);
    }

    /**
     * Backend, before a call that moves bytes nobody can move again (a pipe's): claims the delivery of its result
     * now, so that a cancel coming during the call waits for its end rather than win while the bytes move and lose
     * them. False, and nothing claimed, when the request was cancelled already. A call that moved nothing gives the
     * claim back with {@link #releaseDelivery}.
     */
    public boolean holdDelivery() {
        return claimDelivery();
    }

    /** Gives back a {@link #holdDelivery} claim whose call moved nothing: a cancel can win again. */
    public void releaseDelivery() {
        STAMP.getAndBitwiseAnd(this, ~DELIVERING);
    }

    /** Marks the end delivering its result, unless the request was cancelled first. */
    private boolean claimDelivery() {
        for (;;) {
            int s = (int) STAMP.getVolatile(this);
            if ((s & CANCELLED) != 0) {
                return false;
            }
            if (STAMP.compareAndSet(this, s, s | DELIVERING)) {
                return true;
            }
        }
    }

    /** An open succeeded with {@code handle}. */
    public void opened(FileHandle h) {
        end(0, h, null);
    }

    /**
     * Fails with {@code error}. A full transfer whose first pieces moved ({@link Rules#partial}) and that failed on
     * its own (not cancelled, timed out or closed by its client) still delivers them, as the client's own loop of
     * calls would have: a buffer's position moves past them, a bounced read's bytes are copied back. A cancel that
     * comes first wins: the request then fails as cancelled, as {@link #succeed} does, and delivers nothing.
     */
    public void fail(Throwable error) {
        if (Rules.partial(this) && !told && !Rules.interruption(error)) {
            if (claimDelivery()) {
                Throwable copy = Memory.finish(this, done);
                if (copy != null && copy != error) {
                    error.addSuppressed(copy);
                }
            } else {
                error = new java.util.concurrent.CancellationException(name() + " cancelled");
            }
        }
        end(0, null, error);
    }

    /**
     * Tells the client {@code error} now, while the backend keeps the request (and its memory) until the kernel
     * or the blocking call is done with it; the real end then only releases. The backend serialises this with the
     * end.
     */
    public void tellEarly(Throwable error) {
        Runnable tell = claimEarlyTell(error);
        if (tell != null) {
            tell.run();
        }
    }

    /**
     * The first half of {@link #tellEarly}: marks the client told and returns what tells it (null when it was told
     * already), so that a backend can serialise the claim with the end under a lock and run the client's code (a
     * handler, which may do anything, close() included) after letting the lock go.
     */
    public Runnable claimEarlyTell(Throwable error) {
        if (told) {
            return null;
        }
        Completion c = completion;
        Object t = target;
        Object a = attachment;
        // made before the claim: a claim whose telling could not be made (the heap full) told nobody, ever
        Runnable tell = c == null ? () -> { } : () -> tell(c, t, a, 0, null, error);
        told = true;
        return tell;
    }

    public boolean wasTold() {
        return told;
    }

    /** Returns a request that was never submitted (building it failed) to its pool, releasing what it holds. */
    public void discard() {
        recycle();
    }

    private void end(long value, FileHandle h, Throwable error) {
        Completion c = completion;
        Object t = target;
        Object a = attachment;
        boolean already = told;
        recycle();
        if (!already && c != null) {
            tell(c, t, a, value, h, error);
        } else if (already && h != null) {
            // Nobody will get this file: its opener was told it failed.
            h.orphaned();
        }
    }

    /**
     * Tells the client, again after an {@code OutOfMemoryError} (for up to ten seconds): the request is its pool's
     * again or the backend's only, and a telling the full heap stopped was never made (the first completion ever made
     * a cache, failed there, and 1 of 64 writes' callers waited for ever). A telling may be made again: a future
     * completes once, and a handler's own errors are caught before they get here.
     */
    private static void tell(Completion c, Object t, Object a, long value, FileHandle h, Throwable error) {
        for (int tries = 0;; tries++) {
            try {
                c.complete(t, a, value, h, error);
                return;
            } catch (OutOfMemoryError e) {
                if (!FullHeap.waitForMemory(tries)) {
                    throw e;
                }
            }
        }
    }

    /** Releases the memory, clears every reference and returns the request to its pool. */
    private void recycle() {
        for (int tries = 0;; tries++) {
            try {
                // each piece is let go of before it is given back: a piece whose giving back met a full heap is left
                // to the GC, and the next try goes on with the rest (before, the request's end stopped here, and its
                // caller was never told)
                Memory.release(this, pool.bounces);
                break;
            } catch (OutOfMemoryError e) {
                if (!FullHeap.waitForMemory(tries)) {
                    break;
                }
            }
        }
        if (countedChange) {
            countedChange = false;
            handle.changeEnded();
        }
        // Release: the new generation is visible before the request can be reused; the pool's hand-off orders the rest.
        STAMP.setRelease(this, (((int) STAMP.getVolatile(this) >>> GEN_SHIFT) + 1) << GEN_SHIFT);
        if (told) {
            told = false;
        }
        kind = 0;
        handle = null;
        open = null;
        position = 0;
        start = 0;
        address = 0;
        length = 0;
        done = 0;
        fully = false;
        untilEnd = false;
        timeoutNanos = 0;
        deadline = 0;
        arg = 0;
        flags = 0;
        metaData = false;
        iovCount = 0;
        keep = null;
        copyBackTo = null;
        advance = null;
        advanceAll = null;
        completion = null;
        target = null;
        attachment = null;
        client = null;
        pool.release(this);
    }
}
