package io.github.uring4j.nio;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.engine.BouncePool;
import io.github.uring4j.engine.Completion;
import io.github.uring4j.engine.ExecutorDoor;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Memory;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.PathBytes;
import io.github.uring4j.engine.PinnedRegion;
import io.github.uring4j.engine.Request;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link FileChannel} with the JDK's semantics whose reads and writes are system calls made by the calling
 * thread as lean as a downcall gets, and io_uring operations where a call would block a virtual thread's carrier.
 *
 * <h2>Where the work runs</h2>
 * <ul>
 * <li>A read first takes the data where it already is: {@code preadv2(..., RWF_NOWAIT)} on the caller's thread,
 * which never waits for the device. When the data is not in the page cache, a platform thread reads with a plain
 * blocking call, as the JDK's channel does; a virtual thread hands the read to an io_uring event loop and parks, so
 * its carrier is free for other virtual threads (the JDK's channel blocks the carrier and adds carriers to make up
 * for it).</li>
 * <li>{@code O_DIRECT} reads and writes on a virtual thread go to the ring at once (an {@code O_DIRECT} call never
 * finds its data in the page cache).</li>
 * <li>Writes to a regular file are calls on the caller's thread (ext4 cannot take a buffered write without
 * possibly waiting, so a ring would hand it to a kernel worker thread: slower). While the kernel makes writers wait
 * (virtual threads' writes held their carriers for over 10 ms: dirty-page throttling, another writer's inode lock),
 * the buffered writes of virtual threads are made by platform threads of a small pool instead, and so are copies of
 * 64 KiB or more ({@code transferTo}, {@code transferFrom}) of a virtual thread: its carrier runs others meanwhile.
 * Reads and writes of pipes, FIFOs and devices that could wait forever go to the ring, where closing the channel
 * ends them.</li>
 * <li>With {@code -During4j.mappedReads=true} (read when a channel opens; off by default), a channel that reads at
 * positions again and again (an index, a database file) maps the file and copies positional reads of a platform
 * thread straight from the page cache: no system call at all, about twice the rate of a {@code pread}. The page
 * cache is the same, so writes are seen at once. Only for files nobody shrinks while they are open: no call tells
 * the mapping that another channel or process truncated the file, so a read after that can return zeros past the
 * new end of the file as bytes read, or fail with {@code InternalError} (the fault of a mapped page past the end, as
 * a {@code MappedByteBuffer} does), where the JDK's channel returns what is left or -1.</li>
 * <li>{@code map} and the file locks are the JDK's own, on a second descriptor of the same file (so they behave as
 * the JDK's do, including the overlap checks between channels of this JVM).</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * Heap buffers and buffers of shared arenas are staged through library memory (the JDK stages heap buffers through
 * a temporary direct buffer); direct buffers of {@code allocateDirect}, automatic and global arenas, and confined
 * arenas owned by the calling thread go to the kernel as they are.
 */
public final class UringFileChannel extends JdkChannelLayout implements Builtin.Uninterruptible {
    private static final int CLOSED = 1 << 30;
    /** Heap transfers move at most this much per system call (the staging memory kept per context). */
    private static final int STAGE = Call.SCRATCH_KEPT;
    /** The most bytes one {@code read(2)} or {@code write(2)} moves ({@code MAX_RW_COUNT}: 2 GiB less a page). */
    private static final int MAX_RW_COUNT = 0x7ffff000;
    private static final int UNKNOWN = 0;
    private static final int REGULAR = 1;
    private static final int OTHER = 2;

    private final String path;
    final int fd;
    private final int flags;
    final boolean readable;
    final boolean writable;
    final boolean append;
    final boolean direct;
    /** The block size {@code O_DIRECT} transfers must be aligned to, as the JDK's channel takes it. */
    private final int alignment;
    /** Where ring operations go: the executor, resolved on the first one (most channels never need a ring). */
    private final java.util.function.Supplier<IoExecutor> executors;
    private volatile Engine engine;
    final PositionLock positionLock = new PositionLock();
    /** Calls on the caller's thread using {@link #fd} now; {@link #CLOSED} once the channel closes. */
    private final AtomicInteger uses = new AtomicInteger();
    final Resources resources;
    private final Cleaner.Cleanable cleanable;
    private volatile Thread closer;
    private volatile int fileType = UNKNOWN;
    /** The file's {@code S_IFMT} bits once a {@code statx} asked them ({@link #regular}, {@link #pipeLike}); -1 before. */
    private volatile int typeBits = -1;
    /** Reads made before the file's type was known: the first {@link #UNASKED_READS} try RWF_NOWAIT without asking it. */
    private int unaskedReads;
    /**
     * The file's size when a stream's channel looked at it ({@link #lookAtFile}), and where the file position is
     * ({@link #hintAt}); -1: no such hint. A relative read that ends there is at the end of the file as far as anyone
     * could know, and needs no second call to tell. Anything else that moves the position drops it.
     */
    private long endHint = -1;
    private long hintAt;
    private volatile boolean nowaitReads = true;
    private volatile boolean nowaitWrites = true;
    /**
     * The descriptor has {@code O_NONBLOCK} (an output stream's, opened for writing only): a plain write on the
     * caller's thread cannot wait for ever, whatever the file is. A regular file ignores the flag; a FIFO or a device
     * with no room says {@code EAGAIN}, and the flag is then turned off for good ({@link #dropNonblocking}), the file
     * is taken for what it is, and the write goes to the ring. The flag is also off before the ring first uses the
     * descriptor: io_uring ends a read or write of a file with the flag that cannot be made without waiting (ext4's
     * buffered writes) with {@code EAGAIN}, where it would hand it to a worker thread. So such a channel makes no
     * {@code statx} to learn whether its file is regular: a line appended to a log with {@code Files.write} was an
     * open, a {@code statx}, a write and a close, against the JDK's three calls.
     */
    private volatile boolean nonblocking;
    /** Set by the library's own streams: an interrupt neither closes the channel nor stops the operation. */
    volatile boolean uninterruptible;
    /**
     * A channel of {@code Files.newByteChannel}: when an interrupt meets it, it first asks whether
     * {@code Files.readAllBytes} (or {@code readString}) is the caller, which the JDK makes uninterruptible.
     */
    private volatile boolean askWhenInterrupted;
    /** {@link #uninterruptibleForWait} has asked (racy: at worst it asks twice). */
    private boolean askedForWait;
    /** Positional reads copied from a mapping of the file ({@link MappedReads#PROPERTY}); null when not. */
    private final MappedReads mapped;

    /**
     * What must be closed when the channel closes or becomes unreachable: the descriptor, the ring's handle of it and
     * the JDK channel behind {@code map} and the locks. Holds no reference to the channel.
     */
    static final class Resources implements Runnable {
        final int fd;
        final Object lock = new Object();
        /**
         * The ring's handle of {@link #fd} (lent to it, not a copy: a copy would take a second descriptor of the
         * process for every channel that used the ring), made on the first operation that needs the ring, and again
         * when its executor closed (or failed) under the open channel.
         */
        volatile RingUse ring;
        /**
         * Who still uses {@link #fd}: the channel until it closes (or is dropped), and each ring handle from its
         * making until its backend gives the descriptor back. The last to let go closes it, so a ring held up at the
         * close (a handler of the user's blocking its loop) never meets the number reused by another file.
         */
        private final java.util.concurrent.atomic.AtomicInteger holders =
                new java.util.concurrent.atomic.AtomicInteger(1);
        FileChannel jdk;
        MappedReads.Mapping mapping;
        boolean closed;

        Resources(int fd) {
            this.fd = fd;
        }

        /** The ring's handle is about to be made: it holds the descriptor until it gives it back ({@link #letGo}). */
        void ringHolds() {
            holders.incrementAndGet();
        }

        /**
         * A holder is done with the descriptor: the last one closes it. 0, or {@code -errno} of that close (a close
         * made later, by the other holder, says nothing to anyone).
         */
        int letGo() {
            if (holders.decrementAndGet() != 0) {
                return 0;
            }
            return closeDescriptor(fd);
        }

