package io.github.uring4j.nio;

import io.github.uring4j.engine.CallerReads;
import io.github.uring4j.engine.Completion;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.FullHeap;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Memory;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Waits;
import io.github.uring4j.file.IoExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An {@link AsynchronousFileChannel} with the JDK's semantics whose reads and writes are io_uring operations: no
 * thread waits for the device. Completion handlers run on the executor named at open (as the JDK's do), or on a
 * shared pool of daemon threads; never on the event loop, so a handler may block (an executor that runs a task on
 * the thread that gives it, a direct executor or a pool's {@code CallerRunsPolicy}, would run it on the loop: the
 * shared pool runs it then). Once the executor named at open is shut down, reads, writes and locks are refused as
 * the JDK's channel refuses them ({@code RejectedExecutionException}; {@code ShutdownChannelGroupException} for a
 * handler whose result is known at once); an operation started before still ends, its handler on the shared pool
 * if that executor refuses it. That executor's {@code execute} is never called on an event loop either
 * ({@link HandlerDispatch}). {@code size}, {@code truncate} and {@code force} are system calls of the calling
 * thread; the locks are the JDK's own, and a lock that waits for another process waits on a thread of the shared
 * pool, which no interrupt of the executor's threads reaches.
 */
public final class UringAsynchronousFileChannel extends AsynchronousFileChannel {
    private static final AtomicInteger POOL_THREADS = new AtomicInteger();
    /** The handlers' pool when the opener names none (the JDK's channels also use a shared default pool). */
    private static final ExecutorService DEFAULT_POOL = Executors.newCachedThreadPool(
            r -> io.github.uring4j.engine.LibraryThreads.shared("uring4j-async-channel-" + POOL_THREADS.incrementAndGet(),
                    r));

    private final UringFileChannel file;
    private final ExecutorService handlers;
    private final HandlerDispatch dispatch;

    private UringAsynchronousFileChannel(UringFileChannel file, ExecutorService handlers) {
        this.file = file;
        this.handlers = handlers;
        this.dispatch = new HandlerDispatch(handlers, DEFAULT_POOL);
    }

    /** Opens {@code path} (of the built-in provider) as {@link AsynchronousFileChannel#open} would. */
    static UringAsynchronousFileChannel open(Path path, Set<? extends OpenOption> options, ExecutorService executor,
            FileAttribute<?>[] attrs, java.util.function.Supplier<IoExecutor> io) throws IOException {
        Opening.of(path.toString(), options, attrs, true); // the asynchronous channel's own rules (APPEND) first
        UringFileChannel f = UringFileChannel.open(path, options, attrs, io);
        f.setUninterruptible(); // an asynchronous channel is not interruptible: its size, truncate, force neither
        return new UringAsynchronousFileChannel(f, executor != null ? executor : DEFAULT_POOL);
    }

    @Override
    public boolean isOpen() {
        return file.isOpen();
    }

