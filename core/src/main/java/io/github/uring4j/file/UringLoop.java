package io.github.uring4j.file;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.IoVecArray;
import io.github.uring4j.ring.Sqe;
import io.github.uring4j.ring.StatxBuffer;
import io.github.uring4j.ring.Timespec;
import io.github.uring4j.ring.UringException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One event loop: a thread that owns one ring. Other threads hand it {@link Op}s through an MPSC queue and, when
 * it sleeps, wake it by writing the eventfd whose read is always armed on the ring. Each op in flight holds a
 * slot of a preallocated table: {@code user_data} is the slot number plus which of the op's entries completed,
 * and the slot's native scratch (timespec, statx buffer, iovec array) is allocated once at start.
 *
 * <p>Everything below the "loop thread" line runs only on the loop thread.
 */
final class UringLoop implements Runnable, CqeHandler {
    private static final long WAKE_UD = -1L;
    private static final long CANCEL_ALL_UD = -2L;
    private static final long IGNORE_UD = -3L;
    private static final int SUB_MAIN = 0;
    private static final int SUB_LINKED = 1;
    private static final int SUB_TIMEOUT = 2;
    private static final int SUB_CANCEL = 3;

    private static final int AWAKE = 0;
    private static final int SLEEPING = 1;
    /** A producer is writing the eventfd; the loop must not close it meanwhile. */
    private static final int WAKING = 2;
    private static final int DEAD = 3;

    /** The 8 bytes a producer writes to the eventfd: the value 1. Read-only for the kernel. */
    private static final MemorySegment ONE_SEG;
    /** "" for statx with AT_EMPTY_PATH. */
    private static final MemorySegment EMPTY_PATH = Arena.global().allocateFrom("");

    static {
        MemorySegment one = Arena.global().allocate(8, 8);
        one.set(JAVA_LONG, 0, 1L);
        ONE_SEG = one;
    }

    final UringEngine engine;
    final String name;
    private final Syscalls sys;
    private final IoExecutor.Config config;
    private final MpscQueue queue = new MpscQueue();
    private final AtomicInteger wakeState = new AtomicInteger(AWAKE);
    private final Object terminationLock = new Object();
    final CompletableFuture<Void> started = new CompletableFuture<>();
    final CompletableFuture<Void> terminatedFuture = new CompletableFuture<>();
    volatile boolean closing;
    private volatile boolean terminated;
    volatile int inFlightCount;
    /** READ_FIXED/WRITE_FIXED entries prepared (diagnostics and tests). */
    volatile long fixedOps;
    Thread thread;

    // ------------------------------------------------------------------------------------------ loop thread
    private IoUring ring;
    private Arena arena;
    private int eventFd = -1;
    private FileTarget eventTarget;
    private MemorySegment eventBuf;
    private Op[] slots;
    private int[] free;
    private int freeTop;
    private MemorySegment[] timespecs;
    private StatxBuffer[] statx;
    private IoVecArray[] iovs;
    /** CQEs still to come for SQEs already prepared. */
    private long expected;
    private boolean wakeArmed;
    /** The eventfd read failed: sleep in short timed waits instead of until woken. */
    private boolean wakeBroken;
    private boolean cancelAllSent;
    private boolean fileTable;
    private boolean ftruncateOp;
    /** Ops waiting for a slot, in arrival order (linked through {@link Op#nextLocal}). */
    private Op backlogHead;
    private Op backlogTail;
    /** Ops holding a slot that need their next entries prepared (continuations, deferred closes). */
    private Op retryHead;
    private Op retryTail;
    private final ArrayList<AsyncFile> files = new ArrayList<>();
    private long fixedBase;
    private long fixedEnd;
    private long fixedSize;

    UringLoop(UringEngine engine, String name, Syscalls sys, IoExecutor.Config config) {
        this.engine = engine;
        this.name = name;
        this.sys = sys;
        this.config = config;
    }

    // ------------------------------------------------------------------------------------------ any thread

    /** Queues {@code op}; wakes the loop if it sleeps. */
    void enqueue(Op op) {
        if (closing) {
            failClosed(op);
            return;
        }
        queue.offer(op);
        if (terminated) {
            // The loop is gone: whoever holds the lock is the consumer now.
            synchronized (terminationLock) {
                failQueued();
            }
            return;
        }
        wake();
    }