        /** Dropped without close(): nobody waits, nobody is told. */
        @Override
        public void run() {
            FileHandle h;
            FileChannel j;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                closed = true;
                h = ring == null ? null : ring.handle();
                j = jdk;
            }
            if (h != null) {
                h.orphaned();
            }
            if (j != null) {
                try {
                    j.close();
                } catch (IOException | RuntimeException e) {
                    // nobody to tell
                }
            }
            MappedReads.Mapping m = mapping;
            if (m != null) {
                m.unmap();
            }
            letGo();
        }
    }

    /** The executor behind this channel's ring operations and what it shares. */
    private record Engine(IoExecutor executor, IoBackend backend, BouncePool bounces) {
    }

    /** The ring's handle of the descriptor, the backend that runs it and its executor's copy buffers. */
    record RingUse(FileHandle handle, IoBackend backend, BouncePool bounces) {
    }

    /**
     * The executor for this channel's ring operations: the one it was given, until that one is closed or its loop
     * failed (the default executor is then made again).
     */
    private Engine engine() {
        Engine e = engine;
        if (e == null || !e.executor.isOpen() || e.backend.broken()) {
            IoExecutor x = executors.get();
            ExecutorDoor.Access door = ExecutorDoor.get();
            e = new Engine(x, door.backend(x), door.bounces(x));
            engine = e;
        }
        return e;
    }

    private UringFileChannel(String path, int fd, Opening o, int alignment,
            java.util.function.Supplier<IoExecutor> executors) {
        super(fd);
        this.path = path;
        this.fd = fd;
        this.flags = o.flags;
        this.readable = o.read;
        this.writable = o.write;
        this.append = o.append;
        this.direct = o.direct;
        this.alignment = alignment;
        this.executors = executors;
        this.mapped = !o.direct && Boolean.getBoolean(MappedReads.PROPERTY) ? new MappedReads() : null;
        this.resources = new Resources(fd);
        Counters.URING_CHANNELS.increment();
        // last: a constructor that threw after it (a full heap) would have the cleaner close the descriptor the failed
        // open closes too
        Cleaner cleaner = io.github.uring4j.engine.Cleaners.cleanerIfAny();
        this.cleanable = cleaner != null ? cleaner.register(this, resources) : null;
    }

    // ============================================================================================ open

    /**
     * Opens {@code path} (a path of the built-in provider) as {@link FileChannel#open} would; ring operations go to
     * the executor {@code executors} gives when the first one is needed.
     */
    static UringFileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>[] attrs,
            java.util.function.Supplier<IoExecutor> executors) throws IOException {
        return open(path, options, attrs, executors, false);
    }

    /**
     * As {@link #open(Path, Set, FileAttribute[], java.util.function.Supplier)}; with {@code forStream}, a channel
     * opened for writing only (not {@code O_DIRECT}) is opened with {@code O_NONBLOCK}, for an output stream: its
     * writes then need not know what the file is ({@link #nonblocking}).
     */
    static UringFileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>[] attrs,
            java.util.function.Supplier<IoExecutor> executors, boolean forStream) throws IOException {
        String p = path.toString();
        Opening o = Opening.of(p, options, attrs, false);
        boolean nonblock = forStream && !o.direct && (o.flags & Uapi.O_ACCMODE) == Uapi.O_WRONLY;
        Call c = Call.get();
        int fd = -1;
        UringFileChannel ch = null;
        try {
            // as the JDK's: the empty path names the current directory
            MemorySegment cPath = cPath(c, p.isEmpty() ? new byte[] {'.'} : PathBytes.of(path, p));
            int opened;
            do {
                opened = LeanCalls.open(c.capture, cPath, nonblock ? o.flags | Uapi.O_NONBLOCK : o.flags, o.mode);
            } while (opened == -Errno.EINTR);
            if (nonblock && (opened == -Errno.ENXIO || opened == -Errno.EAGAIN)) {
                // A FIFO nobody reads yet (ENXIO), a file under another process's lease (EAGAIN): opened without the
                // flag, the open waits for the reader or the lease's break, as the JDK's does
                nonblock = false;
                do {
                    opened = LeanCalls.open(c.capture, cPath, o.flags, o.mode);
                } while (opened == -Errno.EINTR);
            }
            if (opened < 0) {
                Counters.CALLER_CALLS.increment();
                throw JdkErrors.open(-opened, p, o.flags);
            }
            fd = opened;
            Counters.CALLER_CALLS.increment();
            if (o.deleteOnClose) {
                // As the JDK: the name goes at once; the file lives until its last descriptor closes.
                LeanCalls.unlink(c.capture, cPath);
            }
            int alignment = 0;
            if (o.direct) {
                MemorySegment vfs = c.scratch(LeanCalls.STATVFS_SIZE);
                int r = LeanCalls.fstatvfs(c.capture, fd, vfs);
                if (r < 0) {
                    throw JdkErrors.io(-r);
                }
                alignment = (int) vfs.get(JAVA_LONG, 0);
            }
            ch = new UringFileChannel(p, fd, o, alignment, executors);
        } finally {
            c.release();
            if (ch == null && fd >= 0) {
                // nothing holds it yet: whatever failed after the open (a full heap, too), the descriptor goes with it
                closeDescriptor(fd);
            }
        }
        ch.nonblocking = nonblock;
        return ch;
    }

    /**
     * Closes {@code fd}: 0, or {@code -errno}. On a full heap the call's context waits for memory (ten seconds at most):
     * a close that threw there left the descriptor open for the life of the process, and nothing closes it later (the
     * channel is closed, its cleaner only unregisters). Found by a hostile probe: {@code Files.readAllBytes} through
     * the provider, in threads filling the heap, left 6-9 descriptors of the file open in 5 of 6 runs.
     */
    static int closeDescriptor(int fd) {
        for (int tries = 0;; tries++) {
            Call c;
            try {
                c = Call.get();
            } catch (OutOfMemoryError e) {
                if (!io.github.uring4j.engine.FullHeap.waitForMemory(tries)) {
                    throw e;
                }
                continue;
            }
            try {
                return LeanCalls.close(c.capture, fd); // made again there only if it never reached the kernel
            } finally {
                c.release();
            }
        }
    }

    /**
     * A path's C string (the bytes the JDK would pass to {@code open(2)}, {@link PathBytes}, then a NUL) in {@code c}'s
     * staging memory, copied in one piece: the segment's own string encoder, byte by byte, cost 17 % of an open in a
     * profile of {@code Files.readAllBytes}. The path is a built-in path's, which the JDK made sure holds no NUL.
     */
    private static MemorySegment cPath(Call c, byte[] bytes) {
        MemorySegment s = c.scratch(bytes.length + 1L);
        MemorySegment.copy(bytes, 0, s, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
        s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, bytes.length, (byte) 0);
        return s;
    }

    // ============================================================================================ use and close

    /** Throws {@link ClosedChannelException} for a closed channel. */
    void ensureOpen() throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    /**
     * Where the JDK's channel begins a blocking operation, after the checks of the channel's mode and the arguments
     * it makes before: when the calling thread's interrupt flag is set, closes the channel and throws
     * {@link ClosedByInterruptException} (so a call the checks refuse still says why, and leaves the channel open).
     */
    void blocking() throws IOException {
        if (!uninterruptible && Thread.currentThread().isInterrupted() && !readAllBytesCaller()) {
            interruptedBeforeCall();
        }
    }

    /** See {@link #askWhenInterrupted}; once the answer is yes, the channel stays uninterruptible. */
    void askWhenInterrupted() {
        askWhenInterrupted = true;
    }

    private boolean readAllBytesCaller() {
        if (askWhenInterrupted && UringFileSystemProvider.calledByReadAllBytes()) {
            uninterruptible = true;
            return true;
        }
        return false;
    }

    /**
     * Whether an interrupt must not end a wait of this channel (a ring operation): its own streams' and
     * {@code Files.readAllBytes}' (asked once per channel of {@code Files.newByteChannel}, before its first wait; its
     * caller does not change). An interrupt that came during the wait of {@code readAllBytes} on a FIFO closed the
     * channel, where the JDK's finishes the read.
     */
    boolean uninterruptibleForWait() {
        if (uninterruptible) {
            return true;
        }
        if (!askWhenInterrupted || askedForWait) {
            return false;
        }
        askedForWait = true;
        return readAllBytesCaller();
    }

    /** Counts a call on {@link #fd}; false once the channel closed (the descriptor may be gone). */
    private boolean enter() {
        if ((uses.incrementAndGet() & CLOSED) != 0) {
            leave();
            return false;
        }
        return true;
    }

    void leave() {
        if (uses.decrementAndGet() == CLOSED) {
            Thread t = closer;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    void enterOrThrow() throws IOException {
        if (!enter()) {
            throw new AsynchronousCloseException();
        }
    }

    @Override
    protected void implCloseChannel() throws IOException {
        uses.getAndAdd(CLOSED);
        FileHandle h;
        FileChannel j;
        MappedReads.Mapping m;
        synchronized (resources.lock) {
            if (resources.closed) {
                return;
            }
            resources.closed = true;
            h = resources.ring == null ? null : resources.ring.handle();
            j = resources.jdk;
            m = resources.mapping;
            if (mapped != null) {
                mapped.closing();
            }
        }
        IOException failure = null;
        int r;
        // From here the channel is closed for good (a second close returns at once, the cleaner only unregisters):
        // whatever the steps below throw (a full heap), the descriptor is let go of in the finally, or never.
        try {
            if (m != null) {
                m.unmap();
            }
            if (j != null) {
                try {
                    j.close(); // its locks go with it, as the JDK's channel releases its locks on close
                } catch (IOException e) {
                    failure = e;
                }
            }
            if (h != null) {
                closeRingHandle(h);
            }
        } finally {
            // Calls on the caller's threads end soon (none waits for long: those that could, go to the ring).
            closer = Thread.currentThread();
            boolean interrupted = false;
            while (uses.get() != CLOSED) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
            closer = null;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            jdkDescriptor.fd = -1; // before the number can be another file's, as the JDK's FileDescriptor says
            // closed now, or, when the ring was held up (above), once it gives the descriptor back, as the JDK's
            // channel closes its descriptor after the last thread in a call on it
            r = resources.letGo();
            if (cleanable != null) {
                cleanable.clean(); // resources.closed is set: only unregisters
            }
        }
        if (r < 0 && r != -Errno.EINTR && failure == null) {
            failure = JdkErrors.io(-r);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Closes the ring's descriptor: its operations in flight end with {@link AsynchronousCloseException} and their
     * threads wake. Waits for it unless the caller is an event loop thread (of any executor).
     */
    private void closeRingHandle(FileHandle h) {
        if (!h.beginClose()) {
            return;
        }
        java.util.concurrent.CompletableFuture<Void> closed = null;
        IoBackend backend = h.backend();
        Request r = null;
        // Begun, the close must reach the ring, which holds the descriptor until then: on a full heap its future and
        // request wait for memory (ten seconds at most)
        for (int tries = 0; r == null; tries++) {
            try {
                if (closed == null) {
                    closed = new java.util.concurrent.CompletableFuture<>();
                }
                r = backend.acquire();
            } catch (OutOfMemoryError e) {
                if (!io.github.uring4j.engine.FullHeap.waitForMemory(tries)) {
                    throw e;
                }
            }
        }
        r.kind = Request.CLOSE;
        r.handle = h;
        r.completion = RING_HANDLE_CLOSED;
        r.target = closed;
        // not on an event loop of any executor: its own would wait for itself, another's for a loop that may wait
        // for this one
        boolean wait = !io.github.uring4j.engine.uring.UringBackend.onAnyLoop();
        backend.submit(r);
        if (wait) {
            // nor for ever for a loop that code of the user's keeps from its work (a handler of theirs that blocks)
            String heldUp = null;
            for (int tries = 0;; tries++) {
                try {
                    heldUp = backend.awaitUnlessHeldUp(closed); // its wait is a node of the future's: memory
                    break;
                } catch (OutOfMemoryError e) {
                    if (!io.github.uring4j.engine.FullHeap.waitForMemory(tries)) {
                        throw e; // the descriptor is closed once the ring is done: it holds it (letGo)
                    }
                }
            }
            if (heldUp != null) {
                io.github.uring4j.engine.Log.warn("close of " + path
                        + " returns before the ring is done with its descriptor (closed once it is): " + heldUp);
            }
        }
    }

    /** Completes the close's future ({@link #closeRingHandle}). */
    @SuppressWarnings("unchecked")
    private static final Completion RING_HANDLE_CLOSED = (target, attachment, value, opened, error) ->
            ((java.util.concurrent.CompletableFuture<Void>) target).complete(null);

    /**
     * The ring could not be set up: the process has no descriptor to spare. A blocking call then waits on the
     * caller's thread, as the JDK's channel makes it (its carrier, on a virtual thread), instead of failing where the
     * JDK's would not.
     */
    static final class NoRing extends IOException {
        private static final long serialVersionUID = 1L;

        NoRing(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Whether {@code t}, or a cause of it, says the process (or the system) has no descriptor to spare. */
    private static boolean outOfDescriptors(Throwable t) {
        Throwable c = t;
        for (int depth = 0; c != null && depth < 16; depth++, c = c.getCause()) { // a cycle of causes ends too
            if (c instanceof io.github.uring4j.ring.UringException u
                    && (u.errno() == Errno.EMFILE || u.errno() == Errno.ENFILE)) {
                return true;
            }
        }
        return false;
    }

    /** The ring's handle of this file's descriptor (lent to it). */
    private FileHandle handle() throws IOException {
        return ringUse().handle();
    }

    /**
     * The ring's handle of this file's descriptor (lent to it), made on first use, and made again on the executor
     * the channel gets now when the last one's executor was closed (or its loop failed) under the open channel: the
     * channel goes on working, as the JDK's does, whatever happens to the executors.
     */
    RingUse ringUse() throws IOException {
        RingUse known = resources.ring;
        if (known != null && known.handle().isOpen() && !executorGone(known.handle())) {
            return known;
        }
        // the ring's reads and writes of a descriptor with O_NONBLOCK end with EAGAIN where they should wait
        dropNonblocking();
        synchronized (resources.lock) {
            RingUse u = resources.ring;
            if (u != null && u.handle().isOpen() && !executorGone(u.handle())) {
                return u;
            }
            if (resources.closed) {
                throw new AsynchronousCloseException();
            }
            if (u != null) {
                // its executor was closed or failed under the open channel: the handle is closed (if its executor
                // has not closed it yet) and gives the descriptor back once that executor is done with it
                u.handle().orphaned();
            }
            OpenSpec spec = OpenSpec.of(path, flags, readable, writable, direct, false, false);
            int align = direct ? alignment : 4096;
            FileHandle h = null;
            Engine e = null;
            for (int attempt = 0; h == null; attempt++) {
                try {
                    e = engine();
                } catch (RuntimeException | Error made) {
                    if (outOfDescriptors(made)) {
                        throw new NoRing(made);
                    }
                    throw made;
                }
                resources.ringHolds();
                h = e.backend.adopt(spec, fd, align, align, resources::letGo);
                if (h == null) {
                    resources.letGo(); // the channel still holds it: not closed
                    if (attempt + 1 == EXECUTOR_RETRIES) {
                        throw new IOException("uring4j: the executor " + e.executor + " is closed");
                    }
                    // closed between its pick and the adopt: the default one is made again (another stays closed)
                }
            }
            u = new RingUse(h, e.backend, e.bounces);
            resources.ring = u;
            return u;
        }
    }

    /**
     * The JDK's channel on this file when {@code other} is one of the JDK's own file channels: the JDK's channel
     * transfers between two of its own with {@code copy_file_range} from or to the other's descriptor, which only the
     * JDK's channel can reach, and whose partial copies and failures are the kernel's; its channel on this file
     * makes the same call. Null for other channels, for a channel that must not be closed by an interrupt (the JDK's
     * would be), and where the file's permissions keep it from being opened again.
     */
    FileChannel jdkTwinFor(Channel other) throws IOException {
        if (uninterruptible || !(other instanceof FileChannel) || !Builtin.isJdks(other)) {
            return null;
        }
        try {
            return jdk();
        } catch (java.nio.file.AccessDeniedException e) {
            return null;
        }
    }

    /** The JDK's channel on this file, for {@code map} and the locks, opened on first use. */
    private FileChannel jdk() throws IOException {
        synchronized (resources.lock) {
            if (resources.closed) {
                throw new ClosedChannelException();
            }
            FileChannel j = resources.jdk;
            if (j == null) {
                Set<StandardOpenOption> o = EnumSet.noneOf(StandardOpenOption.class);
                if (readable) {
                    o.add(StandardOpenOption.READ);
                }
                if (writable) {
                    o.add(StandardOpenOption.WRITE);
                }
                // what it writes (a transfer from another of the JDK's channels) is as synchronous as this channel's
                if ((flags & Uapi.O_SYNC) == Uapi.O_SYNC) {
                    o.add(StandardOpenOption.SYNC);
                } else if ((flags & Uapi.O_DSYNC) != 0) {
                    o.add(StandardOpenOption.DSYNC);
                }
                Path self = Builtin.provider().getFileSystem(URI.create("file:///")).getPath("/proc/self/fd/" + fd);
                try {
                    j = Builtin.provider().newFileChannel(self, o);
                } catch (java.nio.file.AccessDeniedException e) {
                    throw new java.nio.file.AccessDeniedException(path, null, "map and the file locks use the JDK's"
                            + " channel on a second descriptor of the file, which its permissions do not allow");
                } catch (java.nio.file.FileSystemException e) {
                    // the descriptor limit, say: named by the file's path, not the internal /proc/self/fd one
                    java.nio.file.FileSystemException named = new java.nio.file.FileSystemException(path, null,
                            e.getReason() + " (map and the file locks use the JDK's channel on a second descriptor of"
                                    + " the file, opened on first use)");
                    named.initCause(e);
                    throw named;
                }
                resources.jdk = j;
            }
            return j;
        }
    }

    // ============================================================================================ kinds of file

    /** Regular file (calls on it never wait long), or something that may wait forever (pipe, FIFO, device). */
    boolean regular() {
        int t = fileType;
        if (t == UNKNOWN) {
            Call c = Call.get();
            try {
                MemorySegment sx = c.statx;
                if (!enter()) {
                    return true; // closed: the caller fails before it calls
                }
                int r;
                try {
                    r = LeanCalls.statx(c.capture, fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_TYPE, sx);
                } finally {
                    leave();
                }
                if (r == 0) {
                    typeBits = typeOf(sx);
                }
                t = r == 0 ? kindOf(typeBits) : OTHER;
            } finally {
                c.release();
            }
            fileType = t;
            if (t == OTHER) {
                dropNonblocking();
            }
        }
        return t == REGULAR;
    }

    /**
     * Turns {@code O_NONBLOCK} off ({@link #nonblocking}) before anything may wait on this descriptor: the ring's
     * writes, and calls on a file found not to be regular.
     */
    private void dropNonblocking() {
        if (!nonblocking) {
            return;
        }
        // Two threads may both turn it off: the same call twice. The field says false only once it is off.
        Call c = Call.get();
        try {
            if (enter()) {
                try {
                    LeanCalls.setStatusFlags(c.capture, fd, flags); // the flags it was opened with, less that one
                } finally {
                    leave();
                }
            }
        } finally {
            c.release();
        }
        nonblocking = false;
    }

    private static final MemorySegment EMPTY_PATH = Arena.global().allocateFrom("");
    /** Reads made with RWF_NOWAIT before the file's type is asked (a stream of a small file makes two). */
    private static final int UNASKED_READS = 2;

    /**
     * For a stream just opened on this channel: asks the descriptor what the file is and how long (one
     * {@code statx} without a path to walk), so that the stream knows whether it may seek, and its reads from the
     * start end where the file does without a second call to tell. Returns true for a directory.
     */
    boolean lookAtFile() throws IOException {
        Call c = Call.get();
        try {
            MemorySegment sx = statSelf(c);
            int type = typeOf(sx);
            if (type == 0100000) {
                endHint = sx.get(JAVA_LONG, Statx.SIZE); // before the stream is handed out, as the other fields
                hintAt = 0;
            }
            return type == 0040000;
        } finally {
            c.release();
        }
    }

    /**
     * {@code statx} of the descriptor (type and size) into {@code c}'s memory for it, which it returns; the channel
     * learns what its file is on the way.
     */
    private MemorySegment statSelf(Call c) throws IOException {
        MemorySegment sx = c.statx;
        enterOrThrow();
        int r;
        try {
            r = LeanCalls.statx(c.capture, fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE | Statx.STATX_TYPE, sx);
            if (r == 0) {
                // a block device's stx_size is 0: its size, as the JDK's channel reports it, goes there (ioctl)
                r = (int) Math.min(0, Statx.size(io.github.uring4j.linux.Syscalls.system(), fd, sx));
            }
        } finally {
            leave();
        }
        afterCall();
        Counters.CALLER_CALLS.increment();
        if (r < 0) {
            throw JdkErrors.io(-r);
        }
        if (fileType == UNKNOWN) {
            fileType = kindOf(typeOf(sx));
        }
        return sx;
    }

    /** The file type bits ({@code S_IFMT}) of a {@code statx} result. */
    private static int typeOf(MemorySegment sx) {
        return Short.toUnsignedInt(sx.get(ValueLayout.JAVA_SHORT, Statx.MODE)) & 0170000;
    }

    /** {@link #REGULAR} for a regular file or a directory (calls on them never wait long), else {@link #OTHER}. */
    private static int kindOf(int type) {
        return type == 0100000 || type == 0040000 ? REGULAR : OTHER;
    }

    // ============================================================================================ reads

    @Override
    public int read(ByteBuffer dst) throws IOException {
        ensureOpen(); // as the JDK: open and access are checked before the buffer (a null one throws below)
        if (!readable) {
            throw new NonReadableChannelException();
        }
        return positionLock.callInt(() -> {
            blocking(); // the JDK's channel finds a null or read-only buffer after it began
            if (direct) {
                checkPositionAligned(position0());
            }
            return read0(dst, -1);
        });
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        Objects.requireNonNull(dst);
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        if (direct) {
            checkPositionAligned(position);
        }
        blocking();
        if (mapped != null && !Thread.currentThread().isVirtual()) {
            int n = mapped.read(this, dst, position);
            if (n >= 0) {
                return n;
            }
        }
        return read0(dst, position);
    }

    static {
        JdkErrors.load(); // see there: the descriptor limit's error must not be the first use of the error class
    }

    /**
     * Buffers with bytes to move that one scattering read or gathering write takes, as the JDK's channel takes at most
     * {@code IOV_MAX} (1024 on Linux) and leaves the rest to the next call; the buffers past them are not looked at.
     */
    private static final int IOV_MAX = 1024;

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        return positionLock.callLong(() -> {
            blocking(); // the JDK's channel looks at the buffers after it began
            if (direct) {
                checkPositionAligned(position0());
            }
            long total = 0;
            int end = iovEnd(dsts, offset, length, true);
            if (offBlock(dsts, offset, end)) {
                return vector(true, dsts, offset, end);
            }
            for (int i = offset; i < end; i++) {
                ByteBuffer b = dsts[i];
                if (!b.hasRemaining()) {
                    continue;
                }
                int want = b.remaining();
                int n = read0(b, -1);
                if (n < 0) {
                    return total == 0 ? -1 : total;
                }
                total += n;
                if (n < want || (n > 0 && !regular() && !bytesWaiting())) {
                    // A pipe's or device's next read may wait for bytes that never come: one readv of the JDK's
                    // returns what was there (a scattering read of 10 bytes a FIFO held into two buffers hung); bytes
                    // a pipe holds still go on into the next buffers, as that readv takes them (before, the first
                    // buffer's worth only)
                    break;
                }
            }
            return total;
        });
    }

    /** Whether a pipe or FIFO holds bytes to read now ({@code FIONREAD}); false for a file that cannot say. */
    private boolean bytesWaiting() {
        Call c = Call.get();
        try {
            if (!enter()) {
                return false;
            }
            try {
                MemorySegment count = c.scratch(4);
                return io.github.uring4j.linux.Syscalls.system().ioctl(fd, Uapi.FIONREAD, count) == 0
                        && count.get(ValueLayout.JAVA_INT, 0) > 0;
            } finally {
                leave();
            }
        } finally {
            c.release();
        }
    }

    /**
     * Where a scattering read ({@code read}) or gathering write of {@code bufs[offset, offset + length)} ends: after
     * the {@link #IOV_MAX}th buffer with bytes to move; each buffer up to there is checked as the JDK's channel checks
     * it, the rest are not looked at.
     */
    private int iovEnd(ByteBuffer[] bufs, int offset, int length, boolean read) throws IOException {
        int end = offset;
        for (int used = 0; end < offset + length && used < IOV_MAX; end++) {
            ByteBuffer b = bufs[end];
            if (b == null) {
                throw new NullPointerException("buffer " + end + " of the array is null");
            }
            if (read && b.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            if (b.isDirect()) {
                // as the JDK's channel, before anything moves: a freed buffer further on (or another thread's
                // confined one) failed the call after the buffers before it had taken bytes from the file (and the
                // position had passed them)
                Memory.checkUsable(b, end);
            }
            if (direct && b.remaining() % alignment != 0) {
                // as the JDK's channel, only the size here: the addresses of a vector are the kernel's to refuse
                throw new IOException("Number of remaining bytes (" + b.remaining()
                        + ") is not a multiple of the block size (" + alignment + ")");
            }
            used += b.hasRemaining() ? 1 : 0;
        }
        return end;
    }

    /**
     * Whether a scattering read or gathering write on an {@code O_DIRECT} channel has native memory off the block
     * boundary among the buffers it would take bytes of ({@code bufs[from, to)}): the JDK's channel checks only
     * their sizes and hands their addresses to the kernel, whose own rule decides (the device's DMA alignment, and
     * only for the part of the file a read reaches before its end).
     */
    private boolean offBlock(ByteBuffer[] bufs, int from, int to) {
        if (!direct) {
            return false;
        }
        for (int i = from; i < to; i++) {
            ByteBuffer b = bufs[i];
            if (b.isDirect() && b.hasRemaining() && Memory.address(b) % alignment != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * A scattering read or gathering write of {@code bufs[from, to)} at the file position in one
     * {@code preadv2}/{@code pwritev2} on the caller's thread, as the JDK's channel makes it, for the kernel to take
     * or refuse ({@link #offBlock}). A heap buffer goes through block-aligned memory, as the JDK's; memory that may be
     * freed during the call (a shared arena's) through memory at the same distance from a page boundary, so the
     * kernel meets the same address rule. Blocks a virtual thread's carrier for the call, as the JDK's does.
     */
    private long vector(boolean read, ByteBuffer[] bufs, int from, int to) throws IOException {
        endHint = -1; // it may move the file position
        List<PinnedRegion> pinned = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            int used = 0;
            for (int i = from; i < to; i++) {
                used += bufs[i].hasRemaining() ? 1 : 0;
            }
            if (used == 0) {
                return 0;
            }
            MemorySegment iov = a.allocate(16L * used, 8);
            MemorySegment[] staged = new MemorySegment[to - from];
            int k = 0;
            for (int i = from; i < to; i++) {
                ByteBuffer b = bufs[i];
                int rem = b.remaining();
                if (rem == 0) {
                    continue;
                }
                long address = -1;
                if (b.isDirect()) {
                    switch (Memory.kind(b)) {
                        case Memory.HELD -> address = Memory.address(b);
                        case Memory.POOL -> {
                            PinnedRegion region = Memory.region(b);
                            if (!region.pin()) {
                                throw new IllegalStateException("a buffer of a closed BufferPool takes part in no"
                                        + " scattering or gathering transfer (a transfer of it alone does)");
                            }
                            pinned.add(region);
                            address = Memory.address(b);
                        }
                        case Memory.CONFINED -> {
                            if (!MemorySegment.ofBuffer(b).isAccessibleBy(Thread.currentThread())) {
                                throw new WrongThreadException("the buffer belongs to a confined arena of another thread");
                            }
                            address = Memory.address(b);
                        }
                        default -> {
                        }
                    }
                }
                if (address < 0) {
                    long past = b.isDirect() ? Memory.address(b) % 4096 : 0;
                    MemorySegment s = a.allocate(past + rem, 4096).asSlice(past, rem);
                    if (!read) {
                        MemorySegment.copy(b.isDirect() ? Memory.whole(b).asSlice(b.position(), rem)
                                : MemorySegment.ofBuffer(b), 0, s, 0, rem);
                    }
                    staged[i - from] = s;
                    address = s.address();
                }
                iov.set(JAVA_LONG, 16L * k, address);
                iov.set(JAVA_LONG, 16L * k + 8, rem);
                k++;
            }
            if (Thread.currentThread().isInterrupted() && !uninterruptible && !readAllBytesCaller()) {
                interruptedBeforeCall();
            }
            Call c = Call.get();
            long n;
            try {
                enterOrThrow();
                try {
                    do {
                        n = read ? LeanCalls.preadv2(c.capture, fd, iov, used, -1, 0)
                                : LeanCalls.pwritev2(c.capture, fd, iov, used, -1, 0);
                    } while (n == -Errno.EINTR);
                } finally {
                    leave();
                }
                afterCall();
                Counters.CALLER_CALLS.increment();
            } finally {
                c.release();
            }
            if (n < 0) {
                throw JdkErrors.io((int) -n);
            }
            (read ? Counters.BYTES_READ : Counters.BYTES_WRITTEN).add(n);
            long left = n;
            for (int i = from; i < to && left > 0; i++) {
                ByteBuffer b = bufs[i];
                int step = (int) Math.min(b.remaining(), left);
                MemorySegment s = staged[i - from];
                if (read && s != null && step > 0) {
                    MemorySegment.copy(s, 0, b.isDirect() ? Memory.whole(b).asSlice(b.position(), step)
                            : MemorySegment.ofBuffer(b).asSlice(0, step), 0, step);
                }
                b.position(b.position() + step);
                left -= step;
            }
            return read && n == 0 ? -1 : n;
        } finally {
            for (PinnedRegion r : pinned) {
                r.unpin();
            }
        }
    }

    /** One buffer at {@code position} ({@code -1}: at the file position, which advances). */
    private int read0(ByteBuffer dst, long position) throws IOException {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        return transfer0(true, dst, position);
    }

    /**
     * A read into or a write from {@code b} at {@code position} (-1: the channel's position), by the kind of memory
     * it is: the kernel is handed memory only while nobody can free it; the rest goes through staging memory.
     */
    private int transfer0(boolean read, ByteBuffer b, long position) throws IOException {
        int len = b.remaining();
        if (direct) {
            checkBuffer(b, len);
        }
        if (len == 0) {
            return 0;
        }
        if (!b.isDirect()) {
            return read ? stagedRead(b, position) : stagedWrite(b, position);
        }
        switch (Memory.kind(b)) {
            case Memory.HELD -> {
                return transferAt(read, b, len, position);
            }
            case Memory.POOL -> {
                PinnedRegion region = Memory.region(b);
                if (!region.pin()) {
                    // still lent by a closed pool: as any other direct buffer of the JDK's, through a copy whose
                    // access to it the JDK checks (IllegalStateException once the memory is freed), never the kernel
                    return read ? stagedRead(b, position) : stagedWrite(b, position);
                }
                try {
                    return transferAt(read, b, len, position);
                } finally {
                    region.unpin();
                }
            }
            case Memory.CONFINED -> {
                if (!MemorySegment.ofBuffer(b).isAccessibleBy(Thread.currentThread())) {
                    throw new WrongThreadException("the buffer belongs to a confined arena of another thread");
                }
                // Its owner is this thread, busy here: nobody can free the memory before the call returns.
                return transferAt(read, b, len, position);
            }
            default -> {
                // a shared arena's memory may be freed at any moment
                return read ? stagedRead(b, position) : stagedWrite(b, position);
            }
        }
    }

    private int transferAt(boolean read, ByteBuffer b, int len, long position) throws IOException {
        return read ? readInto(b, Memory.address(b), len, position, null)
                : writeFrom(b, Memory.address(b), len, position, null);
    }

    /**
     * Reads a heap buffer (or a shared arena's) through staging memory, in pieces of {@link #STAGE} bytes. A heap
     * array could go to {@code pread} itself through a critical downcall, but not to {@code preadv2} (its
     * {@code iovec} would hold the array's address), so not with {@code RWF_NOWAIT}: a read that misses the page
     * cache would hold off the garbage collector while it waits for the device. Cached, that saved nothing at 4 KiB
     * and a seventh at 64 KiB (the README's drop-in section).
     */
    private int stagedRead(ByteBuffer dst, long position) throws IOException {
        int total = 0;
        while (dst.hasRemaining()) {
            int piece = Math.min(dst.remaining(), STAGE);
            Call c = Call.get();
            int n;
            try {
                MemorySegment s = c.scratch(piece);
                n = readInto(null, s.address(), piece, position < 0 ? -1 : position + total, c);
                if (n > 0) {
                    if (dst.hasArray()) {
                        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, dst.array(), dst.arrayOffset() + dst.position(), n);
                    } else {
                        MemorySegment to = dst.isDirect() ? Memory.whole(dst).asSlice(dst.position(), n)
                                : MemorySegment.ofBuffer(dst).asSlice(0, n);
                        MemorySegment.copy(s, 0, to, 0, n);
                    }
                    dst.position(dst.position() + n);
                }
            } finally {
                c.release();
            }
            if (n < 0) {
                return total == 0 ? -1 : total;
            }
            total += n;
            if (n < piece) {
                break;
            }
        }
        return total;
    }

    /** {@link #readCachedNow}: not made here (the memory, the file or the size); the caller's other ways may. */
    static final int NOT_NOW = -2;
    /** {@link #readCachedNow}: the read must go to the ring; it was tried here, and the page cache did not hold it. */
    static final int MISSED = -3;

    /**
     * A positional read that the page cache holds, made on this thread without waiting and without the ring (the
     * futures of uring4j's {@code AsynchronousFileChannel}): the bytes read, {@code dst} advanced by them, or -1 at the
     * end of the file; when it must go to the ring, {@code dst} untouched: {@link #MISSED} after a page out of the
     * cache or an error (the ring's read reports it); {@link #NOT_NOW} for a file system that refuses
     * {@code RWF_NOWAIT}, a file that is not regular, {@code O_DIRECT}, more than 256 KiB, or memory other than a
     * heap buffer or a plain direct buffer. Only for a channel that an interrupt does not close.
     */
    int readCachedNow(ByteBuffer dst, long position) throws IOException {
        int len = dst.remaining();
        if (direct || !nowaitReads || len == 0 || len > io.github.uring4j.engine.CallerReads.MAX
                || position > Long.MAX_VALUE - len || !(dst.isDirect() ? Memory.kind(dst) == Memory.HELD : dst.hasArray())
                || !regular()) {
            return NOT_NOW;
        }
        Call c = Call.get();
        try {
            MemorySegment into = dst.isDirect() ? null : c.scratch(len);
            long address = into == null ? Memory.address(dst) : into.address();
            int done = 0;
            while (done < len) {
                long n = inline(true, address + done, len - done, position + done, Uapi.RWF_NOWAIT, c);
                if (n == 0) {
                    break; // the end of the file
                }
                if (n < 0) {
                    if (n == -Errno.EOPNOTSUPP) {
                        nowaitReads = false;
                        return NOT_NOW; // a file in memory (tmpfs) is read plainly elsewhere (CallerReads)
                    }
                    return MISSED; // a page out of the cache, or an error: the ring reads it all and says
                }
                done += (int) n;
            }
            if (done == 0) {
                return -1;
            }
            if (into != null) {
                MemorySegment.copy(into, ValueLayout.JAVA_BYTE, 0, dst.array(), dst.arrayOffset() + dst.position(), done);
            }
            dst.position(dst.position() + done);
            Counters.BYTES_READ.add(done);
            return done;
        } finally {
            c.release();
        }
    }

    /**
     * Reads {@code len} bytes into the native memory at {@code address}: bytes read, or -1 at the end of the file.
     * {@code dst} (a direct buffer whose memory {@code address} is, or null for staging memory) advances by the bytes
     * read. {@code held}: the caller's context, whose staging memory {@code address} is (it stays with the caller).
     */
    private int readInto(ByteBuffer dst, long address, int len, long position, Call held) throws IOException {
        boolean virtual = Thread.currentThread().isVirtual();
        boolean firstTry = !(direct && virtual);
        int done = 0;
        long end = -1;
        long at = 0;
        if (position < 0 && endHint >= 0) {
            end = endHint;
            at = hintAt;
            endHint = -1; // kept below only where this read leaves it true
        }
        if (firstTry) {
            // RWF_NOWAIT keeps a virtual thread's carrier from waiting for the device, and a read of a pipe or device
            // from waiting for ever; a platform thread reading a regular file would make the blocking call next
            // anyway: one call, as the JDK's channel makes, saves the second when the page cache misses. Until the
            // channel knows what its file is, the first reads try RWF_NOWAIT: served from the page cache (or at the
            // end), they need nothing more, where asking the type first cost every open + read + close a statx (and
            // every stream of a small file, whose second read finds the end); later reads ask it, for a plain pread.
            boolean unasked = fileType == UNKNOWN && unaskedReads < UNASKED_READS;
            if (unasked) {
                unaskedReads++; // written by the first reads only (threads reading one channel share the line)
            }
            boolean nowait = nowaitReads && !(direct && !virtual) && (virtual || unasked || !regular());
            long n = inline(true, address, len, position, nowait ? Uapi.RWF_NOWAIT : 0, held);
            if (n >= 0) {
                if (n == 0) {
                    return -1;
                }
                Counters.BYTES_READ.add(n);
                if (dst != null) {
                    dst.position(dst.position() + (int) n);
                }
                boolean atHintedEnd = end >= 0 && at + n == end;
                if (end >= 0 && (n == len || atHintedEnd)) {
                    endHint = end;
                    hintAt = at + n;
                }
                if (n == len || !nowait || atHintedEnd) {
                    return (int) n;
                }
                // A short read: the end of the file, or the first page the cache does not hold. One more call tells
                // which (0 at the end, EAGAIN at a missing page) where sending the rest to the ring would cost every
                // read across the end a round trip through the event loop. Whatever the cache holds of the rest
                // comes too; what it does not is read as a whole below, as a blocking read would.
                done = (int) n;
                while (done < len) {
                    long more = inline(true, address + done, len - done, position < 0 ? -1 : position + done,
                            Uapi.RWF_NOWAIT, held);
                    if (more <= 0) {
                        if (more != -Errno.EAGAIN) {
                            return done; // the end of the file; or an error after bytes moved, which the next call meets
                        }
                        break;
                    }
                    Counters.BYTES_READ.add(more);
                    if (dst != null) {
                        dst.position(dst.position() + (int) more);
                    }
                    done += (int) more;
                }
                if (done == len) {
                    return done;
                }
            } else if (n == -Errno.EOPNOTSUPP && nowait) {
                nowaitReads = false;
            } else if (n != -Errno.EAGAIN) {
                throw JdkErrors.io((int) -n);
            }
            if (!virtual && regular()) {
                long m = inline(true, address + done, len - done, position < 0 ? -1 : position + done, 0, held);
                if (m < 0) {
                    if (done > 0) {
                        return done;
                    }
                    throw JdkErrors.io((int) -m);
                }
                Counters.BYTES_READ.add(m);
                if (dst != null) {
                    dst.position(dst.position() + (int) m);
                }
                return done + (int) m == 0 ? -1 : done + (int) m;
            }
        }
        long m = ring(Request.READ, dst, address + done, len - done, position < 0 ? -1 : position + done, held);
        if (m <= 0) {
            return done > 0 ? done : m == 0 ? -1 : (int) m;
        }
        Counters.BYTES_READ.add(m);
        return done + (int) m;
    }

    // ============================================================================================ writes

    @Override
    public int write(ByteBuffer src) throws IOException {
        ensureOpen(); // as the JDK: open and access are checked before the buffer (a null one throws below)
        if (!writable) {
            throw new NonWritableChannelException();
        }
        return positionLock.callInt(() -> {
            blocking();
            if (direct) {
                checkPositionAligned(position0());
            }
            return write0(src, -1);
        });
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        Objects.requireNonNull(src);
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        if (direct) {
            checkPositionAligned(position);
        }
        blocking();
        if (src.hasRemaining() && !regular() && pipeLike()) {
            // as pwrite(2) of the JDK's channel: the ring would write it at the FIFO's end, ignoring the position
            throw JdkErrors.io(Errno.ESPIPE);
        }
        return write0(src, position);
    }

    /**
     * A FIFO or a socket: no file offset, so a write at a position is refused ({@code ESPIPE}). The type
     * {@link #regular} asked is used; a channel that learned otherwise that its file is not regular asks once here.
     */
    private boolean pipeLike() {
        int type = typeBits;
        if (type < 0) {
            Call c = Call.get();
            try {
                if (!enter()) {
                    return false; // closed: the write says so
                }
                int r;
                try {
                    r = LeanCalls.statx(c.capture, fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_TYPE, c.statx);
                } finally {
                    leave();
                }
                if (r != 0) {
                    return false;
                }
                type = typeOf(c.statx);
                typeBits = type;
            } finally {
                c.release();
            }
        }
        return type == 0010000 || type == 0140000;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        return positionLock.callLong(() -> {
            blocking();
            if (direct) {
                checkPositionAligned(position0());
            }
            int end = iovEnd(srcs, offset, length, false);
            if (offBlock(srcs, offset, end)) {
                return vector(false, srcs, offset, end);
            }
            return gather(srcs, offset, end - offset);
        });
    }

    /**
     * A gathering write in one call, as the JDK's {@code writev}: the buffers are staged one after the other and
     * written together, so an append from many threads or processes lands whole.
     */
    private long gather(ByteBuffer[] srcs, int offset, int length) throws IOException {
        // staged up to the most one write(2) moves: the kernel would write no more of a larger stage
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += srcs[i].remaining();
        }
        if (total == 0) {
            return 0;
        }
        int len = (int) Math.min(total, MAX_RW_COUNT);
        Call c = Call.get();
        try (Arena once = len > STAGE ? Arena.ofConfined() : null) {
            MemorySegment s = once != null ? once.allocate(len, 4096) : c.scratch(len);
            long at = 0;
            for (int i = offset; i < offset + length && at < len; i++) {
                ByteBuffer b = srcs[i];
                int take = (int) Math.min(b.remaining(), len - at);
                MemorySegment from = b.isDirect() ? Memory.whole(b).asSlice(b.position(), take)
                        : MemorySegment.ofBuffer(b).asSlice(0, take);
                MemorySegment.copy(from, 0, s, at, take);
                at += take;
            }
            int n = writeFrom(null, s.address(), len, -1, once != null ? null : c);
            long left = n;
            for (int i = offset; i < offset + length && left > 0; i++) {
                ByteBuffer b = srcs[i];
                int step = (int) Math.min(b.remaining(), left);
                b.position(b.position() + step);
                left -= step;
            }
            return n;
        } finally {
            c.release();
        }
    }

    private int write0(ByteBuffer src, long position) throws IOException {
        return transfer0(false, src, position);
    }

    /**
     * Writes a heap buffer (or a shared arena's) through staging memory in one call, as the JDK's channel does: an
     * append from many threads or processes then lands whole.
     */
    private int stagedWrite(ByteBuffer src, long position) throws IOException {
        int len = src.remaining();
        // A heap array is copied from as an array: with a segment over the buffer (MemorySegment.ofBuffer) a 100-byte
        // append from a platform thread took 404-460 ns, from the array 368-399 ns (the JDK's channel 419-425 ns).
        MemorySegment from = src.hasArray() ? null : src.isDirect() ? Memory.whole(src).asSlice(src.position(), len)
                : MemorySegment.ofBuffer(src);
        Call c = Call.get();
        try {
            if (len <= STAGE) {
                MemorySegment s = c.scratch(len);
                stage(src, from, s, len);
                int n = writeFrom(null, s.address(), len, position, c);
                src.position(src.position() + n);
                return n;
            }
            try (Arena once = Arena.ofConfined()) {
                MemorySegment s = once.allocate(len, 4096);
                stage(src, from, s, len);
                int n = writeFrom(null, s.address(), len, position, null);
                src.position(src.position() + n);
                return n;
            }
        } finally {
            c.release();
        }
    }

    /** Copies {@code src}'s remaining bytes into {@code s}: from its array, or from {@code from} when it has none. */
    private static void stage(ByteBuffer src, MemorySegment from, MemorySegment s, int len) {
        if (from == null) {
            MemorySegment.copy(src.array(), src.arrayOffset() + src.position(), s, ValueLayout.JAVA_BYTE, 0, len);
        } else {
            MemorySegment.copy(from, 0, s, 0, len);
        }
    }

    /**
     * Writes {@code len} bytes from the native memory at {@code address}; {@code src} (or null) advances. A pipe's,
     * FIFO's or device's write goes on until all of it is written, as a blocking {@code write(2)} of the JDK's channel
     * does: the ring's write (or one on a descriptor with {@code O_NONBLOCK}) ends when the reader has taken what fit,
     * and a program that writes 1 MiB to a pipe and, as usual with a blocking channel, does not look at the count would
     * lose all but the first 64 KiB. After a part was written, a failure or a close by another thread ends the write
     * with the bytes written (the next call says what is wrong, as the JDK's does); an interrupt closes the channel
     * and throws, as the JDK's channel does.
     */
    private int writeFrom(ByteBuffer src, long address, int len, long position, Call held) throws IOException {
        int n = writeOnce(src, address, len, position, held);
        while (n > 0 && n < len && !regular()) {
            int m;
            try {
                m = writeOnce(src, address + n, len - n, position < 0 ? -1 : position + n, held);
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (IOException e) {
                break;
            }
            if (m <= 0) {
                break;
            }
            n += m;
        }
        return n;
    }

    /** One write of {@code len} bytes from {@code address} ({@link #writeFrom}); {@code src} (or null) advances. */
    private int writeOnce(ByteBuffer src, long address, int len, long position, Call held) throws IOException {
        if (position < 0) {
            endHint = -1;
        }
        boolean virtual = Thread.currentThread().isVirtual();
        if (!(direct && virtual)) {
            long n;
            if (!virtual && (nonblocking || regular())) {
                // A platform thread's write of a regular file: one call, as the JDK's channel makes it (it may wait
                // in the kernel a while, never for ever). RWF_NOWAIT first cost a second call on every channel of a
                // file system that refuses it (ext4's buffered writes). With O_NONBLOCK, of any file: one that is not
                // regular says EAGAIN when it would wait, and goes to the ring from then on.
                n = inline(false, address, len, position, 0, held);
                if (n == -Errno.EAGAIN && nonblocking) {
                    fileType = OTHER;
                    dropNonblocking();
                }
            } else if (nowaitWrites) {
                n = inline(false, address, len, position, Uapi.RWF_NOWAIT, held);
                if (n == -Errno.EOPNOTSUPP) {
                    // The file cannot take a write that must not wait: ext4's buffered writes refuse it, and so does
                    // a FIFO here (Linux 6.18). A regular file's write then waits for long only while the kernel
                    // makes writers wait; anything else's goes to the ring (waitingWrite).
                    nowaitWrites = false;
                    n = waitingWrite(virtual, address, len, position, held);
                } else if (n == -Errno.EAGAIN && virtual && regular()) {
                    n = CarrierStalls.offCarrier(() -> inline(false, address, len, position, 0, held));
                }
            } else {
                n = waitingWrite(virtual, address, len, position, held);
            }
            if (n >= 0) {
                Counters.BYTES_WRITTEN.add(n);
                if (src != null) {
                    src.position(src.position() + (int) n);
                }
                return (int) n;
            }
            if (n != -Errno.EAGAIN) {
                throw JdkErrors.io((int) -n);
            }
        }
        long m = ring(Request.WRITE, src, address, len, position, held);
        Counters.BYTES_WRITTEN.add(Math.max(0, m));
        return (int) m;
    }

    /**
     * A write that may wait in the kernel, {@code -errno} on failure: on the caller's thread, but a virtual thread's
     * write of a regular file goes to a platform thread while the kernel makes writers wait ({@link CarrierStalls});
     * {@code -EAGAIN} (the caller sends it to the ring) for a file that is not regular.
     */
    private long waitingWrite(boolean virtual, long address, int len, long position, Call held) throws IOException {
        if (!regular()) {
            // A FIFO, pipe or device that refuses RWF_NOWAIT (a FIFO does, here): its write may wait for ever, so it
            // goes to the ring, where closing the channel or interrupting the thread ends it. Made here, a platform
            // thread's write into a full FIFO nobody read held its close for ever.
            return -Errno.EAGAIN;
        }
        if (!virtual) {
            return inline(false, address, len, position, 0, held);
        }
        int route = CarrierStalls.route();
        if (route == CarrierStalls.OFF) {
            return CarrierStalls.offCarrier(() -> inline(false, address, len, position, 0, held));
        }
        long t0 = System.nanoTime();
        try {
            return inline(false, address, len, position, 0, held);
        } finally {
            CarrierStalls.ended(t0, len, route == CarrierStalls.PROBE);
        }
    }

    // ============================================================================================ the two paths

    /**
     * A call on the caller's thread: {@code pread}/{@code pwrite} of one buffer at a position without flags,
     * {@code read}/{@code write} at the file position without flags, {@code preadv2}/{@code pwritev2} with flags
     * (100-byte appends from a direct buffer on a platform thread took 410-434 ns each through {@code pwritev2},
     * whose {@code iovec} the kernel copies in, and 377-389 ns through {@code write}; the JDK's channel 411-435 ns);
     * {@code -errno} on failure
     * ({@code EINTR} retried). Not interruptible: it never waits for long.
     */
    private long inline(boolean read, long address, int len, long position, int rwf, Call held) throws IOException {
        if (Thread.currentThread().isInterrupted() && !uninterruptible && !readAllBytesCaller()) {
            interruptedBeforeCall();
        }
        Call c = held != null ? held : Call.get();
        try {
            enterOrThrow();
            long n;
            try {
                if (rwf == 0 && position >= 0) {
                    do {
                        n = read ? LeanCalls.pread(c.capture, fd, address, len, position)
                                : LeanCalls.pwrite(c.capture, fd, address, len, position);
                    } while (n == -Errno.EINTR);
                } else if (rwf == 0) {
                    do {
                        n = read ? LeanCalls.read(c.capture, fd, address, len)
                                : LeanCalls.write(c.capture, fd, address, len);
                    } while (n == -Errno.EINTR);
                } else {
                    MemorySegment iov = c.iov1(address, len);
                    do {
                        n = read ? LeanCalls.preadv2(c.capture, fd, iov, 1, position, rwf)
                                : LeanCalls.pwritev2(c.capture, fd, iov, 1, position, rwf);
                    } while (n == -Errno.EINTR);
                }
            } finally {
                leave();
            }
            afterCall();
            Counters.CALLER_CALLS.increment();
            return n;
        } finally {
            if (held == null) {
                c.release();
            }
        }
    }

    /**
     * After a system call made on the caller's thread: an interrupt that came while it ran closes the channel and is
     * said, as the JDK's channel says it when the call it began ends (before, the call returned as if nothing had
     * happened, the channel open and the flag set: 8 of 60 interrupted heap reads threw, against the JDK's 53).
     */
    private void afterCall() throws IOException {
        if (Thread.currentThread().isInterrupted() && !uninterruptible && !readAllBytesCaller()) {
            interruptedBeforeCall();
        }
    }

    /** The thread was interrupted before an operation: as the JDK's channel, it closes and says so. */
    private void interruptedBeforeCall() throws IOException {
        begin();
        end(false); // begin() closed the channel: this throws ClosedByInterruptException
        throw new ClosedChannelException();
    }

    /**
     * A read or write through the ring; the caller parks until it ends (a virtual thread's carrier is free
     * meanwhile). Interruptible as the JDK's blocking channels are. {@code buf}: a direct buffer whose memory
     * {@code address} is (it advances), or null for the caller's staging memory (which it keeps while it waits).
     */
    private long ring(int kind, ByteBuffer buf, long address, int len, long position, Call held) throws IOException {
        for (int attempt = 1;; attempt++) {
            long n = ringOnce(kind, buf, address, len, position, held);
            if (n != AGAIN && n != AGAIN_UNSENT) {
                return n;
            }
            if (n == AGAIN && kind == Request.WRITE && position < 0 && (append || !direct)) {
                // bytes at the file's position (an append): some may be written already, and another try could
                // write them twice
                throw executorGoneFailure("write", path, false);
            }
            if (attempt == EXECUTOR_RETRIES) {
                throw executorGoneFailure(kind == Request.READ ? "read" : "write", path, true);
            }
        }
    }

    /**
     * What {@link #ringOnce} returns when the executor of the ring's handle was closed (or its loop failed) under
     * the open channel before the call ended: nothing was delivered, and it can be made again on the executor the
     * channel gets now ({@link #ringUse}).
     */
    private static final long AGAIN = Long.MIN_VALUE;
    /** As {@link #AGAIN}, for a call whose executor went before it was sent: nothing of it was made. */
    private static final long AGAIN_UNSENT = Long.MIN_VALUE + 1;
    /** Calls made again on new executors before {@link #executorGoneFailure} ends them (executors closed in a row). */
    static final int EXECUTOR_RETRIES = 8;

    /** Whether the executor behind {@code h} was closed, or its loop failed: it serves the handle no more. */
    static boolean executorGone(FileHandle h) {
        IoBackend b = h.backend();
        return !b.isOpen() || b.broken();
    }

    /**
     * The failure of a {@code what} of {@code path} that ended because the executors running it were closed under the
     * open channel: {@code retried} {@link #EXECUTOR_RETRIES} times, or not made again (some bytes may be written).
     */
    static IOException executorGoneFailure(String what, String path, boolean retried) {
        return new IOException("uring4j: the executor of the ring that made this " + what + " of " + path
                + " was closed (or its event loop failed) while it was in flight"
                + (retried ? ", " + EXECUTOR_RETRIES + " times" : ": some of its bytes may be written")
                + "; the channel stays open");
    }

    /** One attempt of {@link #ring}: {@link #AGAIN} when its executor went under it. */
    private long ringOnce(int kind, ByteBuffer buf, long address, int len, long position, Call held)
            throws IOException {
        // io_uring at the file position (-1) of an O_DIRECT file: the kernel stores the position back when the
        // request is issued, before the transfer completes, so the position never moves. The caller holds the
        // position lock: the position is read here, the transfer made at it, and the position moved past it after.
        FileHandle h;
        try {
            h = handle();
        } catch (NoRing none) {
            // no descriptor to spare for the ring: the call on this thread, as the JDK's channel makes it
            boolean read = kind == Request.READ;
            long n = inline(read, address, len, position, 0, held);
            if (n < 0) {
                throw JdkErrors.io((int) -n);
            }
            if (buf != null && n > 0) {
                buf.position(buf.position() + (int) n);
            }
            return read && n == 0 ? -1 : n;
        }
        boolean atFilePosition = position < 0 && direct && !(kind == Request.WRITE && append);
        if (atFilePosition) {
            position = position0();
        }
        IoBackend backend = h.backend();
        checkNotOnItsLoop(backend, kind == Request.READ ? "read" : "write");
        Waiter w = new Waiter();
        Request r = backend.acquire();
        r.kind = kind;
        r.handle = h;
        r.completion = Waiter.WAKE;
        r.target = w;
        r.client = this;
        r.keep = buf != null ? buf : held;
        r.address = address;
        r.length = len;
        r.position = position;
        boolean completed = false;
        boolean interruptible = !uninterruptibleForWait();
        if (interruptible) {
            begin();
        }
        try {
            if (!h.isOpen() || executorGone(h)) {
                r.discard();
                if (isOpen()) {
                    completed = true;
                    return AGAIN_UNSENT; // its executor closed a moment ago
                }
                throw new AsynchronousCloseException();
            }
            Counters.RING_OPERATIONS.increment();
            backend.submit(r);
            w.awaitUninterruptibly();
            if (w.error != null) {
                if (executorGone(h) && isOpen() && !Thread.currentThread().isInterrupted()) {
                    completed = true;
                    return AGAIN; // its executor closed (or its loop failed) under the open channel
                }
                if (kind == Request.READ && !interruptible && !isOpen()) {
                    // As the JDK's uninterruptible channel (its streams', readAllBytes'): a read that waited is ended
                    // by another thread's close with the end of the file, not AsynchronousCloseException
                    return -1;
                }
                // made on the event loop: its stack is the loop's; the caller's says who made the call, as the JDK's
                // exception's does (the engine's, with the loop's stack, stays its cause where it had one)
                w.error.fillInStackTrace();
                throw w.error;
            }
            completed = true;
            long n = w.value;
            if (buf != null && n > 0) {
                buf.position(buf.position() + (int) n);
            }
            if (atFilePosition && n > 0) {
                seek(position + n);
            }
            return kind == Request.READ && n == 0 ? -1 : n;
        } catch (IOException | RuntimeException | Error e) {
            // closed meanwhile: end(false) below throws AsynchronousCloseException, or ClosedByInterruptException
            // when this thread's interrupt closed it
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        } finally {
            if (interruptible) {
                end(completed);
            }
        }
    }

    /**
     * Refuses a wait for the ring on one of the loops that serve it: code in an {@code AsyncFile} handler or a
     * future's continuation, on a loop of the executor this channel uses, would wait for itself for ever.
     */
    private void checkNotOnItsLoop(IoBackend backend, String what) {
        if (backend.mustNotBlock(Thread.currentThread())) {
            throw new IllegalStateException("a blocking " + what + " of " + path + " through the ring on the event"
                    + " loop thread " + Thread.currentThread().getName() + " would stop the loop that completes it:"
                    + " make it on another thread");
        }
    }

    // ============================================================================================ position, size

    long position0() throws IOException {
        if (append) {
            return size0();
        }
        Call c = Call.get();
        try {
            enterOrThrow();
            long p;
            try {
                p = LeanCalls.lseek(c.capture, fd, 0, Uapi.SEEK_CUR);
            } finally {
                leave();
            }
            afterCall();
            if (p < 0) {
                throw JdkErrors.io((int) -p);
            }
            return p;
        } finally {
            c.release();
        }
    }

    @Override
    public long position() throws IOException {
        ensureOpen();
        return positionLock.callLong(() -> {
            blocking();
            return position0();
        });
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException();
        }
        positionLock.callLong(() -> {
            blocking();
            seek(newPosition);
            return 0;
        });
        return this;
    }

    private void seek(long p) throws IOException {
        endHint = -1;
        Call c = Call.get();
        try {
            enterOrThrow();
            long r;
            try {
                r = LeanCalls.lseek(c.capture, fd, p, Uapi.SEEK_SET);
            } finally {
                leave();
            }
            afterCall();
            if (r < 0) {
                throw JdkErrors.io((int) -r);
            }
        } finally {
            c.release();
        }
    }

    long size0() throws IOException {
        Call c = Call.get();
        try {
            return statSelf(c).get(JAVA_LONG, Statx.SIZE);
        } finally {
            c.release();
        }
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        blocking();
        return size0();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        ensureOpen();
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (!writable) {
            throw new NonWritableChannelException();
        }
        positionLock.callLong(() -> {
            blocking();
            endHint = -1;
            if (append && pipeLike()) {
                // the JDK's truncate asks the file position, even in append mode: a FIFO has none
                throw JdkErrors.io(Errno.ESPIPE);
            }
            long p = position0();
            long now = size0();
            if (size < now) {
                if (mapped != null) {
                    mapped.truncating(this);
                }
                Call c = Call.get();
                try {
                    enterOrThrow();
                    int r;
                    try {
                        do {
                            r = LeanCalls.ftruncate(c.capture, fd, size);
                        } while (r == -Errno.EINTR);
                    } finally {
                        leave();
                    }
                    afterCall();
                    if (r < 0) {
                        throw JdkErrors.io(-r);
                    }
                } finally {
                    c.release();
                }
            }
            if (p > size) {
                p = size;
            }
            if (!append) {
                seek(p);
            }
            return 0;
        });
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        ensureOpen();
        blocking();
        if (Thread.currentThread().isVirtual()) {
            // fsync waits for the device: on a virtual thread it goes to the ring, the carrier stays free
            try {
                ringSync(metaData);
                return;
            } catch (NoRing none) {
                // no descriptor to spare for the ring: on this thread, as the JDK's channel makes it
            }
        }
        Call c = Call.get();
        try {
            enterOrThrow();
            int r;
            try {
                r = LeanCalls.fsync(c.capture, fd, metaData); // again after EINTR
            } finally {
                leave();
            }
            afterCall();
            Counters.CALLER_CALLS.increment();
            if (r < 0) {
                throw JdkErrors.io(-r);
            }
        } finally {
            c.release();
        }
    }

    private void ringSync(boolean metaData) throws IOException {
        for (int attempt = 1; !ringSyncOnce(metaData); attempt++) {
            if (attempt == EXECUTOR_RETRIES) {
                throw executorGoneFailure("force", path, true);
            }
        }
    }

    /** One attempt of {@link #ringSync}: false when its executor went under it (the sync is made again). */
    private boolean ringSyncOnce(boolean metaData) throws IOException {
        FileHandle h = handle();
        IoBackend backend = h.backend();
        checkNotOnItsLoop(backend, "force");
        Waiter w = new Waiter();
        Request r = backend.acquire();
        r.kind = Request.FSYNC;
        r.handle = h;
        r.metaData = metaData;
        r.completion = Waiter.WAKE;
        r.target = w;
        r.client = this;
        boolean completed = false;
        // the channel of an AsynchronousFileChannel is not closed by its caller's interrupt, as the JDK's is not
        boolean interruptible = !uninterruptibleForWait();
        if (interruptible) {
            begin();
        }
        try {
            Counters.RING_OPERATIONS.increment();
            backend.submit(r);
            w.awaitUninterruptibly();
            if (w.error != null && executorGone(h) && isOpen() && !Thread.currentThread().isInterrupted()) {
                completed = true;
                return false; // its executor closed (or its loop failed) under the open channel
            }
            if (w.error instanceof IOException e) {
                e.fillInStackTrace(); // made on the event loop: the caller's stack instead
                throw e;
            }
            if (w.error != null) {
                throw new IOException(w.error);
            }
            completed = true;
            return true;
        } finally {
            if (interruptible) {
                end(completed);
            }
        }
    }

    // ============================================================================================ transfers

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return ChannelTransfers.transferTo(this, position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return ChannelTransfers.transferFrom(this, src, position, count);
    }

    /** {@link #begin()} for a blocking operation made outside this class (a transfer). */
    void beginBlocking() {
        begin();
    }

    /** {@link #end(boolean)} for a blocking operation made outside this class (a transfer). */
    void endBlocking(boolean completed) throws AsynchronousCloseException {
        end(completed);
    }

    // ============================================================================================ map, locks

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        // the JDK's order: the size a buffer can have, the mode, the channel, then the range
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Size exceeds Integer.MAX_VALUE");
        }
        Objects.requireNonNull(mode, "Mode is null");
        ensureOpen();
        checkMap(mode, position, size);
        blocking(); // here, not in the JDK's channel behind: an interrupt closes this channel
        try {
            return jdk().map(mode, position, size);
        } catch (ClosedByInterruptException e) {
            throw closedByInterrupt(e);
        }
    }

    /**
     * An interrupt during a call of the JDK's channel behind this one closed that channel only: this one closes too,
     * as the JDK's does (it stayed open with no map or lock working any more, and its locks silently gone).
     */
    private ClosedByInterruptException closedByInterrupt(ClosedByInterruptException e) {
        try {
            close();
        } catch (IOException closing) {
            e.addSuppressed(closing);
        }
        return e;
    }

    @Override
    public MemorySegment map(MapMode mode, long offset, long size, Arena arena) throws IOException {
        Objects.requireNonNull(mode, "Mode is null");
        Objects.requireNonNull(arena, "Arena is null");
        // the JDK's order: the arena (closed, or confined to another thread), the range, then the channel; an empty
        // segment of the arena makes the arena's own check (IllegalStateException, WrongThreadException), allocating
        // nothing and registering nothing with it
        MemorySegment.NULL.reinterpret(0, arena, null);
        if (offset < 0) {
            throw new IllegalArgumentException("Requested bytes offset must be >= 0.");
        }
        if (size < 0) {
            throw new IllegalArgumentException("Requested bytes size must be >= 0.");
        }
        ensureOpen();
        checkMap(mode, offset, size);
        blocking();
        try {
            return jdk().map(mode, offset, size, arena);
        } catch (ClosedByInterruptException e) {
            throw closedByInterrupt(e);
        }
    }

    /** What the JDK's channel checks of a map before it begins (and an interrupt closes it). */
    private void checkMap(MapMode mode, long position, long size) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (position + size < 0) {
            throw new IllegalArgumentException("Position + size overflow");
        }
        if (mode == MapMode.READ_ONLY || mode == MapMode.READ_WRITE || mode == MapMode.PRIVATE) {
            if (mode != MapMode.READ_ONLY && !writable) {
                throw new NonWritableChannelException();
            }
            if (!readable) {
                throw new NonReadableChannelException();
            }
        } // the JDK's channel behind checks the others (its extended modes) itself
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        checkLock(shared);
        FileChannel j = jdk();
        if (!uninterruptible && Thread.currentThread().isInterrupted()) {
            // The JDK's channel checks the range and this JVM's locks before it begins, where the interrupt closes
            // it: a bad range or an overlap is said as such. The JDK's tryLock, which an interrupt does not end,
            // makes those checks here (a lock it takes is given back at once).
            FileLock probe = j.tryLock(position, size, shared);
            if (probe != null) {
                probe.release();
            }
        }
        boolean completed = false;
        try {
            begin(); // a lock may wait for another process for as long as it holds the file
            try {
                // A virtual thread tries first: the JDK's lock makes its blocking fcntl as a compensated block, which
                // may start another carrier thread, and with more carriers than cores, calls preempted on them look
                // like writes the kernel made wait (CarrierStalls) and send every write of every virtual thread off
                // its carrier; 200 virtual threads copying and locking made 0.38-0.52 times the JDK's rate that way.
                Thread t = Thread.currentThread();
                FileLock l = t.isVirtual() && !t.isInterrupted() ? j.tryLock(position, size, shared) : null;
                if (l == null) {
                    l = j.lock(position, size, shared); // another process holds a part: wait for it
                }
                completed = true;
                return new Lock(this, l);
            } finally {
                end(completed);
            }
        } catch (ClosedByInterruptException | java.nio.channels.FileLockInterruptionException e) {
            // The interrupt closes this channel, as it closes the JDK's: the JDK's channel behind the lock began its
            // own blocking call, so the interrupt closed that one only, and this channel would stay open with no
            // lock, map or transfer through the JDK's working any more.
            try {
                close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw new java.nio.channels.FileLockInterruptionException(); // as the JDK's channel words it
        }
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException(); // not interruptible: it never waits, as the JDK's
        }
        checkLock(shared);
        FileLock l = jdk().tryLock(position, size, shared);
        return l == null ? null : new Lock(this, l);
    }

    private void checkLock(boolean shared) {
        if (shared && !readable) {
            throw new NonReadableChannelException();
        }
        if (!shared && !writable) {
            throw new NonWritableChannelException();
        }
    }

    /** A lock of the JDK's channel behind this one, reported as this channel's. */
    private static final class Lock extends FileLock {
        private final FileLock inner;

        Lock(UringFileChannel channel, FileLock inner) {
            super(channel, inner.position(), inner.size(), inner.isShared());
            this.inner = inner;
        }

        @Override
        public boolean isValid() {
            return inner.isValid() && channel().isOpen();
        }

        @Override
        public void release() throws IOException {
            if (!channel().isOpen()) {
                throw new ClosedChannelException();
            }
            inner.release();
        }
    }

    // ============================================================================================ O_DIRECT rules

    private void checkPositionAligned(long position) throws IOException {
        if (position % alignment != 0) {
            throw new IOException("Channel position (" + position + ") is not a multiple of the block size ("
                    + alignment + ")");
        }
    }

    /**
     * The JDK's checks of one buffer on an {@code O_DIRECT} channel, in its order and words: where a direct buffer's
     * position lies (its address only: the memory is not touched, so a buffer of a closed arena is refused for its
     * alignment first, as the JDK's does), then the bytes it has to move.
     */
    private void checkBuffer(ByteBuffer b, int remaining) throws IOException {
        int offset = b.isDirect() ? b.alignmentOffset(b.position(), alignment) : 0;
        if (offset != 0) {
            throw new IOException("Current position of the bytebuffer (" + b.position()
                    + ") is not a multiple of the block size (" + alignment + "): alignment offset = " + offset);
        }
        if (remaining % alignment != 0) {
            throw new IOException("Number of remaining bytes (" + remaining + ") is not a multiple of the block size ("
                    + alignment + ")");
        }
    }

    /**
     * From now on an interrupt neither closes this channel nor fails its calls: what the JDK does for the channels
     * behind {@code Files.readAllBytes}, {@code readString} and the streams of {@code newInputStream} and
     * {@code newOutputStream} (the provider calls it there).
     */
    @Override
    public void setUninterruptible() {
        uninterruptible = true;
    }

    // ============================================================================================ for the asynchronous channel


    boolean isReadable() {
        return readable;
    }

    boolean isWritable() {
        return writable;
    }

    /** The JDK's channel on the same file (locks, maps). */
    FileChannel jdkChannel() throws IOException {
        return jdk();
    }

    String path() {
        return path;
    }

    @Override
    public String toString() {
        return "UringFileChannel[" + path + (isOpen() ? "" : ", closed") + "]";
    }

    // ============================================================================================ waiting

    /** A caller parked on a ring operation. */
    static final class Waiter {
        static final Completion WAKE = (target, attachment, value, opened, error) -> {
            Waiter w = (Waiter) target;
            w.value = value;
            w.error = error == null ? null : JdkErrors.fromEngine(error);
            w.done = true;
            LockSupport.unpark(w.thread);
        };

        final Thread thread = Thread.currentThread();
        long value;
        Throwable error;
        volatile boolean done;

        /**
         * Parks until the operation ended; an interrupt meanwhile stays pending (the channel's interrupt handling
         * closes the channel, which ends the operation).
         */
        void awaitUninterruptibly() {
            boolean interrupted = false;
            while (!done) {
                LockSupport.park(this);
                if (!done && Thread.currentThread().isInterrupted()) {
                    Thread.interrupted(); // park would not wait while the flag is set
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
