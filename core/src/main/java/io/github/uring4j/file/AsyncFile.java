package io.github.uring4j.file;

import io.github.uring4j.engine.CallerReads;
import io.github.uring4j.engine.Completion;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Log;
import io.github.uring4j.engine.Memory;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Waits;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A file for asynchronous positional I/O on an {@link IoExecutor}: io_uring when the executor runs on it, blocking
 * calls on a thread pool otherwise, behind the same methods.
 *
 * <p>Every operation comes in two forms: one returning a {@link CompletableFuture}, and one taking an attachment
 * and a {@link CompletionHandler} that allocates nothing in steady state (the operation record is pooled, the
 * result box cached for sizes that are multiples of 512 up to 1 MiB). Completions run on the executor's loop
 * thread (or a worker of the threads backend): do not block there. Waiting for a future with {@code join()} or
 * {@code get()} on a loop thread fails at once with {@link IllegalStateException}, since the loop could never
 * complete it; on any other platform thread it spins for up to 50 µs before it parks
 * ({@link IoExecutor.Builder#waitSpinMicros}), which saves the wake-ups of an operation awaited one at a time.
 *
 * <h2>Buffers</h2>
 * The kernel never writes into memory that may be freed before the operation ends, whatever the caller does with
 * its arenas and pools:
 * <ul>
 * <li>direct {@link ByteBuffer}s of {@link ByteBuffer#allocateDirect}, segments of {@link java.lang.foreign.Arena#ofAuto()}
 * and {@link java.lang.foreign.Arena#global()}, and {@link BufferPool} buffers go to the kernel as they are; the
 * library holds them until the operation's completion has arrived (a pool's memory outlives its {@code close()}
 * until then);</li>
 * <li>memory the caller can free at any moment, a segment of a shared arena (or a {@code ByteBuffer} viewing one),
 * is copied through a pooled direct buffer: the arena is checked when the operation starts, and a read whose arena
 * was closed before the data arrived fails with {@link IllegalStateException}. The copy is the cost: cached 4 KiB
 * reads ran at 0.85 times the rate of reads into direct buffers ({@code AsyncFileBenchmark}, one loop); use the
 * kinds above where it matters;</li>
 * <li>a confined arena's memory may be written from (it is copied at the call) but not read into: the completion
 * runs on another thread, which may not touch it ({@link IllegalArgumentException}, as the JDK's asynchronous
 * channels refuse it);</li>
 * <li>heap buffers and heap segments are copied through a pooled direct buffer.</li>
 * </ul>
 * Memory already freed (a closed arena or pool) is refused with {@link IllegalStateException}. A
 * {@code ByteBuffer}'s position advances by the bytes transferred, as with
 * {@link java.nio.channels.AsynchronousFileChannel}.
 *
 * <h2>Results</h2>
 * {@code read} returns the bytes read, or {@code -1} at end of file; {@code readFully} and {@code writeFully}
 * finish short transfers and fail with {@link java.io.EOFException} when the file ends first. One of these (or a
 * {@code writeAndSync}) that fails after its first pieces moved says in its message how many bytes moved, and its
 * {@code ByteBuffer}'s position moves past them (a read's bytes are in it), as a loop of single calls would leave it; a
 * {@link FileIOException}'s offset is where the transfer began. One cancelled, timed out or closed under moves no
 * position. Reading a file opened
 * without {@code READ} throws {@link NonReadableChannelException}; writing, truncating or allocating a file opened
 * without {@code WRITE} throws {@link NonWritableChannelException}. Failures are
 * {@link java.nio.file.NoSuchFileException}, {@link java.nio.file.AccessDeniedException},
 * {@link java.nio.file.FileAlreadyExistsException}, {@link java.io.EOFException} where the JDK uses them,
 * otherwise {@link FileIOException} with the errno name, the operation, the path and the offset.
 *
 * <p>Writes in flight at the same time to overlapping ranges land in any order, as with the JDK's
 * {@link java.nio.channels.AsynchronousFileChannel}: a {@code write} not waited for, then a {@code writeAndSync} of
 * the same range, may leave the first one's bytes in the file once both have ended (the device completes
 * {@code O_DIRECT} writes in any order, the threads backend's workers run side by side). Wait for a write before
 * overwriting its range. A sync ({@code force}, {@code writeAndSync}) covers every write of its file issued before it
 * through the same event loop, whether or not it was waited for.
 *
 * <h2>Cancellation and timeouts</h2>
 * {@code future.cancel(true)} completes the future with a {@link java.util.concurrent.CancellationException} and sends
 * {@code IORING_OP_ASYNC_CANCEL}; the buffer stays referenced (and a pooled copy buffer unused) until the kernel's
 * completion arrives, but a direct buffer's contents are undefined after a cancelled read. Once a cancel returned,
 * nothing moves a buffer's position or puts anything in a heap buffer (a result being delivered as the cancel came is
 * delivered before it returns). A cancelled write may still have written, on the threads backend even after a later
 * write to the same place. Reads and writes made
 * through a {@linkplain #withTimeout timed view} attach an {@code IORING_OP_LINK_TIMEOUT} and fail with {@link
 * java.nio.channels.InterruptedByTimeoutException} (a duration too long to count in nanoseconds waits for about 292
 * years). The time runs from when the loop takes the operation in: an operation that waits for its turn (behind its
 * file's {@linkplain IoExecutor.Builder#inFlightLimit in-flight limit}) times out there as well, and the chunks of a
 * {@code readFully}/{@code writeFully} share one timeout. The threads backend cannot interrupt a blocking call: it
 * reports the timeout on time and lets the call finish on its worker, keeping the buffer until then (a timed-out read
 * may still have filled a direct buffer or a segment, but no buffer's position moves and a heap buffer gets nothing
 * after the timeout was reported; a timed-out write may still have written); a call whose time ran out before a
 * worker took it is not made, and one that ends after it is reported as timed out, never as a late success (the
 * timer's thread runs beside the workers and may lag behind them). So does io_uring for an operation the
 * kernel can no longer stop when its time runs out (a large buffered write a kernel worker is making): it is reported
 * as timed out then, and ends in the kernel. {@link Duration#ZERO} (counted as one
 * nanosecond) lets only an operation that ends at once succeed: on io_uring one the kernel completes without waiting (a
 * read from the page cache), on the threads backend none.
 *
 * <h2>Closing</h2>
 * {@link #close()} cancels what is in flight on the file and closes it; it never waits for a free slot or for
 * operations that cannot complete. An operation started on a closed file fails with {@link ClosedChannelException}: its
 * future is failed at once, its {@link CompletionHandler} told at once on the calling thread (what the handler throws
 * is logged, as on a loop, not thrown to the caller); a handler that issues an operation again from there, 16 levels
 * deep, is told on another thread instead, so such retries never overflow the stack. A file dropped without {@code
 * close()} is closed once it becomes unreachable, as the JDK's channels are; operations in flight keep it reachable.
 */
public final class AsyncFile implements AutoCloseable {
    private static final int SYNC_RANGE_FLAGS =
            Uapi.SYNC_FILE_RANGE_WAIT_BEFORE | Uapi.SYNC_FILE_RANGE_WRITE | Uapi.SYNC_FILE_RANGE_WAIT_AFTER;

    final IoExecutor executor;
    final FileHandle handle;
    private final IoBackend backend;
    private final Cleaner.Cleanable cleanable;
    private volatile CompletableFuture<Void> closeFuture;
    /** The thread inside {@link #closeAsync()}'s submission of the close, while it is there; else null. */
    private volatile Thread closingThread;

    AsyncFile(IoExecutor executor, FileHandle handle) {
        this.executor = executor;
        this.handle = handle;
        this.backend = executor.backend;
        this.cleanable = io.github.uring4j.engine.Cleaners.cleaner().register(this, new Dropped(handle));
    }

    /** Closes the handle of a file that became unreachable without close(). Holds no reference to the file. */
    private record Dropped(FileHandle handle) implements Runnable {
        @Override
        public void run() {
            handle.orphaned();
        }
    }

    // ============================================================================================ open

    /** Opens {@code path} on the {@linkplain IoExecutor#defaultExecutor() default executor}. */
    public static CompletableFuture<AsyncFile> open(Path path, OpenOption... options) {
        IoExecutor e = IoExecutor.defaultExecutor();
        try {
            return open(e, path, options);
        } catch (IllegalStateException closed) {
            if (e.isOpen()) {
                throw closed;
            }
            // closed by another thread since it was handed out: the default made next, as the javadoc promises
            return open(IoExecutor.defaultExecutor(), path, options);
        }
    }

    /**
     * Opens {@code path} with {@code IORING_OP_OPENAT} (or {@code open(2)} on the threads backend; an open that creates
     * or truncates is made by an idle loop itself, see {@link IoExecutor.Builder#inlineWriteMax}). Takes the
     * {@link StandardOpenOption}s (without {@code APPEND}, which positional writes cannot honour;
     * {@code READ} when neither {@code READ} nor {@code WRITE} is given), {@link LinkOption#NOFOLLOW_LINKS}, and
     * {@link FileOption}s ({@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, the JDK's name for {@code O_DIRECT}, is
     * taken as {@link FileOption#DIRECT}). Files are created with mode 0666 minus the umask.
     *
     * <p>A FIFO opened for writing only waits, as {@code open(2)} does, until a reader has it open, and a cancel or
     * the executor's close ends the wait (on io_uring, whose first try of an open does not block and fails there with
     * {@code ENXIO}, the open is made again by a kernel worker, which waits; the threads backend tries again without
     * blocking every 10 ms). One opened for reading only opens at once, without waiting for a writer (io_uring's
     * first try does not block, and neither does the threads backend's open), and its reads wait for a writer's bytes
     * instead; they end (-1) once a writer has come and gone.
     *
     * @throws UnsupportedOperationException for {@code APPEND} or an option this class does not know
     * @throws IllegalStateException         when the executor is closed
     */
    public static CompletableFuture<AsyncFile> open(IoExecutor executor, Path path, OpenOption... options) {
        Request r = openRequest(executor, path, optionSet(options));
        OpFuture<AsyncFile> f = new OpFuture<>(executor, r, r.generation());
        r.target = f;
        FileIoEvents.begin(r, executor.backend.name());
        executor.backend.submit(r);
        return f;
    }

    /** {@link #open(IoExecutor, Path, OpenOption...)} reporting to {@code handler}. */
    public static <A> void open(IoExecutor executor, Path path, Set<? extends OpenOption> options, A attachment,
            CompletionHandler<AsyncFile, ? super A> handler) {
        Objects.requireNonNull(handler, "handler");
        Request r = openRequest(executor, path, options);
        r.target = handler;
        r.attachment = attachment;
        FileIoEvents.begin(r, executor.backend.name());
        executor.backend.submit(r);
    }

    /**
     * Reads the file at {@code path} from its start into {@code dst}: opens it read-only, reads once and closes it,
     * without an {@code AsyncFile} in between. On io_uring the three are one linked submission (open into a
     * registered-file slot, read from the slot, close the slot; a file system's open, read and close as one trip
     * through the kernel), or an open and then a read linked to the close when every slot is taken; on the threads
     * backend, three blocking calls on one worker. Into a buffer of a {@link BufferPool} registered with
     * {@code executor}, the read is a {@code READ_FIXED}: the kernel copies with {@code memcpy} instead of
     * {@code copy_to_user} (a checksum of 20,000 cached files of 4-64 KiB ran at 1.03-1.06 times the JDK's
     * {@code FileChannel} on virtual threads so, 0.97-1.00 times into plain direct buffers, in one session).
     *
     * <p>The count is the file's size when it fits (0 for an empty file), and {@code dst.remaining()} when it does
     * not (read the rest through {@link #open}). {@code dst}'s position advances by the count. The kernel reads a
     * regular file up to the end of the file or of the buffer in one call, up to 2 GiB - 4 KiB; a larger buffer is
     * filled by reads on from there. The files of procfs, sysfs and their kind, which say they are empty and give
     * about a page a read, are read to their end too: on io_uring, after a first read that filled less than the
     * buffer, the file system is asked (once per directory), and such a file is opened again and read from its start
     * until it ends. A FIFO is read once, as a single {@code read} would.
     *
     * @return the bytes read; an open that fails fails as {@link #open}'s does ({@code NoSuchFileException},
     *         {@code AccessDeniedException}, ...), a read with {@link FileIOException} naming {@code READ_FILE}, the
     *         path and the errno (for example {@code EISDIR})
     * @throws IllegalArgumentException for a read-only buffer
     * @throws IllegalStateException    when the executor is closed
     */
    public static CompletableFuture<Integer> readFile(IoExecutor executor, Path path, ByteBuffer dst) {
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        Request r = readFileRequest(executor, path);
        try {
            Memory.buffer(r, dst, true, executor.bounces);
        } catch (RuntimeException e) {
            r.discard();
            throw e;
        }
        r.length = dst.remaining();
        return submitReadFile(executor, r);
    }

    /**
     * {@link #readFile(IoExecutor, Path, ByteBuffer)} into a segment (at most 2 GiB - 1 bytes); the memory rules of
     * {@link #read(MemorySegment, long)} apply.
     */
    public static CompletableFuture<Integer> readFile(IoExecutor executor, Path path, MemorySegment dst) {
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only segment");
        }
        if (dst.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one operation moves at most 2 GiB - 1 bytes, not " + dst.byteSize());
        }
        Request r = readFileRequest(executor, path);
        try {
            Memory.segment(r, dst, (int) dst.byteSize(), true, executor.bounces);
        } catch (RuntimeException e) {
            r.discard();
            throw e;
        }
        r.length = (int) dst.byteSize();
        return submitReadFile(executor, r);
    }

    private static final Set<OpenOption> READ_ONLY = Set.of(StandardOpenOption.READ);

    /** The options as a set: one given twice counts once, as {@code FileChannel.open} takes it; none may be null. */
    private static Set<OpenOption> optionSet(OpenOption... options) {
        Set<OpenOption> set = new java.util.HashSet<>(options.length * 2);
        for (OpenOption o : options) {
            set.add(java.util.Objects.requireNonNull(o, "an open option is null"));
        }
        return set;
    }

    private static Request readFileRequest(IoExecutor executor, Path path) {
        Objects.requireNonNull(executor, "executor");
        OpenSpec spec = OpenOptions.parse(path, READ_ONLY);
        executor.checkOpen();
        Request r = executor.backend.acquire();
        r.kind = Request.READ_FILE;
        r.open = spec;
        r.completion = Results.INT;
        r.client = executor; // no file holds the executor meanwhile: dropped, it would be closed under the read
        return r;
    }

    private static CompletableFuture<Integer> submitReadFile(IoExecutor executor, Request r) {
        r.position = 0;
        OpFuture<Integer> f = new OpFuture<>(executor, r, r.generation());
        r.target = f;
        FileIoEvents.begin(r, executor.backend.name());
        executor.backend.submit(r);
        return f;
    }

    private static Request openRequest(IoExecutor executor, Path path, Set<? extends OpenOption> options) {
        Objects.requireNonNull(executor, "executor");
        OpenSpec spec = OpenOptions.parse(path, options);
        executor.checkOpen();
        Request r = executor.backend.acquire();
        r.kind = Request.OPEN;
        r.open = spec;
        r.completion = Results.open(executor);
        return r;
    }

    // ============================================================================================ plumbing

    /** The error for an operation on a closed file: why the executor closed it, when it did so on its own. */
    private ClosedChannelException closed() {
        ClosedChannelException e = new ClosedChannelException();
        String why = handle.closedBecause();
        if (why != null) {
            e.initCause(new IOException(why));
        }
        return e;
    }

    private <T> CompletableFuture<T> future(Request r) {
        if (r == null) {
            return CompletableFuture.failedFuture(closed());
        }
        OpFuture<T> f = begun(r);
        backend.submit(r);
        return f;
    }

    /** The future of {@code r}, its target, with the operation's event begun. */
    private <T> OpFuture<T> begun(Request r) {
        OpFuture<T> f = new OpFuture<>(executor, r, r.generation());
        r.target = f;
        FileIoEvents.begin(r, backend.name());
        return f;
    }

    /**
     * A read's future: made on this thread when the page cache has it all ({@link CallerReads},
     * {@link IoExecutor.Builder#callerReads}), else by a loop.
     */
    private CompletableFuture<Integer> read(Request r) {
        long n = r != null && executor.callerReads ? CallerReads.tryRead(handle, backend, r) : -1;
        if (n < 0) {
            return future(r);
        }
        OpFuture<Integer> f = begun(r);
        r.succeed(n == 0 ? -1 : n); // as the loop ends it (-1 at the end of the file)
        return f;
    }

    private <A> void handler(Request r, A attachment, CompletionHandler<?, ? super A> handler) {
        if (handler == null) {
            if (r != null) {
                r.discard();
            }
            throw new NullPointerException("handler");
        }
        if (r == null) {
            // Told here, on the caller's thread, as every other handler is told: what the handler throws is logged,
            // not thrown out of this call (a caller on a loop thread would otherwise unwind the completion it runs in).
            // A handler that calls again from there nests: a few levels deep, it is told on another thread.
            Results.tellOnCaller(handler, attachment, closed());
            return;
        }
        r.target = handler;
        r.attachment = attachment;
        FileIoEvents.begin(r, backend.name());
        backend.submit(r);
    }

    /** A request on this file for an operation without memory, or null when the file is closed. */
    private Request simple(int kind, Completion completion) {
        return Transfers.request(this, kind, completion);
    }

    private static void checkPosition(long position) {
        Transfers.checkPosition(position);
    }

    private void checkWritable() {
        Transfers.checkWritable(handle);
    }

    private Request transfer(int kind, ByteBuffer buf, long position, boolean fully, Duration timeout) {
        return Transfers.buffer(this, kind, buf, position, fully, timeout);
    }

    private Request transfer(int kind, MemorySegment seg, long position, boolean fully, Duration timeout) {
        return Transfers.segment(this, kind, seg, position, fully, timeout);
    }

    private Request vectored(int kind, ByteBuffer[] bufs, long position) {
        return Transfers.vector(this, kind, bufs, position);
    }

    private static Duration timeout(Duration timeout) {
        return Transfers.timeout(timeout);
    }

    // ============================================================================================ read

    /**
     * Reads into {@code dst} from {@code position}: bytes read, or -1 at end of file. When the page cache holds all of
     * it, the read is made on the calling thread and the future is complete when this returns
     * ({@link IoExecutor.Builder#callerReads}); otherwise a loop makes it.
     */
    public CompletableFuture<Integer> read(ByteBuffer dst, long position) {
        return read(transfer(Request.READ, dst, position, false, null));
    }

    public <A> void read(ByteBuffer dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.READ, dst, position, false, null), attachment, handler);
    }

    /**
     * Reads into all of {@code dst}: bytes read, or -1 at end of file. As {@link #read(ByteBuffer, long)}, made on the
     * calling thread when the page cache holds all of it.
     */
    public CompletableFuture<Integer> read(MemorySegment dst, long position) {
        return read(transfer(Request.READ, dst, position, false, null));
    }

    public <A> void read(MemorySegment dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.READ, dst, position, false, null), attachment, handler);
    }

    /** Fills {@code dst}'s remaining bytes, resubmitting short reads; EOFException if the file ends first. */
    public CompletableFuture<Integer> readFully(ByteBuffer dst, long position) {
        return read(transfer(Request.READ, dst, position, true, null));
    }

    public <A> void readFully(ByteBuffer dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.READ, dst, position, true, null), attachment, handler);
    }

    public CompletableFuture<Integer> readFully(MemorySegment dst, long position) {
        return read(transfer(Request.READ, dst, position, true, null));
    }

    public <A> void readFully(MemorySegment dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.READ, dst, position, true, null), attachment, handler);
    }

    /** Scattering read ({@code READV}) into up to 64 direct buffers: bytes read, or -1 at end of file. */
    public CompletableFuture<Long> read(ByteBuffer[] dsts, long position) {
        return future(vectored(Request.READV, dsts, position));
    }

    public <A> void read(ByteBuffer[] dsts, long position, A attachment, CompletionHandler<Long, ? super A> handler) {
        handler(vectored(Request.READV, dsts, position), attachment, handler);
    }

    // ============================================================================================ write

    /** Writes {@code src}'s remaining bytes at {@code position}: bytes written (may be fewer). */
    public CompletableFuture<Integer> write(ByteBuffer src, long position) {
        return future(transfer(Request.WRITE, src, position, false, null));
    }

    public <A> void write(ByteBuffer src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.WRITE, src, position, false, null), attachment, handler);
    }

    public CompletableFuture<Integer> write(MemorySegment src, long position) {
        return future(transfer(Request.WRITE, src, position, false, null));
    }

    public <A> void write(MemorySegment src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.WRITE, src, position, false, null), attachment, handler);
    }

    /** Writes all of {@code src}'s remaining bytes, resubmitting short writes. */
    public CompletableFuture<Integer> writeFully(ByteBuffer src, long position) {
        return future(transfer(Request.WRITE, src, position, true, null));
    }

    public <A> void writeFully(ByteBuffer src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.WRITE, src, position, true, null), attachment, handler);
    }

    public CompletableFuture<Integer> writeFully(MemorySegment src, long position) {
        return future(transfer(Request.WRITE, src, position, true, null));
    }

    public <A> void writeFully(MemorySegment src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.WRITE, src, position, true, null), attachment, handler);
    }

    /** Gathering write ({@code WRITEV}) from up to 64 direct buffers: bytes written. */
    public CompletableFuture<Long> write(ByteBuffer[] srcs, long position) {
        return future(vectored(Request.WRITEV, srcs, position));
    }

    public <A> void write(ByteBuffer[] srcs, long position, A attachment, CompletionHandler<Long, ? super A> handler) {
        handler(vectored(Request.WRITEV, srcs, position), attachment, handler);
    }

    /**
     * Writes all of {@code src} and then {@code fdatasync}s, as one linked write&rarr;fsync chain on io_uring: the
     * future completes once the data is durable. A short write is finished and the sync issued again. A platform
     * thread that calls {@code join()} on the future before a loop has taken the request in, while no earlier write or
     * sync of this file is queued or in flight, makes both calls itself, on a duplicate of the file's descriptor, as
     * {@code FileChannel.write} and {@code force} would: a sync waits for the device longer than a waiter spins, and
     * the hand-overs to the loop and back cost more than the calls (see {@link IoExecutor}'s "Waiting for a result").
     * A failed write fails the future as {@code write} does; a failed sync after a whole write fails it with an
     * exception whose operation is {@code "FDATASYNC after a WRITE of N bytes"}: the bytes are in the file, not known
     * to be on the device (a FIFO or {@code /dev/null} takes writes and refuses syncs with {@code EINVAL}).
     */
    public CompletableFuture<Integer> writeAndSync(ByteBuffer src, long position) {
        return future(transfer(Request.WRITE_SYNC, src, position, true, null));
    }

    public <A> void writeAndSync(ByteBuffer src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.WRITE_SYNC, src, position, true, null), attachment, handler);
    }

    public CompletableFuture<Integer> writeAndSync(MemorySegment src, long position) {
        return future(transfer(Request.WRITE_SYNC, src, position, true, null));
    }

    public <A> void writeAndSync(MemorySegment src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Request.WRITE_SYNC, src, position, true, null), attachment, handler);
    }

    // ============================================================================================ timeouts

    /**
     * A view of this file whose reads and writes each fail with
     * {@link java.nio.channels.InterruptedByTimeoutException} when they have not ended {@code timeout} after the loop
     * took them in (see "Cancellation and timeouts" above); that type takes no message, so its cause, a
     * {@link java.util.concurrent.TimeoutException}, names the operation, the file and the timeout. The view is the
     * file: closing the file ends its operations, and one view may be kept and used for any number of operations.
     *
     * @throws IllegalArgumentException for a negative timeout ({@link Duration#ZERO} counts as one nanosecond)
     */
    public Timed withTimeout(Duration timeout) {
        return new Timed(this, timeout(timeout));
    }

    /**
     * The reads and writes of an {@link AsyncFile} with a timeout each ({@link AsyncFile#withTimeout}): the same
     * forms, results and rules as the file's own methods of the same names. A {@code readFully} or {@code writeFully}
     * has one timeout for all of its pieces.
     */
    public static final class Timed {
        private final AsyncFile file;
        private final Duration timeout;

        private Timed(AsyncFile file, Duration timeout) {
            this.file = file;
            this.timeout = timeout;
        }

        /** The file this view reads and writes. */
        public AsyncFile file() {
            return file;
        }

        /** The timeout of each operation. */
        public Duration timeout() {
            return timeout;
        }

        public CompletableFuture<Integer> read(ByteBuffer dst, long position) {
            return file.future(file.transfer(Request.READ, dst, position, false, timeout));
        }

        public <A> void read(ByteBuffer dst, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.READ, dst, position, false, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> read(MemorySegment dst, long position) {
            return file.future(file.transfer(Request.READ, dst, position, false, timeout));
        }

        public <A> void read(MemorySegment dst, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.READ, dst, position, false, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> readFully(ByteBuffer dst, long position) {
            return file.future(file.transfer(Request.READ, dst, position, true, timeout));
        }

        public <A> void readFully(ByteBuffer dst, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.READ, dst, position, true, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> readFully(MemorySegment dst, long position) {
            return file.future(file.transfer(Request.READ, dst, position, true, timeout));
        }

        public <A> void readFully(MemorySegment dst, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.READ, dst, position, true, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> write(ByteBuffer src, long position) {
            return file.future(file.transfer(Request.WRITE, src, position, false, timeout));
        }

        public <A> void write(ByteBuffer src, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.WRITE, src, position, false, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> write(MemorySegment src, long position) {
            return file.future(file.transfer(Request.WRITE, src, position, false, timeout));
        }

        public <A> void write(MemorySegment src, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.WRITE, src, position, false, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> writeFully(ByteBuffer src, long position) {
            return file.future(file.transfer(Request.WRITE, src, position, true, timeout));
        }

        public <A> void writeFully(ByteBuffer src, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.WRITE, src, position, true, timeout), attachment, handler);
        }

        public CompletableFuture<Integer> writeFully(MemorySegment src, long position) {
            return file.future(file.transfer(Request.WRITE, src, position, true, timeout));
        }

        public <A> void writeFully(MemorySegment src, long position, A attachment,
                CompletionHandler<Integer, ? super A> handler) {
            file.handler(file.transfer(Request.WRITE, src, position, true, timeout), attachment, handler);
        }

        @Override
        public String toString() {
            return file + " with timeout " + timeout;
        }
    }

    // ============================================================================================ the rest

    /** The file's size ({@code statx} of its descriptor: renaming or replacing the path does not change it). */
    public CompletableFuture<Long> size() {
        return future(simple(Request.SIZE, Results.LONG));
    }

    public <A> void size(A attachment, CompletionHandler<Long, ? super A> handler) {
        handler(simple(Request.SIZE, Results.LONG), attachment, handler);
    }

    private Request forceOp(boolean metaData) {
        Request r = simple(Request.FSYNC, Results.VOID);
        if (r != null) {
            r.metaData = metaData;
        }
        return r;
    }

    /**
     * {@code fsync} with {@code metaData}, else {@code fdatasync}; made by a platform thread that joins the future
     * before a loop takes it in, as {@link #writeAndSync(ByteBuffer, long)} is.
     */
    public CompletableFuture<Void> force(boolean metaData) {
        return future(forceOp(metaData));
    }

    public <A> void force(boolean metaData, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(forceOp(metaData), attachment, handler);
    }

    private Request truncateOp(long size) {
        if (size < 0) {
            throw new IllegalArgumentException("negative size: " + size);
        }
        checkWritable();
        Request r = simple(Request.TRUNCATE, Results.VOID);
        if (r != null) {
            r.arg = size;
        }
        return r;
    }

    /** Sets the file's size ({@code ftruncate}): cuts it, or extends it with zeros. */
    public CompletableFuture<Void> truncate(long size) {
        return future(truncateOp(size));
    }

    public <A> void truncate(long size, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(truncateOp(size), attachment, handler);
    }

    private Request rangeOp(int kind, long position, long length, int flags) {
        checkPosition(position);
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        if (position + length < 0) {
            // past the largest file offset: the kernel's answer would depend on the call and the backend
            throw new IllegalArgumentException("position + length past the largest file offset: " + position + " + "
                    + length);
        }
        if (kind == Request.ALLOCATE) {
            if (length == 0) {
                // fallocate(2) refuses an empty range (EINVAL, which named no argument)
                throw new IllegalArgumentException("allocate of 0 bytes: the length must be positive");
            }
            checkWritable();
        }
        Request r = simple(kind, Results.VOID);
        if (r != null) {
            r.position = position;
            r.arg = length;
            r.flags = flags;
        }
        return r;
    }

    /**
     * Reserves blocks for {@code [position, position + length)} ({@code fallocate}, mode 0: may grow the file);
     * {@code length} must be positive.
     */
    public CompletableFuture<Void> allocate(long position, long length) {
        return future(rangeOp(Request.ALLOCATE, position, length, 0));
    }

    public <A> void allocate(long position, long length, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(rangeOp(Request.ALLOCATE, position, length, 0), attachment, handler);
    }

    /** Tells the kernel how a range will be used ({@code posix_fadvise}); {@code length} 0 means to the end. */
    public CompletableFuture<Void> advise(long position, long length, Advice advice) {
        return future(rangeOp(Request.ADVISE, position, length, Objects.requireNonNull(advice, "advice").value));
    }

    public <A> void advise(long position, long length, Advice advice, A attachment,
            CompletionHandler<Void, ? super A> handler) {
        handler(rangeOp(Request.ADVISE, position, length, Objects.requireNonNull(advice, "advice").value), attachment,
                handler);
    }

    /**
     * Writes back the dirty pages of a range and waits for them ({@code sync_file_range} with WAIT_BEFORE, WRITE,
     * WAIT_AFTER). Not a durability guarantee: metadata and the disk cache are not flushed; use {@link #force}.
     */
    public CompletableFuture<Void> syncRange(long position, long length) {
        return future(rangeOp(Request.SYNC_RANGE, position, length, SYNC_RANGE_FLAGS));
    }

    public <A> void syncRange(long position, long length, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(rangeOp(Request.SYNC_RANGE, position, length, SYNC_RANGE_FLAGS), attachment, handler);
    }

    // ============================================================================================ close

    /**
     * Closes the file: operations still in flight are cancelled (they fail with
     * {@link AsynchronousCloseException}) and awaited, then the descriptor (and registered slot) is closed. Later
     * operations fail with {@link ClosedChannelException}. Idempotent: every call returns the same future.
     */
    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> f = closeFuture;
        if (f != null) {
            return f;
        }
        synchronized (this) {
            if (closeFuture != null) {
                return closeFuture;
            }
            if (!handle.beginClose()) {
                // closed already: by the executor, which closes its files when it closes
                closeFuture = CompletableFuture.completedFuture(null);
                return closeFuture;
            }
            CompletableFuture<Void> done = new CloseFuture(executor, handle);
            closeFuture = done;
            Request r = backend.acquire();
            r.kind = Request.CLOSE;
            r.handle = handle;
            r.completion = Results.CLOSE;
            r.target = done;
            r.attachment = handle;
            r.client = this;
            FileIoEvents.begin(r, backend.name());
            // The threads backend fails the file's operations on this thread, inside submit: a handler of one of
            // them that calls close() must not wait for the close it runs inside of (close() checks this).
            closingThread = Thread.currentThread();
            try {
                backend.submit(r);
            } finally {
                closingThread = null;
            }
            cleanable.clean(); // closing now: nothing left for the cleaner to do
            return done;
        }
    }

    /** The future of a close, and the close's own end as the loop saw it, which {@link #close()} waits for. */
    static final class CloseFuture extends OpFuture<Void> {
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        private final IoBackend backend;
        private final FileHandle handle;

        CloseFuture(IoExecutor executor, FileHandle handle) {
            super(executor, null, 0);
            this.backend = executor.backend;
            this.handle = handle;
        }

        /**
         * Also refused: a wait on the thread that ends this close once the code it runs returns (a handler of the
         * file's last call on the threads backend, see {@link AsyncFile#close()}), which would wait for ever.
         */
        @Override
        void checkMayWait() {
            super.checkMayWait();
            if (!isDone() && backend.endsCloseOnReturn(handle)) {
                throw new IllegalStateException("waiting for the close of " + handle.path + " on "
                        + Thread.currentThread().getName() + ", the thread that ends it once this code returns, would"
                        + " wait for ever: call close(), which returns there, or chain the next step");
            }
        }
    }

    /**
     * {@link #closeAsync()} and waits, unless called on an event loop thread (from a completion, of any executor),
     * where waiting would stop the loop that closes the file or could wait for a loop that waits for this one, or
     * from a completion the close itself runs (on the threads backend the thread that closes the file tells its
     * operations that they failed, or, when the file's last call was ending as the close came, tells that call's
     * result and then closes the file): there it returns once the close is under way. It waits for the close
     * itself, not for the {@linkplain IoExecutor.Builder#futureExecutor future executor} to complete the future, so
     * a stage running there may close a file. Nor does it wait for ever for an event loop that code of yours keeps
     * from its work (a completion handler or continuation that blocks it): once that loop has not turned for two
     * seconds, it logs a warning with the loop's stack and returns; the file is closed for its callers, and its
     * descriptor is closed when the loop runs again.
     */
    @Override
    public void close() throws IOException {
        CompletableFuture<Void> f = closeAsync();
        Thread me = Thread.currentThread();
        if (closingThread == me || io.github.uring4j.engine.uring.UringBackend.onAnyLoop()
                || backend.endsCloseOnReturn(handle)) {
            // a completion the close itself runs (on the threads backend the closing thread tells the file's
            // operations that they failed, and the worker of the file's last call tells it, then ends the close), or
            // an event loop of any executor: waiting here would wait for the close this thread is making, or for a
            // loop that may be waiting for this one (two loops closing each other's files)
            return;
        }
        if (f instanceof CloseFuture c) {
            // the close's own end, settled on the loop: a stage on the future executor that closes the file does not
            // wait for that executor to run the future's completion, which may be queued behind the stage itself
            f = c.settled;
        }
        Waits.spin(f, executor.waitSpinNanos);
        String heldUp = executor.backend.awaitUnlessHeldUp(f);
        if (heldUp != null) {
            // the file is closed for its callers already; the descriptor goes when the loop runs again
            Log.warn("close of " + handle.path + " returns before its loop has closed the file: " + heldUp);
            return;
        }
        try {
            f.join();
        } catch (CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            throw new IOException(c);
        }
    }

    /**
     * Copies up to {@code count} bytes of this file from {@code position} to {@code target} at
     * {@code targetPosition}, inside the kernel ({@code copy_file_range}: the page cache copies to itself, or the file
     * system shares the extents), on a helper thread rather than an event loop, since the call blocks for as long as
     * the copy takes. Fewer bytes are copied when this file ends first (0 when {@code position} is at or past its
     * end), as {@link java.nio.channels.FileChannel#transferTo} does: a regular file is copied up to its size when
     * the copy starts, so bytes appended meanwhile are not copied, nor those the copy itself appends when
     * {@code target} is this file (one that says it is empty, as those of {@code /proc} do, is read until it ends).
     * Both files are duplicated when the call is made: closing either meanwhile does not stop the copy, and no
     * descriptor outlives it. A cancel, or a close of this file's executor, stops it before its next call (at most
     * 64 MiB later); the executor's close fails it with {@link java.nio.channels.AsynchronousCloseException}. An
     * error once bytes were copied (a full disk, a file-size limit) ends the copy with their count, as the JDK's
     * transfers do; a copy that copied nothing fails with it.
     * Between files the kernel
     * cannot copy (another file system on an older kernel) the helper copies through a buffer; without native
     * access, through reads and writes of the two files. A FIFO, pipe or device without offsets is read or written
     * where it is, whatever the position says: a copy out of a FIFO waits for a writer, as a read does, and goes on
     * until the writer leaves or {@code count} bytes are copied. The future completes on the helper thread (or the
     * {@linkplain IoExecutor.Builder#futureExecutor executor's future executor}).
     *
     * @return the bytes copied
     * @throws IllegalArgumentException     for a negative position, count or target position
     * @throws NonReadableChannelException  when this file was not opened for reading
     * @throws NonWritableChannelException  when {@code target} was not opened for writing
     */
    public CompletableFuture<Long> transferTo(long position, long count, AsyncFile target, long targetPosition) {
        return Copies.transferTo(this, position, count, target, targetPosition);
    }

    /** False once {@link #close()} was called (or the executor closed the file). */
    public boolean isOpen() {
        return handle.isOpen();
    }

    // ============================================================================================ facts

    public Path path() {
        return Path.of(handle.path);
    }

    public IoExecutor executor() {
        return executor;
    }

    /** True when opened with {@link FileOption#DIRECT}. */
    public boolean isDirect() {
        return handle.direct;
    }

    /**
     * Offset and length alignment {@code O_DIRECT} needs here: from {@code STATX_DIOALIGN} (Linux 6.1) where
     * the kernel reports it, else 4096. Buffers must be aligned to {@link #directIoMemoryAlignment()}.
     */
    public int directIoAlignment() {
        return handle.offAlign;
    }

    /** Buffer-address alignment for {@code O_DIRECT} (see {@link #directIoAlignment()}). */
    public int directIoMemoryAlignment() {
        return handle.memAlign;
    }

    /**
     * True when the file also sits in a registered-file slot of its home loop's ring: operations on that loop use
     * the slot (no descriptor lookup per operation); on other loops, the descriptor.
     */
    public boolean isRegistered() {
        return handle.isRegistered();
    }

    @Override
    public String toString() {
        return "AsyncFile[" + handle + "]";
    }
}
