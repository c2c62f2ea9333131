package io.github.uring4j.engine;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open file as the engine knows it: its descriptor (always a plain one, valid on every ring and thread), the
 * access it was opened for, the alignment {@code O_DIRECT} needs, and whether it is open, closing or closed. A
 * backend subclasses it for its own state (the io_uring backend's registered slot and per-loop counts). Clients
 * (the file API, the channels) hold it; the engine never knows them.
 */
public abstract class FileHandle {
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    public final String path;
    public final MemorySegment cPath;
    public final int fd;
    public final boolean readable;
    public final boolean writable;
    public final boolean direct;
    public final boolean deleteOnClose;
    /** {@code O_DSYNC} or {@code O_SYNC}: every write waits for the device. */
    public final boolean syncWrites;
    /** Buffer-address alignment {@code O_DIRECT} needs (checked only when {@link #direct}). */
    public final int memAlign;
    /** File offset and length alignment {@code O_DIRECT} needs (checked only when {@link #direct}). */
    public final int offAlign;
    private final IoBackend backend;
    private final AtomicInteger state = new AtomicInteger(OPEN);
    /** Calls a client makes on its own thread with the descriptor now ({@link #tryPin}). */
    private final AtomicInteger pins = new AtomicInteger();
    /** Requests that change the file (writes, syncs, ...) submitted and not ended yet ({@link Request#countChange}). */
    private final AtomicInteger changes = new AtomicInteger();
    /**
     * What a client's own read of the file may be: 0 not known yet, 1 a regular file, 2 not one, 3 a regular file in
     * memory (see {@link #callerReads}).
     */
    private volatile int callerReads;
    /** Completed by {@link #markClosed()} once someone waits for it ({@link #whenClosed}); guarded by this. */
    private java.util.concurrent.CompletableFuture<Void> closedSignal;
    /** Why the backend closed the file on its own (its event loop failed), or null. */
    private volatile String closedBecause;
    /**
     * A descriptor lent by its owner ({@link IoBackend#adopt}): what tells the owner the backend is done with it, taken
     * (set to null) by the one {@link #giveBack}; null for a descriptor the backend owns and closes.
     */
    private final java.util.concurrent.atomic.AtomicReference<Runnable> lender =
            new java.util.concurrent.atomic.AtomicReference<>();
    private volatile boolean borrowed;

    protected FileHandle(IoBackend backend, OpenSpec spec, int fd, int memAlign, int offAlign) {
        this.backend = backend;
        this.path = spec.path();
        this.cPath = spec.deleteOnClose() ? spec.cPath() : null; // for the unlink only (deleteIfAsked)
        this.fd = fd;
        this.readable = spec.readable();
        this.writable = spec.writable();
        this.direct = spec.direct();
        this.deleteOnClose = spec.deleteOnClose();
        this.syncWrites = (spec.flags() & io.github.uring4j.linux.Uapi.O_DSYNC) != 0; // O_SYNC includes the bit
        this.memAlign = Math.max(1, memAlign);
        this.offAlign = Math.max(1, offAlign);
    }

    /**
     * {@code DELETE_ON_CLOSE} as the JDK's channels make it on Linux: once the open succeeded, before the opener hears
     * of it, the name goes; the file lives on until its descriptor closes. So the file is gone even when the program
     * exits (or is killed) without closing it, and a close never deletes a file that took the name meanwhile (an unlink
     * at close did both). A failure is logged, as the JDK ignores it. The threads backend calls this on its worker;
     * an io_uring loop links an {@code UNLINKAT} to the open instead, made by an io-wq worker.
     */
    public void deleteIfAsked() {
        if (!deleteOnClose) {
            return;
        }
        try {
            CallScratch sc = CallScratch.get();
            int r = io.github.uring4j.linux.LeanCalls.unlink(sc.capture, cPath);
            if (r < 0 && r != -io.github.uring4j.linux.Errno.ENOENT) {
                Log.warn("DELETE_ON_CLOSE of " + path + " failed: " + io.github.uring4j.linux.Errno.name(-r));
            }
        } catch (IllegalStateException | LinkageError e) {
            try {
                java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(path)); // native calls cannot be made here
            } catch (java.io.IOException | RuntimeException failed) {
                Log.warn("DELETE_ON_CLOSE of " + path + " failed: " + failed);
            }
        }
    }

    /** Requests that change the file, submitted and not ended yet: a sync made by its waiter must come after them. */
    public int changesOutstanding() {
        return changes.get();
    }

    void changeBegun() {
        changes.incrementAndGet();
    }

    void changeEnded() {
        changes.decrementAndGet();
    }

    /** True when operations go through a registered-file slot of a ring. */
    public abstract boolean isRegistered();

    public IoBackend backend() {
        return backend;
    }

    /** Neither closing nor closed: new requests are accepted. */
    public boolean isOpen() {
        return state.get() == OPEN;
    }

    /** The descriptor is closed (or handed to the kernel to close). */
    public boolean isClosed() {
        return state.get() == CLOSED;
    }

    /**
     * Keeps the descriptor from being closed while the calling thread makes one system call with it that cannot block
     * (a read with {@code RWF_NOWAIT}); false once the file is closing, when the call must not be made. Every
     * {@code tryPin} that returned true is followed by one {@link #unpin}.
     */
    public boolean tryPin() {
        pins.incrementAndGet();
        if (state.get() != OPEN) {
            pins.decrementAndGet();
            return false;
        }
        return true;
    }

    public void unpin() {
        pins.decrementAndGet();
    }

    /**
     * Backend, closing the descriptor (after {@link #beginClose()}): waits until no client call holds it. Each holds it
     * for one call that does not block, so the wait is that call's time at most; a descriptor closed meanwhile could be
     * given to another open, and the call would read that file.
     */
    public void awaitUnpinned() {
        for (int i = 1; pins.get() > 0; i++) {
            if ((i & 1023) == 0) {
                Thread.yield(); // the holder may be waiting for this CPU
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * 0: not known whether the caller's own reads may be tried; 1: they may, with {@code RWF_NOWAIT}; 2: they may not;
     * 3: they may, plain (the file lives in memory, where {@code RWF_NOWAIT} is refused).
     */
    public int callerReads() {
        return callerReads;
    }

    public void callerReads(int how) {
        callerReads = how;
    }

    /** Stops new requests; true for the one caller that starts the close. */
    public boolean beginClose() {
        return state.compareAndSet(OPEN, CLOSING);
    }

    /** The backend closed the descriptor. */
    public void markClosed() {
        state.set(CLOSED);
        java.util.concurrent.CompletableFuture<Void> s;
        synchronized (this) {
            s = closedSignal;
        }
        if (s != null) {
            s.complete(null);
        }
    }

    /**
     * Runs {@code action} once the backend has closed the file ({@link #markClosed()}), at once if it has: for a close
     * the backend refused because it is shutting down, which closes the file itself.
     */
    public void whenClosed(Runnable action) {
        java.util.concurrent.CompletableFuture<Void> s;
        synchronized (this) {
            if (closedSignal == null) {
                closedSignal = new java.util.concurrent.CompletableFuture<>();
            }
            s = closedSignal;
        }
        if (isClosed()) {
            s.complete(null); // marked before the signal existed
        }
        s.thenRun(action);
    }

    /**
     * The backend is about to close the file because it failed: said before the close begins, so that a request
     * refused as soon as the file stops taking requests learns {@code why} too.
     */
    public void closingBecause(String why) {
        closedBecause = why;
    }

    /** Why the backend closed the file on its own, or null when it was closed normally (or is open). */
    public String closedBecause() {
        return closedBecause;
    }

    /**
     * Backend, as it adopts the descriptor, before anyone else can see this handle: the descriptor stays its owner's,
     * the backend never closes it, and runs {@code giveBack} once it will not use it again ({@link #giveBack}).
     */
    public void lentBy(Runnable giveBack) {
        lender.set(java.util.Objects.requireNonNull(giveBack));
        borrowed = true;
    }

    /** Whether the descriptor is its owner's ({@link #lentBy}): the backend gives it back instead of closing it. */
    public boolean borrowed() {
        return borrowed;
    }

    /**
     * Backend, where it would close an owned descriptor, once no call of its own can use it any more: tells the
     * owner of a borrowed one, once.
     */
    public void giveBack() {
        Runnable r = lender.getAndSet(null);
        if (r != null) {
            r.run();
        }
    }

    /** Closes the file with nobody to tell: it was dropped unreachable, or its opener gave up on it. */
    public void orphaned() {
        if (beginClose()) {
            backend.closeOrphan(this);
        }
    }

    @Override
    public String toString() {
        return path + " (fd " + fd + (isRegistered() ? ", registered" : "") + (direct ? ", O_DIRECT" : "")
                + (isOpen() ? "" : isClosed() ? ", closed" : ", closing") + ")";
    }
}
