package io.github.uring4j.file;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;

/**
 * One operation handed from a caller to a backend: what to do, the memory it touches (held strongly until the
 * completion has been processed), and whom to tell. Ops are pooled and are their own queue nodes, so the handler
 * path allocates nothing. Fields written by the caller before hand-off are read by the backend after it; the
 * queue (or the pool's lock) orders them.
 */
final class Op extends MpscQueue.Node implements Runnable {
    static final int OPEN = 1;
    static final int CLOSE = 2;
    static final int READ = 3;
    static final int WRITE = 4;
    static final int READV = 5;
    static final int WRITEV = 6;
    static final int FSYNC = 7;
    static final int SIZE = 8;
    static final int TRUNCATE = 9;
    static final int ALLOCATE = 10;
    static final int ADVISE = 11;
    static final int SYNC_RANGE = 12;
    static final int WRITE_SYNC = 13;
    /** A request to cancel {@link #target}; never holds a slot. */
    static final int CANCEL = 14;
    /** Runs {@link #control} on the event loop (registration and the like). */
    static final int CONTROL = 15;

    private static final String[] NAMES = {"?", "OPEN", "CLOSE", "READ", "WRITE", "READV", "WRITEV", "FSYNC",
        "STATX", "FTRUNCATE", "FALLOCATE", "FADVISE", "SYNC_FILE_RANGE", "WRITE+FDATASYNC", "ASYNC_CANCEL", "CONTROL"};

    static final int R_INT = 0;
    static final int R_LONG = 1;
    static final int R_VOID = 2;
    static final int R_FILE = 3;

    /** Most buffers an operation may name in one vectored call. */
    static final int MAX_IOV = 64;

    final OpPool pool;
    final Engine engine;

    /** Bumped each time the op goes back to the pool; a cancel for an older generation is ignored. */
    int generation;
    int kind;
    AsyncFile file;

    // ---- the transfer (current chunk for readFully/writeFully)
    long address;
    int length;
    long position;
    /** Bytes already transferred by earlier chunks. */
    long done;
    boolean fully;
    long timeoutNanos;
    /** The caller's buffer, held so the memory stays reachable until the completion. */
    Object keep;
    /** Direct or heap ByteBuffer whose position advances by the result. */
    ByteBuffer userBuffer;
    /** Heap target copied through {@link #bounce}. */
    MemorySegment heapSegment;
    MemorySegment bounce;
    ByteBuffer[] buffers;
    int iovCount;
    final long[] iovAddr = new long[MAX_IOV];
    final long[] iovLen = new long[MAX_IOV];

    // ---- other operations
    long arg;
    int flags;
    boolean metaData;

    // ---- open
    String path;
    MemorySegment cPath;
    int openFlags;
    boolean registered;
    boolean direct;
    boolean deleteOnClose;

    // ---- cancel requests
    Op target;
    int targetGeneration;

    // ---- control
    LoopTask control;
    CompletableFuture<Void> controlDone;

    // ---- completion
    int resultKind;
    CompletableFuture<Object> future;
    CompletionHandler<Object, Object> handler;
    Object attachment;
    volatile boolean cancelled;

    // ---- backend state
    int slot = -1;
    int cqes;
    int res0;
    int res1;
    boolean timedOut;
    /** Threads backend: the caller was told of a timeout; the completion only recycles. Guarded by this. */
    boolean timeoutFired;
    /** Threads backend: the completion was delivered; a late timeout does nothing. Guarded by this. */
    boolean finished;
    /** Where the op runs (io_uring backend). */
    UringLoop loop;
    Op nextLocal;

    Op(OpPool pool, Engine engine) {
        this.pool = pool;
        this.engine = engine;
    }

    String name() {
        return NAMES[kind];
    }

    String pathForErrors() {
        return file != null ? file.pathString() : path;
    }

    /** Threads backend: runs the blocking system calls. */
    @Override
    public void run() {
        ((ThreadEngine) engine).runOp(this);
    }

    // ------------------------------------------------------------------------------------------ completion

    void succeedInt(long n) {
        complete(resultKind == R_LONG ? (Object) Long.valueOf(n) : Boxes.of((int) n), null);
    }

    void succeedVoid() {
        complete(null, null);
    }

    void succeedFile(AsyncFile f) {
        complete(f, null);
    }

    void fail(Throwable t) {
        complete(null, t);
    }

    /** Tells the caller, after returning the op to its pool (so the callback may issue the next op at once). */
    private void complete(Object value, Throwable error) {
        if (timeoutNanos > 0 && engine instanceof ThreadEngine) {
            // The threads backend times out by telling the caller early; the blocking call finishes later.
            synchronized (this) {
                if (timeoutFired) {
                    recycle();
                    return;
                }
                finished = true;
            }
        }
        CompletableFuture<Object> f = future;
        CompletionHandler<Object, Object> h = handler;
        Object a = attachment;
        recycle();
        if (f != null) {
            if (error != null) {
                f.completeExceptionally(error);
            } else if (!f.complete(value) && value instanceof AsyncFile opened) {
                // The caller cancelled an open that had already succeeded: nobody will close this file.
                opened.closeAsync();
            }
        } else if (h != null) {
            try {
                if (error != null) {
                    h.failed(error, a);
                } else {
                    h.completed(value, a);
                }
            } catch (Throwable t) {
                Log.callbackFailed(t);
            }
        }
    }

    /** Clears every reference and returns the op to its pool. */
    void recycle() {
        synchronized (this) {
            generation++;
            cancelled = false;
            timeoutFired = false;
            finished = false;
        }
        kind = 0;
        file = null;
        address = 0;
        length = 0;
        position = 0;
        done = 0;
        fully = false;
        timeoutNanos = 0;
        keep = null;
        userBuffer = null;
        heapSegment = null;
        if (bounce != null) {
            engine.executor.bounces.release(bounce);
            bounce = null;
        }
        buffers = null;
        iovCount = 0;
        arg = 0;
        flags = 0;
        metaData = false;
        path = null;
        cPath = null;
        openFlags = 0;
        registered = false;
        direct = false;
        deleteOnClose = false;
        target = null;
        control = null;
        controlDone = null;
        resultKind = 0;
        future = null;
        handler = null;
        attachment = null;
        slot = -1;
        cqes = 0;
        res0 = 0;
        res1 = 0;
        timedOut = false;
        loop = null;
        nextLocal = null;
        pool.release(this);
    }

    /** Threads backend: the op's timeout expired while it was generation {@code gen}; tells the caller once. */
    void timeout(int gen) {
        CompletableFuture<Object> f;
        CompletionHandler<Object, Object> h;
        Object a;
        synchronized (this) {
            if (generation != gen || finished || timeoutFired) {
                return;
            }
            timeoutFired = true;
            f = future;
            h = handler;
            a = attachment;
        }
        java.nio.channels.InterruptedByTimeoutException e = new java.nio.channels.InterruptedByTimeoutException();
        if (f != null) {
            f.completeExceptionally(e);
        } else if (h != null) {
            try {
                h.failed(e, a);
            } catch (Throwable t) {
                Log.callbackFailed(t);
            }
        }
    }

    /** Marks the op cancelled if it is still the generation the canceller saw. */
    boolean markCancelled(int gen) {
        synchronized (this) {
            if (generation != gen) {
                return false;
            }
            cancelled = true;
            return true;
        }
    }
}