    /** Closes the file: operations in flight fail with {@link java.nio.channels.AsynchronousCloseException}. */
    @Override
    public void close() throws IOException {
        file.close();
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public AsynchronousFileChannel truncate(long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (!file.isWritable()) {
            throw new NonWritableChannelException();
        }
        if (!isOpen()) {
            throw new java.nio.channels.AsynchronousCloseException(); // what the JDK's channel throws here
        }
        file.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        file.force(metaData);
    }

    // ============================================================================================ reads and writes

    @Override
    public Future<Integer> read(ByteBuffer dst, long position) {
        Op<Integer, Object> op = futureOp();
        start(true, dst, position, op);
        return op;
    }

    @Override
    public <A> void read(ByteBuffer dst, long position, A attachment, CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null"); // the JDK's words
        start(true, dst, position, new Op<>(handler, attachment, dispatch));
    }

    @Override
    public Future<Integer> write(ByteBuffer src, long position) {
        Op<Integer, Object> op = futureOp();
        start(false, src, position, op);
        return op;
    }

    @Override
    public <A> void write(ByteBuffer src, long position, A attachment, CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null"); // the JDK's words
        start(false, src, position, new Op<>(handler, attachment, dispatch));
    }

    private void start(boolean read, ByteBuffer buf, long position, Op<Integer, ?> op) {
        // The JDK's order: position, access, a read-only buffer, a closed channel (reported through the result),
        // and only then a missing buffer.
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (read && !file.isReadable()) {
            throw new NonReadableChannelException();
        }
        if (!read && !file.isWritable()) {
            throw new NonWritableChannelException();
        }
        if (read && buf.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        if (!isOpen()) {
            refuseHandlerIfShutDown(op);
            op.fail(new ClosedChannelException());
            return;
        }
        Objects.requireNonNull(buf, read ? "dst" : "src");
        if (!buf.hasRemaining()) {
            refuseHandlerIfShutDown(op);
            op.succeed(0);
            return;
        }
        refuseIfShutDown();
        boolean tryHere = read && op.isFuture();
        if (tryHere) {
            // the future of a read the page cache holds: made here on the channel's own descriptor, with no hand-over
            // to a loop, and no ring copy of the descriptor to make now and to close through the loop later
            int n;
            try {
                n = file.readCachedNow(buf, position);
            } catch (IOException e) {
                op.fail(isOpen() ? e : new ClosedChannelException());
                return;
            }
            if (n != UringFileChannel.NOT_NOW && n != UringFileChannel.MISSED) {
                op.succeed(n);
                return;
            }
            tryHere = n == UringFileChannel.NOT_NOW; // tried and missed: asking the page cache again only repeats it
        }
        UringFileChannel.RingUse ring;
        try {
            ring = file.ringUse();
        } catch (UringFileChannel.NoRing none) {
            // no descriptor to spare for a ring: made on this thread, as the JDK's pool thread makes it
            int n;
            try {
                n = read ? file.read(buf, position) : file.write(buf, position);
            } catch (IOException | RuntimeException e) {
                op.fail(isOpen() ? e : new ClosedChannelException());
                return;
            }
            op.succeed(n);
            return;
        } catch (IOException e) {
            op.fail(isOpen() ? e : new ClosedChannelException());
            return;
        }
        FileHandle h = ring.handle();
        IoBackend backend = ring.backend();
        Request r = backend.acquire();
        r.kind = read ? Request.READ : Request.WRITE;
        r.handle = h;
        r.completion = read ? READ_DONE : WRITE_DONE;
        r.target = op;
        r.client = this;
        try {
            Memory.buffer(r, buf, read, ring.bounces());
        } catch (RuntimeException e) {
            r.discard();
            throw e;
        }
        r.length = buf.remaining();
        r.position = position;
        if (!h.isOpen() || UringFileChannel.executorGone(h)) {
            r.discard();
            if (isOpen() && ++op.attempts < UringFileChannel.EXECUTOR_RETRIES) {
                start(read, buf, position, op); // its executor went a moment ago: on the one the channel gets now
            } else {
                op.fail(isOpen() ? UringFileChannel.executorGoneFailure(read ? "read" : "write", file.path(), true)
                        : new java.nio.channels.AsynchronousCloseException());
            }
            return;
        }
        if (tryHere) {
            // the future of a read the page cache holds into other memory (a pool's, a shared arena's): made here
            // (see CallerReads), no hand-over to a loop
            long n = CallerReads.tryRead(h, backend, r);
            if (n >= 0) {
                Counters.CALLER_CALLS.increment();
                r.succeed(n == 0 ? -1 : n);
                return;
            }
        }
        op.request = r;
        op.generation = r.generation();
        op.backend = backend;
        op.transfer(this, h, read, buf, position);
        Counters.RING_OPERATIONS.increment();
        backend.submit(r);
    }

    private static final Completion READ_DONE = (target, attachment, value, opened, error) -> {
        @SuppressWarnings("unchecked")
        Op<Integer, ?> op = (Op<Integer, ?>) target;
        if (error != null && op.startedAgain()) {
            return;
        }
        if (error != null) {
            op.fail(JdkErrors.fromEngine(error));
        } else {
            if (value > 0) {
                Counters.BYTES_READ.add(value);
            }
            op.succeed(value == 0 ? -1 : (int) value);
        }
    };

    private static final Completion WRITE_DONE = (target, attachment, value, opened, error) -> {
        @SuppressWarnings("unchecked")
        Op<Integer, ?> op = (Op<Integer, ?>) target;
        if (error != null && op.startedAgain()) {
            return;
        }
        if (error != null) {
            op.fail(JdkErrors.fromEngine(error));
        } else {
            Counters.BYTES_WRITTEN.add(value);
            op.succeed((int) value);
        }
    };

    /** The {@link Op} of an operation whose result is a {@code Future}: its {@code cancel(true)} closes this channel. */
    private <V> Op<V, Object> futureOp() {
        Op<V, Object> op = new Op<>(null, null, dispatch);
        op.channel = this;
        return op;
    }

    // ============================================================================================ locks

    @Override
    public Future<FileLock> lock(long position, long size, boolean shared) {
        Op<FileLock, Object> op = futureOp();
        lock(position, size, shared, op);
        return op;
    }

    @Override
    public <A> void lock(long position, long size, boolean shared, A attachment,
            CompletionHandler<FileLock, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null"); // the JDK's words
        lock(position, size, shared, new Op<>(handler, attachment, dispatch));
    }

    private void lock(long position, long size, boolean shared, Op<FileLock, ?> op) {
        checkAccess(shared);
        if (!isOpen()) {
            refuseHandlerIfShutDown(op);
            op.fail(new ClosedChannelException()); // the JDK's order: a closed channel before the arguments
            return;
        }
        checkRange(position, size);
        // A lock this JVM holds already is refused at once, as the JDK's channel does; a free one is taken at once.
        checkNotWaitedFor(position, size);
        try {
            FileLock now = file.jdkChannel().tryLock(position, size, shared);
            if (now != null) {
                if (executorShutDown()) {
                    now.release(); // as the JDK's channel takes its lock back out of its table
                    refuseIfShutDown();
                }
                op.succeedLater(new Lock(this, now)); // the handler still runs on the channel's executor
                return;
            }
        } catch (java.nio.channels.OverlappingFileLockException e) {
            throw e;
        } catch (IOException e) {
            op.fail(e);
            return;
        }
        refuseIfShutDown();
        // Another process holds it: waiting is a blocking call of the JDK's channel, made on a handler thread. The
        // range counts as this JVM's from now, as the JDK's channel puts it in its lock table at once: another
        // overlapping lock or tryLock of this channel meanwhile is refused at the call (it was refused through its
        // future, or tryLock said null, only once a handler thread had begun the wait).
        long[] range = waitingFor(position, size);
        try {
            // The wait is made on a thread of the library's pool, which no one interrupts: the JDK's channel it
            // waits in closes when its thread is interrupted, which let go of every lock of the file (a handler
            // thread of the executor named at open, interrupted by its shutdownNow()); the handler then runs on
            // that executor.
            DEFAULT_POOL.execute(() -> {
                try {
                    FileLock l = file.jdkChannel().lock(position, size, shared);
                    op.succeedLater(new Lock(this, l));
                } catch (IOException | RuntimeException e) {
                    // closed while it waited: the JDK's channel reports the close
                    op.fail(isOpen() ? e : new java.nio.channels.AsynchronousCloseException());
                } finally {
                    doneWaiting(range);
                }
            });
        } catch (RuntimeException | Error refused) {
            doneWaiting(range);
            throw refused;
        }
    }

    /** The ranges of this channel's locks waiting for another process: {position, end}. Guarded by itself. */
    private final java.util.List<long[]> waitingLocks = new java.util.ArrayList<>(1);

    /** Refuses a lock of a range that overlaps one this channel waits for, as the JDK's lock table does. */
    private void checkNotWaitedFor(long position, long size) {
        synchronized (waitingLocks) {
            long end = end(position, size);
            for (long[] w : waitingLocks) {
                if (position < w[1] && w[0] < end) {
                    throw new java.nio.channels.OverlappingFileLockException();
                }
            }
        }
    }

    private long[] waitingFor(long position, long size) {
        synchronized (waitingLocks) {
            checkNotWaitedFor(position, size);
            long[] range = {position, end(position, size)};
            waitingLocks.add(range);
            return range;
        }
    }

    private void doneWaiting(long[] range) {
        synchronized (waitingLocks) {
            waitingLocks.remove(range);
        }
    }

    /** Where a lock's range ends; a size that would run past {@code Long.MAX_VALUE} runs to it. */
    private static long end(long position, long size) {
        long e = position + size;
        return e < 0 ? Long.MAX_VALUE : e;
    }

    /** True when the executor named at open has been shut down (the library's own pool never is). */
    private boolean executorShutDown() {
        return handlers != DEFAULT_POOL && handlers.isShutdown();
    }

    /**
     * The JDK's channel hands every read, write and lock to the executor named at open, so one that is shut down
     * refuses the call with its {@code RejectedExecutionException}; so does this channel. (What was started before
     * completes: its handler runs, on the library's pool if that executor refuses it.)
     */
    private void refuseIfShutDown() {
        if (executorShutDown()) {
            throw new java.util.concurrent.RejectedExecutionException(
                    "the executor given to AsynchronousFileChannel.open is shut down");
        }
    }

    /**
     * A result known at once (a closed channel, an empty buffer) goes to a handler through the executor named at
     * open; the JDK's channel says {@code ShutdownChannelGroupException} when that executor is shut down.
     */
    private void refuseHandlerIfShutDown(Op<?, ?> op) {
        if (op.handler != null && executorShutDown()) {
            throw new java.nio.channels.ShutdownChannelGroupException();
        }
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        checkAccess(shared);
        if (!isOpen()) {
            throw new ClosedChannelException(); // the JDK's order, as lock's: a closed channel before the arguments
        }
        checkRange(position, size);
        checkNotWaitedFor(position, size);
        FileLock l = file.jdkChannel().tryLock(position, size, shared);
        return l == null ? null : new Lock(this, l);
    }

    private void checkAccess(boolean shared) {
        if (shared && !file.isReadable()) {
            throw new NonReadableChannelException();
        }
        if (!shared && !file.isWritable()) {
            throw new NonWritableChannelException();
        }
    }

    private static void checkRange(long position, long size) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (position + size < 0) {
            throw new IllegalArgumentException("Negative position + size");
        }
    }

    /** A lock of the JDK's channel behind this one, reported as this channel's. */
    private static final class Lock extends FileLock {
        private final FileLock inner;

        Lock(UringAsynchronousFileChannel channel, FileLock inner) {
            super(channel, inner.position(), inner.size(), inner.isShared());
            this.inner = inner;
        }

        @Override
        public boolean isValid() {
            return inner.isValid() && acquiredBy().isOpen();
        }

        @Override
        public void release() throws IOException {
            if (!acquiredBy().isOpen()) {
                throw new ClosedChannelException();
            }
            inner.release();
        }
    }

    @Override
    public String toString() {
        return "UringAsynchronousFileChannel[" + file.path() + (isOpen() ? "" : ", closed") + "]";
    }

    // ============================================================================================ results

    /**
     * One operation's result: a {@link Future} for its caller, or a handler run on the channel's executor. The loop
     * only records the result and hands the handler on: user code never runs on it.
     */
    private static final class Op<V, A> implements Future<V> {
        private static final int PENDING = 0;
        private static final int DONE = 1;
        private static final int FAILED = 2;
        private static final int CANCELLED = 3;

        private final CompletionHandler<V, ? super A> handler;
        private final A attachment;
        private final HandlerDispatch dispatch;
        private final AtomicInteger state = new AtomicInteger(PENDING);
        /** The handler was called ({@link #end}'s hand-over may be made again: it calls it once). */
        private volatile boolean called;
        private static final java.lang.invoke.VarHandle CALLED;

        static {
            try {
                CALLED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Op.class, "called", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile Thread waiter;
        private V value;
        private Throwable error;
        volatile Request request;
        volatile int generation;
        volatile IoBackend backend;
        /** A future's channel, closed by {@code cancel(true)}; null for a handler's operation. */
        volatile AsynchronousFileChannel channel;
        /** A read or write through the ring: its channel, the handle it went to, and what it moves where. */
        private UringAsynchronousFileChannel owner;
        private FileHandle handle;
        private boolean read;
        private ByteBuffer buf;
        private long position;
        private int attempts;

        /** What {@link #startedAgain} needs to make the transfer again. */
        void transfer(UringAsynchronousFileChannel owner, FileHandle handle, boolean read, ByteBuffer buf,
                long position) {
            this.owner = owner;
            this.handle = handle;
            this.read = read;
            this.buf = buf;
            this.position = position;
        }

        /**
         * A transfer failed: when the executor of its handle was closed (or its loop failed) under the open channel,
         * which delivered nothing (an interruption), it starts again on the executor the channel gets now, from
         * another thread than the dying loop, and true; a positional read or write moves the same bytes to the same
         * place again. After {@link UringFileChannel#EXECUTOR_RETRIES} attempts it fails with an {@code IOException}
         * that says so (an {@code AsynchronousCloseException} would say the open channel was closed).
         */
        boolean startedAgain() {
            UringAsynchronousFileChannel o = owner;
            if (o == null || handle == null || !UringFileChannel.executorGone(handle) || !o.isOpen()
                    || state.get() != PENDING) {
                return false;
            }
            if (++attempts >= UringFileChannel.EXECUTOR_RETRIES) {
                fail(UringFileChannel.executorGoneFailure(read ? "read" : "write", o.file.path(), true));
                return true;
            }
            @SuppressWarnings("unchecked")
            Op<Integer, ?> transfer = (Op<Integer, ?>) this; // a read or write: its value is an Integer
            Thread.ofVirtual().name("uring4j-again").start(() -> {
                if (state.get() != PENDING) {
                    return; // cancelled meanwhile: not made again
                }
                try {
                    o.start(read, buf, position, transfer);
                } catch (Throwable t) {
                    failPersistently(t);
                }
            });
            return true;
        }

        Op(CompletionHandler<V, ? super A> handler, A attachment, HandlerDispatch dispatch) {
            this.handler = handler;
            this.attachment = attachment;
            this.dispatch = dispatch;
        }

        /** A {@code Future} for its caller, not a handler's operation. */
        boolean isFuture() {
            return handler == null;
        }

        @SuppressWarnings("unchecked")
        void succeed(long v) {
            end(DONE, (V) (Object) (int) v, null);
        }

        void fail(Throwable t) {
            end(FAILED, null, t);
        }

        /**
         * {@link #fail}, again after an {@code OutOfMemoryError} for up to ten seconds: on a thread of the library's
         * own, whose death on a full heap left the operation, and its handler, waiting for ever.
         */
        void failPersistently(Throwable t) {
            for (int tries = 0;; tries++) {
                try {
                    fail(t);
                    return;
                } catch (OutOfMemoryError e) {
                    if (!FullHeap.waitForMemory(tries)) {
                        return;
                    }
                }
            }
        }

        /** Ends now; the handler runs on the executor. */
        void succeedLater(V v) {
            end(DONE, v, null);
        }


        private void end(int how, V v, Throwable t) {
            value = v;
            error = t;
            IoBackend b = backend;
            // Made before the state moves: made after it, on a full heap, it threw, the end was made again, found
            // the operation done, and its handler was never called.
            Runnable call = handler == null ? null : () -> {
                if (!CALLED.compareAndSet(this, false, true)) {
                    return; // a hand-over made again after an OutOfMemoryError: the handler is called once
                }
                if (b != null && b.mustNotBlock(Thread.currentThread())) {
                    // The executor ran the task on the thread that gave it (a direct executor, a pool's
                    // CallerRunsPolicy): the event loop, which a handler that waits (for another operation of this
                    // channel, say) would stop for good. The library's pool runs it instead.
                    try {
                        DEFAULT_POOL.execute(() -> call(v, t));
                    } catch (RuntimeException | Error e) {
                        called = false; // not handed over: whoever runs this again calls the handler
                        throw e;
                    }
                } else {
                    call(v, t);
                }
            };
            if (!state.compareAndSet(PENDING, how)) {
                return; // cancelled first
            }
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
            if (call == null) {
                return;
            }
            for (int tries = 0;; tries++) {
                try {
                    if (b != null && b.mustNotBlock(Thread.currentThread())) {
                        dispatch.fromLoop(call); // the executor's execute() is the user's code: never on the loop
                    } else {
                        dispatch.give(call);
                    }
                    return;
                } catch (OutOfMemoryError e) {
                    if (!FullHeap.waitForMemory(tries)) {
                        throw e;
                    }
                }
            }
        }

        private void call(V v, Throwable t) {
            if (t == null) {
                handler.completed(v, attachment);
            } else {
                handler.failed(t, attachment);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (!state.compareAndSet(PENDING, CANCELLED)) {
                return false;
            }
            Request r = request;
            IoBackend b = backend;
            if (r != null && b != null) {
                b.cancel(r, generation);
            }
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
            AsynchronousFileChannel ch = channel;
            if (mayInterruptIfRunning && ch != null) {
                // As the JDK's channel (AsynchronousChannel: "the I/O operation may be interrupted by closing the
                // channel"): a lock that waits for another process stops waiting, and is not taken after
                try {
                    ch.close();
                } catch (IOException e) {
                    // closing reports nothing a cancel could say
                }
            }
            return true;
        }

        @Override
        public boolean isCancelled() {
            return state.get() == CANCELLED;
        }

        @Override
        public boolean isDone() {
            return state.get() != PENDING;
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            try {
                return get(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            IoBackend b = backend;
            if (state.get() == PENDING && b != null && Waits.mayNotWait(b)) {
                throw new IllegalStateException("waiting for an uring4j operation on the event loop thread "
                        + Thread.currentThread().getName() + " would stop the loop that completes it: use the"
                        + " CompletionHandler form, or wait on another thread");
            }
            long nanos = unit.toNanos(timeout);
            if (nanos <= 0 && state.get() == PENDING) {
                throw new TimeoutException(); // as the JDK's: no wait at all (a deadline of now + MIN_VALUE wrapped)
            }
            long start = System.nanoTime();
            Waits.spin(this, Math.min(Waits.DEFAULT_NANOS, Math.max(0, nanos)));
            waiter = Thread.currentThread();
            try {
                while (state.get() == PENDING) {
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    long left = nanos - (System.nanoTime() - start);
                    if (nanos != Long.MAX_VALUE && left <= 0) {
                        throw new TimeoutException();
                    }
                    LockSupport.parkNanos(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
                }
            } finally {
                waiter = null;
            }
            return switch (state.get()) {
                case DONE -> value;
                case CANCELLED -> throw new CancellationException();
                default -> throw new ExecutionException(error);
            };
        }
    }
}