    void wake() {
        if (wakeState.get() == SLEEPING && wakeState.compareAndSet(SLEEPING, WAKING)) {
            sys.write(eventFd, ONE_SEG, 8);
            wakeState.set(AWAKE);
        }
    }

    /** Starts closing: in-flight work is cancelled, queued work fails. */
    void beginClose() {
        closing = true;
        wake();
    }

    boolean isTerminated() {
        return terminated;
    }

    // ------------------------------------------------------------------------------------------ loop thread

    @Override
    public void run() {
        try {
            init();
        } catch (Throwable t) {
            started.completeExceptionally(t);
            freeResources(true);
            terminate();
            return;
        }
        started.complete(null);
        boolean clean = false;
        try {
            loop();
            clean = true;
        } catch (Throwable t) {
            Log.loopFailed(name, t);
            failEverything(new IOException("uring4j event loop " + name + " failed", t));
        } finally {
            closeFiles();
            // After a failure the kernel may still own in-flight memory: leave the scratch arena to the process.
            freeResources(!clean);
            terminate();
        }
    }

    private void init() throws UringException {
        int inflight = config.inFlightLimit;
        // CQ room for every op in flight; links, timeouts and cancels beyond that overflow into the kernel's
        // backlog (IORING_FEAT_NODROP), which reap() flushes. Ring memory counts against memlock on some kernels.
        long cq = Math.min(65536, 2L * Math.max(config.entries, inflight));
        IoUring.Options o = IoUring.options().entries(config.entries).cqEntries((int) cq).flags(config.setupFlags);
        io.github.uring4j.linux.InternalAccess.ringOptions().syscalls(o, sys);
        ring = IoUring.open(o);
        arena = Arena.ofShared();
        eventFd = sys.eventfd(0, Uapi.EFD_CLOEXEC);
        if (eventFd < 0) {
            throw new UringException("eventfd", -eventFd);
        }
        eventTarget = FileTarget.fd(eventFd);
        eventBuf = arena.allocate(8, 8);
        slots = new Op[inflight];
        free = new int[inflight];
        timespecs = new MemorySegment[inflight];
        statx = new StatxBuffer[inflight];
        iovs = new IoVecArray[inflight];
        for (int i = 0; i < inflight; i++) {
            free[i] = inflight - 1 - i;
            timespecs[i] = Timespec.allocate(arena, Duration.ZERO);
            statx[i] = StatxBuffer.allocate(arena);
            iovs[i] = IoVecArray.allocate(arena, Op.MAX_IOV);
        }
        freeTop = inflight;
        if (config.registeredFiles > 0) {
            try {
                ring.registerFilesSparse(config.registeredFiles);
                fileTable = true;
            } catch (UringException e) {
                fileTable = false; // before 5.19: FileOption.REGISTERED falls back to plain descriptors
            }
        }
        ftruncateOp = ring.probe().supports(io.github.uring4j.ring.Opcode.FTRUNCATE);
    }

    private void loop() throws UringException {
        long spinNanos = config.spinNanos;
        while (true) {
            boolean progress = false;
            if (closing) {
                startClosing();
            }
            progress |= processRetries();
            progress |= drain();
            if (!wakeArmed && !closing && !wakeBroken) {
                armWake();
            }
            if (ring.sqPending() > 0) {
                ring.submit();
            }
            progress |= ring.reap(this) > 0;
            if (closing && expected == 0 && retryHead == null) {
                failQueued();
                return;
            }
            if (progress) {
                continue;
            }
            if (spinNanos > 0 && spin(spinNanos)) {
                continue;
            }
            // Sleep: announce it, then look once more (a producer that queued before seeing SLEEPING is seen
            // here; one that queues after sees SLEEPING and writes the eventfd).
            while (!wakeState.compareAndSet(AWAKE, SLEEPING)) {
                Thread.onSpinWait(); // a producer is finishing its eventfd write
            }
            if (hasWork()) {
                wakeState.compareAndSet(SLEEPING, AWAKE);
                continue;
            }
            if (wakeBroken) {
                ring.submit();
                ring.waitCompletions(1, 1_000_000L);
            } else {
                ring.submitAndWait(1);
            }
            wakeState.compareAndSet(SLEEPING, AWAKE);
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

    private boolean hasWork() {
        return (closing && !cancelAllSent) || retryHead != null || !queue.isEmpty() || (backlogHead != null && freeTop > 0);
    }

    private void armWake() throws UringException {
        Sqe s = sqe(1);
        if (s == null) {
            return;
        }
        s.read(eventTarget, eventBuf, 0).userData(WAKE_UD);
        expected++;
        wakeArmed = true;
    }

    /** An SQE with room for {@code need} entries in this submission, or null when the SQ stays full. */
    private Sqe sqe(int need) throws UringException {
        if (ring.sqSpaceLeft() < need) {
            ring.submit();
            if (ring.sqSpaceLeft() < need) {
                return null;
            }
        }
        return ring.nextSqe();
    }

    private static long ud(int slot, int sub) {
        return ((long) sub << 32) | slot;
    }

    // ---- taking work

    /** Moves queued ops onto the ring (or the backlog when slots run out). */
    private boolean drain() throws UringException {
        boolean progress = false;
        // Ops that waited for a slot go first, in order.
        while (backlogHead != null && freeTop > 0 && !closing) {
            Op op = backlogHead;
            // Unlink first: startOp may complete the op at once, and completion recycles it (and its link).
            Op next = op.nextLocal;
            op.nextLocal = null;
            if (!startOp(op)) {
                op.nextLocal = next;
                break;
            }
            backlogHead = next;
            if (next == null) {
                backlogTail = null;
            }
            progress = true;
        }
        MpscQueue.Node n;
        while ((n = queue.poll()) != null) {
            Op op = (Op) n;
            progress = true;
            if (op.kind == Op.CANCEL) {
                cancelRequest(op);
                continue;
            }
            if (op.kind == Op.CONTROL) {
                control(op);
                continue;
            }
            if (closing) {
                op.fail(new AsynchronousCloseException());
                continue;
            }
            if (backlogHead != null || freeTop == 0 || !startOp(op)) {
                if (backlogTail == null) {
                    backlogHead = op;
                } else {
                    backlogTail.nextLocal = op;
                }
                backlogTail = op;
            }
        }
        return progress;
    }

    /** Fails everything still queued; the consumer is the loop or, after termination, the lock holder. */
    private void failQueued() {
        MpscQueue.Node n;
        while ((n = queue.poll()) != null || !queue.isEmpty()) {
            if (n == null) {
                Thread.onSpinWait();
                continue;
            }
            failClosed((Op) n);
        }
    }

    private static void failClosed(Op op) {
        if (op.kind == Op.CANCEL) {
            op.recycle();
        } else if (op.kind == Op.CONTROL) {
            CompletableFuture<Void> done = op.controlDone;
            op.recycle();
            done.completeExceptionally(new AsynchronousCloseException());
        } else {
            op.fail(new AsynchronousCloseException());
        }
    }

    private void control(Op op) {
        CompletableFuture<Void> done = op.controlDone;
        LoopTask task = op.control;
        op.recycle();
        try {
            task.run(this);
            done.complete(null);
        } catch (Throwable t) {
            done.completeExceptionally(t);
        }
    }

    private void cancelRequest(Op req) throws UringException {
        Op t = req.target;
        int gen = req.targetGeneration;
        req.recycle();
        if (!t.markCancelled(gen)) {
            return; // already finished
        }
        if (t.slot >= 0 && slots[t.slot] == t && t.cqes > 0) {
            Sqe s = sqe(1);
            if (s != null) {
                s.cancel(ud(t.slot, SUB_MAIN), 0).userData(ud(t.slot, SUB_CANCEL));
                t.cqes++;
                expected++;
            }
        }
        // Not yet started (backlog) or between entries (retry list): failed when reached.
    }

    /** Gives {@code op} a slot and prepares its entries; false when the SQ has no room (op untouched). */
    private boolean startOp(Op op) throws UringException {
        if (op.cancelled) {
            op.fail(new CancellationException(op.name() + " cancelled"));
            return true;
        }
        AsyncFile f = op.file;
        if (f != null && op.kind != Op.OPEN && f.loopClosing) {
            op.fail(new AsynchronousCloseException());
            return true;
        }
        if (ring.sqSpaceLeft() < 3) {
            ring.submit();
            if (ring.sqSpaceLeft() < 3) {
                return false;
            }
        }
        int slot = free[--freeTop];
        slots[slot] = op;
        op.slot = slot;
        inFlightCount++;
        if (f != null && op.kind != Op.OPEN && op.kind != Op.CLOSE) {
            f.inflight++;
        }
        encodeOrFail(op);
        return true;
    }

    /** Encodes; an encoder that refuses (argument, probe) fails the op alone, never the loop. */
    private void encodeOrFail(Op op) {
        try {
            encode(op);
        } catch (RuntimeException | UringException e) {
            finishFail(op, e);
        }
    }

    private boolean processRetries() throws UringException {
        boolean progress = false;
        while (retryHead != null) {
            Op op = retryHead;
            if (ring.sqSpaceLeft() < 3) {
                ring.submit();
                if (ring.sqSpaceLeft() < 3) {
                    break;
                }
            }
            retryHead = op.nextLocal;
            if (retryHead == null) {
                retryTail = null;
            }
            op.nextLocal = null;
            progress = true;
            if (op.kind != Op.CLOSE) {
                if (op.cancelled) {
                    finishFail(op, new CancellationException(op.name() + " cancelled"));
                    continue;
                }
                if (closing || (op.file != null && op.file.loopClosing)) {
                    finishFail(op, new AsynchronousCloseException());
                    continue;
                }
            }
            encodeOrFail(op);
        }
        return progress;
    }

    private void retry(Op op) {
        op.nextLocal = null;
        if (retryTail == null) {
            retryHead = op;
        } else {
            retryTail.nextLocal = op;
        }
        retryTail = op;
    }

    // ---- encoding (room for 3 entries is guaranteed by the caller)

    private void encode(Op op) throws UringException {
        int slot = op.slot;
        AsyncFile f = op.file;
        op.res0 = 0;
        op.res1 = 0;
        op.timedOut = false;
        Sqe s = ring.nextSqe();
        switch (op.kind) {
            case Op.READ, Op.WRITE, Op.WRITE_SYNC -> {
                boolean read = op.kind == Op.READ;
                long a = op.address;
                int len = op.length;
                int idx = fixedIndex(a, len);
                if (idx >= 0) {
                    fixedOps++;
                    if (read) {
                        s.readFixed(f.target, a, len, op.position, idx);
                    } else {
                        s.writeFixed(f.target, a, len, op.position, idx);
                    }
                } else if (read) {
                    s.read(f.target, a, len, op.position);
                } else {
                    s.write(f.target, a, len, op.position);
                }
                s.userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
                if (op.kind == Op.WRITE_SYNC) {
                    s.link();
                    ring.nextSqe().fsync(f.target, true).userData(ud(slot, SUB_LINKED));
                    op.cqes = 2;
                } else if (op.timeoutNanos > 0) {
                    s.link();
                    Timespec.set(timespecs[slot], op.timeoutNanos);
                    ring.nextSqe().linkTimeout(timespecs[slot], 0).userData(ud(slot, SUB_TIMEOUT));
                    op.cqes = 2;
                }
            }
            case Op.READV, Op.WRITEV -> {
                IoVecArray iov = iovs[slot];
                for (int i = 0; i < op.iovCount; i++) {
                    iov.set(i, op.iovAddr[i], op.iovLen[i]);
                }
                if (op.kind == Op.READV) {
                    s.readv(f.target, iov, op.iovCount, op.position);
                } else {
                    s.writev(f.target, iov, op.iovCount, op.position);
                }
                s.userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.FSYNC -> {
                s.fsync(f.target, !op.metaData).userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.SIZE -> {
                if (f.fixedSlot >= 0) {
                    s.statx(Uapi.AT_FDCWD, f.cPath, 0, Statx.STATX_SIZE, statx[slot].segment());
                } else {
                    s.statx(f.fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE, statx[slot].segment());
                }
                s.userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.TRUNCATE -> {
                if (ftruncateOp) {
                    s.ftruncate(f.target, op.arg).userData(ud(slot, SUB_MAIN));
                } else {
                    // Before 6.9 there is no IORING_OP_FTRUNCATE: a NOP carries the result of the plain call.
                    int r = f.fixedSlot >= 0 ? -Errno.EOPNOTSUPP : sys.ftruncate(f.fd, op.arg);
                    s.nop().userData(ud(slot, SUB_MAIN));
                    op.res1 = r;
                }
                op.cqes = 1;
            }
            case Op.ALLOCATE -> {
                s.fallocate(f.target, 0, op.position, op.arg).userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.ADVISE -> {
                s.fadvise(f.target, op.position, (int) Math.min(op.arg, Integer.MAX_VALUE), op.flags)
                        .userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.SYNC_RANGE -> {
                // A range too long for the SQE's length becomes 0, "to the end of the file": more, never less.
                s.syncFileRange(f.target, op.position, op.arg > Integer.MAX_VALUE ? 0 : (int) op.arg, op.flags)
                        .userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.OPEN -> {
                if (op.registered && fileTable) {
                    // The kernel refuses O_CLOEXEC for a registered slot (there is no descriptor to inherit).
                    s.openatDirect(Uapi.AT_FDCWD, op.cPath, op.openFlags & ~Uapi.O_CLOEXEC, 0666, -1);
                } else {
                    op.registered = false;
                    s.openat(Uapi.AT_FDCWD, op.cPath, op.openFlags, 0666);
                }
                s.userData(ud(slot, SUB_MAIN));
                op.cqes = 1;
            }
            case Op.CLOSE -> encodeClose(op, s);
            default -> throw new IllegalStateException("op kind " + op.kind);
        }
        expected += op.cqes;
    }

    /**
     * A close first cancels what is in flight on the file, waits for it, then closes the descriptor or slot.
     * {@link Op#flags} is the stage: 0 new, 1 waiting for the file's ops, 2 close sent.
     */
    private void encodeClose(Op op, Sqe s) {
        AsyncFile f = op.file;
        f.loopClosing = true;
        if (op.flags == 0 && f.inflight > 0) {
            op.flags = 1;
            s.cancelFile(f.target).userData(ud(op.slot, SUB_CANCEL));
            op.cqes = 1;
            f.pendingClose = op;
            return;
        }
        op.flags = 2;
        if (f.fixedSlot >= 0) {
            s.closeFixed(f.fixedSlot);
        } else {
            s.close(f.fd);
        }
        s.userData(ud(op.slot, SUB_MAIN));
        op.cqes = 1;
    }

    private int fixedIndex(long address, int length) {
        if (address >= fixedBase && address < fixedEnd) {
            long idx = (address - fixedBase) / fixedSize;
            long bufEnd = fixedBase + (idx + 1) * fixedSize;
            if (address + length <= bufEnd) {
                return (int) idx;
            }
        }
        return -1;
    }

    // ---- completions

    @Override
    public void handle(long userData, int res, int cqeFlags) {
        expected--;
        if (userData < 0) {
            if (userData == WAKE_UD) {
                wakeArmed = false;
                if (res < 0 && res != -Errno.ECANCELED && res != -Errno.EINTR) {
                    // The ring cannot read the eventfd (IOPOLL rings take only pollable file I/O): nap instead.
                    wakeBroken = true;
                }
            }
            return;
        }
        int slot = (int) userData;
        int sub = (int) (userData >>> 32);
        Op op = slots[slot];
        if (op == null) {
            return; // cannot happen: a slot is freed only after its last CQE
        }
        ResultFilter filter = config.resultFilter;
        if (filter != null && (sub == SUB_MAIN || sub == SUB_LINKED)) {
            res = filter.filter(op.kind, sub, res, op.length);
        }
        op.cqes--;
        switch (sub) {
            case SUB_MAIN -> op.res0 = res;
            case SUB_LINKED -> op.res1 = res;
            case SUB_TIMEOUT -> op.timedOut = res == -Errno.ETIME;
            default -> {
                // the ASYNC_CANCEL's own result: nothing to do
            }
        }
        if (op.cqes == 0) {
            try {
                finish(op);
            } catch (Throwable t) {
                finishFail(op, t instanceof IOException io ? io : new IOException(t));
            }
        }
    }

    private void finish(Op op) throws IOException {
        int r = op.res0;
        switch (op.kind) {
            case Op.READ, Op.WRITE -> {
                if (r < 0) {
                    finishFail(op, error(op, r));
                    return;
                }
                if (r == 0 && op.length > 0) {
                    if (op.kind == Op.READ) {
                        if (op.fully) {
                            finishFail(op, new EOFException("end of file at offset " + op.position + " of "
                                    + op.pathForErrors() + " after " + op.done + " of " + (op.done + op.length)
                                    + " bytes"));
                            return;
                        }
                        finishTransfer(op, op.done > 0 ? op.done : -1);
                        return;
                    }
                    finishFail(op, new FileIOException(Errno.EIO, op.name(), op.pathForErrors(), op.position,
                            "the kernel wrote 0 bytes"));
                    return;
                }
                op.done += r;
                if (op.fully && r < op.length) {
                    op.address += r;
                    op.length -= r;
                    op.position += r;
                    retry(op);
                    return;
                }
                finishTransfer(op, op.done);
            }
            case Op.WRITE_SYNC -> {
                if (r < 0) {
                    finishFail(op, error(op, r));
                    return;
                }
                op.done += r;
                if (r < op.length) {
                    // A short write fails the link: the fdatasync came back ECANCELED. Issue the rest and the sync again.
                    if (r == 0) {
                        finishFail(op, new FileIOException(Errno.EIO, op.name(), op.pathForErrors(), op.position,
                                "the kernel wrote 0 bytes"));
                        return;
                    }
                    op.address += r;
                    op.length -= r;
                    op.position += r;
                    retry(op);
                    return;
                }
                if (op.res1 < 0) {
                    finishFail(op, error(op, op.res1));
                    return;
                }
                finishTransfer(op, op.done);
            }
            case Op.READV, Op.WRITEV -> {
                if (r < 0) {
                    finishFail(op, error(op, r));
                    return;
                }
                long total = 0;
                for (int i = 0; i < op.iovCount; i++) {
                    total += op.iovLen[i];
                }
                if (r == 0 && total > 0 && op.kind == Op.READV) {
                    freeSlot(op);
                    op.succeedInt(-1);
                    return;
                }
                AsyncFile.advance(op.buffers, r);
                freeSlot(op);
                op.succeedInt(r);
            }
            case Op.SIZE -> {
                if (r < 0) {
                    finishFail(op, error(op, r));
                    return;
                }
                long size = statx[op.slot].size();
                freeSlot(op);
                op.succeedInt(size);
            }
            case Op.TRUNCATE -> {
                if (!ftruncateOp) {
                    r = op.res1;
                }
                finishVoid(op, r);
            }
            case Op.FSYNC, Op.ALLOCATE, Op.ADVISE, Op.SYNC_RANGE -> finishVoid(op, r);
            case Op.OPEN -> finishOpen(op, r);
            case Op.CLOSE -> finishClose(op, r);
            default -> throw new IllegalStateException("op kind " + op.kind);
        }
    }

    private void finishVoid(Op op, int r) throws IOException {
        if (r < 0) {
            finishFail(op, error(op, r));
            return;
        }
        freeSlot(op);
        op.succeedVoid();
    }

    /** Copies a heap target back, moves the buffer's position, frees the slot, tells the caller. */
    private void finishTransfer(Op op, long n) {
        if (n > 0 && !op.cancelled) {
            AsyncFile.completeBuffers(op, n);
        }
        freeSlot(op);
        op.succeedInt(n);
    }

    private void finishFail(Op op, Throwable t) {
        if (op.slot >= 0) {
            freeSlot(op);
        }
        op.fail(t);
    }

    private void finishOpen(Op op, int r) throws IOException {
        if (r == -Errno.ENFILE && op.registered && !op.cancelled && !closing) {
            // The registered-file table is full: open a plain descriptor instead.
            op.registered = false;
            retry(op);
            return;
        }
        if (r < 0) {
            finishFail(op, Errors.of(-r, "OPEN", op.path, -1, op.direct));
            return;
        }
        boolean fixed = op.registered;
        if (op.cancelled || closing) {
            // Nobody will get this file: close what did open.
            if (fixed) {
                Sqe s = sqe(1);
                if (s != null) {
                    s.closeFixed(r).userData(IGNORE_UD);
                    expected++;
                }
            } else {
                sys.close(r);
            }
            finishFail(op, op.cancelled ? new CancellationException("OPEN cancelled") : new AsynchronousCloseException());
            return;
        }
        int memAlign = BouncePool.ALIGN;
        int offAlign = BouncePool.ALIGN;
        if (op.direct) {
            StatxBuffer sx = statx[op.slot];
            int sr = fixed ? sys.statx(Uapi.AT_FDCWD, op.cPath, 0, Statx.STATX_DIOALIGN, sx.segment())
                    : sys.statx(r, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_DIOALIGN, sx.segment());
            if (sr == 0 && sx.dioOffsetAlign() > 0) {
                memAlign = sx.dioMemAlign();
                offAlign = sx.dioOffsetAlign();
            }
        }
        AsyncFile f = new AsyncFile(engine.executor, this, op.path, op.cPath, fixed ? -1 : r, fixed ? r : -1,
                op.direct, memAlign, offAlign, op.deleteOnClose);
        files.add(f);
        freeSlot(op);
        op.succeedFile(f);
    }

    private void finishClose(Op op, int r) throws IOException {
        AsyncFile f = op.file;
        if (op.flags == 1) {
            // The cancel went out; the close follows once the file's last op is done.
            if (f.inflight == 0) {
                f.pendingClose = null;
                retry(op);
            }
            return;
        }
        f.markClosed();
        files.remove(f);
        freeSlot(op);
        if (r < 0) {
            op.fail(Errors.of(-r, "CLOSE", f.pathString(), -1, false));
            return;
        }
        deleteIfAsked(f);
        op.succeedVoid();
    }

    private static void deleteIfAsked(AsyncFile f) {
        if (f.deleteOnClose) {
            try {
                Files.deleteIfExists(Path.of(f.pathString()));
            } catch (IOException e) {
                Log.warn("DELETE_ON_CLOSE of " + f.pathString() + " failed: " + e);
            }
        }
    }

    private void freeSlot(Op op) {
        int slot = op.slot;
        slots[slot] = null;
        free[freeTop++] = slot;
        op.slot = -1;
        inFlightCount--;
        AsyncFile f = op.file;
        if (f != null && op.kind != Op.OPEN && op.kind != Op.CLOSE) {
            f.inflight--;
            if (f.inflight == 0 && f.pendingClose != null && f.pendingClose.cqes == 0) {
                Op c = f.pendingClose;
                f.pendingClose = null;
                retry(c);
            }
        }
    }

    private Throwable error(Op op, int res) {
        if (res == -Errno.ECANCELED || res == -Errno.EINTR) {
            if (op.cancelled) {
                return new CancellationException(op.name() + " cancelled");
            }
            if (op.timedOut) {
                return new InterruptedByTimeoutException();
            }
            if (closing || (op.file != null && op.file.loopClosing)) {
                return new AsynchronousCloseException();
            }
        }
        long offset = switch (op.kind) {
            case Op.READ, Op.WRITE, Op.READV, Op.WRITEV, Op.WRITE_SYNC, Op.ALLOCATE, Op.ADVISE, Op.SYNC_RANGE ->
                    op.position;
            default -> -1;
        };
        boolean direct = op.file != null && op.file.direct;
        return Errors.of(-res, op.name(), op.pathForErrors(), offset, direct);
    }

    // ---- closing

    private void startClosing() throws UringException {
        while (backlogHead != null) {
            Op op = backlogHead;
            backlogHead = op.nextLocal;
            op.nextLocal = null;
            op.fail(new AsynchronousCloseException());
        }
        backlogTail = null;
        failQueued();
        if (cancelAllSent || expected == 0) {
            return;
        }
        Sqe s = sqe(1);
        if (s != null) {
            cancelAllSent = true;
            // Everything in flight, the eventfd read included.
            s.cancelAll().userData(CANCEL_ALL_UD);
            expected++;
        }
    }

    private void failEverything(IOException cause) {
        while (backlogHead != null) {
            Op op = backlogHead;
            backlogHead = op.nextLocal;
            op.fail(cause);
        }
        backlogTail = null;
        retryHead = null;
        retryTail = null;
        if (slots != null) {
            for (Op op : slots) {
                if (op != null) {
                    // The kernel may still hold this op's memory: keep the op (and its buffer) out of the pool.
                    CompletableFuture<Object> f = op.future;
                    if (f != null) {
                        f.completeExceptionally(cause);
                    } else if (op.handler != null) {
                        try {
                            op.handler.failed(cause, op.attachment);
                        } catch (Throwable t) {
                            Log.callbackFailed(t);
                        }
                    }
                }
            }
        }
    }

    /** Files still open when the loop ends are closed here (fixed slots go with the ring). */
    private void closeFiles() {
        if (slots != null) {
            for (int i = 0; i < slots.length; i++) {
                Op op = slots[i];
                if (op != null && op.kind == Op.CLOSE && op.cqes == 0) {
                    freeSlot(op);
                    op.succeedVoid(); // the descriptor is closed just below
                }
            }
        }
        for (AsyncFile f : files) {
            if (f.fixedSlot < 0) {
                sys.close(f.fd);
            }
            f.markClosed();
            deleteIfAsked(f);
        }
        files.clear();
    }

    private void freeResources(boolean leakScratch) {
        // No producer may write the eventfd from now on.
        while (true) {
            int st = wakeState.get();
            if (st == DEAD || ((st == AWAKE || st == SLEEPING) && wakeState.compareAndSet(st, DEAD))) {
                break;
            }
            Thread.onSpinWait();
        }
        if (ring != null) {
            ring.close();
        }
        if (eventFd >= 0) {
            sys.close(eventFd);
        }
        if (arena != null && !leakScratch) {
            arena.close();
        }
    }

    private void terminate() {
        synchronized (terminationLock) {
            terminated = true;
            failQueued();
        }
        terminatedFuture.complete(null);
    }

    // ---- registration (control tasks run here)

    void registerBuffers(BufferPool pool) throws UringException {
        ring.registerBuffers(pool.segmentsForRegistration());
        fixedBase = pool.base();
        fixedSize = pool.bufferSize();
        fixedEnd = fixedBase + fixedSize * pool.count();
    }

    void unregisterBuffers(BufferPool pool) throws UringException {
        if (fixedBase == pool.base() && fixedEnd != 0) {
            fixedBase = 0;
            fixedEnd = 0;
            fixedSize = 0;
            ring.unregisterBuffers();
        }
    }

    /** Queues a task for the loop thread; the future completes when it ran. */
    CompletableFuture<Void> runOnLoop(LoopTask task, OpPool pool) {
        if (Thread.currentThread() == thread) {
            // From a completion callback: queueing and waiting would wait for ourselves.
            try {
                task.run(this);
                return CompletableFuture.completedFuture(null);
            } catch (Throwable t) {
                return CompletableFuture.failedFuture(t);
            }
        }
        Op op = pool.acquire();
        op.kind = Op.CONTROL;
        op.control = task;
        CompletableFuture<Void> done = new CompletableFuture<>();
        op.controlDone = done;
        enqueue(op);
        return done;
    }

    /** A racy snapshot of the loop's state, for diagnosing a hang. */
    String debugState() {
        int backlog = 0;
        for (Op o = backlogHead; o != null; o = o.nextLocal) {
            backlog++;
        }
        StringBuilder sb = new StringBuilder(name).append(": freeSlots=").append(freeTop).append(" expected=")
                .append(expected).append(" backlog=").append(backlog).append(" retry=").append(retryHead != null)
                .append(" queueEmpty=").append(queue.isEmpty()).append(" wakeState=").append(wakeState.get())
                .append(" wakeArmed=").append(wakeArmed).append(" closing=").append(closing).append(" slots:");
        if (slots != null) {
            for (Op o : slots) {
                if (o != null) {
                    sb.append(' ').append(o.name()).append("/cqes=").append(o.cqes).append("/flags=").append(o.flags);
                }
            }
        }
        return sb.toString();
    }

}
