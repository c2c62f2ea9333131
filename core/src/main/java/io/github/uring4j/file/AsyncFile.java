package io.github.uring4j.file;

import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.FileTarget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A file for asynchronous positional I/O on an {@link IoExecutor}: io_uring when the executor runs on it, blocking
 * calls on a thread pool otherwise, behind the same methods.
 *
 * <p>Every operation comes in two forms: one returning a {@link CompletableFuture}, and one taking an attachment
 * and a {@link CompletionHandler} that allocates nothing in steady state (the operation record is pooled, the
 * result box cached for sizes that are multiples of 512 up to 1 MiB). Completions run on the executor's loop
 * thread (or a worker of the threads backend): do not block there.
 *
 * <h2>Buffers</h2>
 * Direct {@link ByteBuffer}s and native {@link MemorySegment}s are handed to the kernel as they are. Heap buffers
 * and heap segments work too: they are copied through a pooled direct buffer. The library holds every buffer
 * strongly until the operation's completion has arrived, whatever the caller does with its reference. A
 * {@code ByteBuffer}'s position advances by the bytes transferred, as with {@link java.nio.channels.AsynchronousFileChannel}.
 *
 * <h2>Results</h2>
 * {@code read} returns the bytes read, or {@code -1} at end of file; {@code readFully} and {@code writeFully}
 * finish short transfers and fail with {@link java.io.EOFException} when the file ends first. Failures are
 * {@link java.nio.file.NoSuchFileException}, {@link java.nio.file.AccessDeniedException},
 * {@link java.nio.file.FileAlreadyExistsException}, {@link java.io.EOFException} where the JDK uses them,
 * otherwise {@link FileIOException} with the errno name, the operation, the path and the offset.
 *
 * <h2>Cancellation and timeouts</h2>
 * {@code future.cancel(true)} completes the future with a {@link java.util.concurrent.CancellationException} and
 * sends {@code IORING_OP_ASYNC_CANCEL}; the buffer stays referenced (and a pooled copy buffer unused) until the
 * kernel's completion arrives, but a direct buffer's contents are undefined after a cancelled read. The variants
 * taking a {@link Duration} attach an {@code IORING_OP_LINK_TIMEOUT} and fail with
 * {@link java.nio.channels.InterruptedByTimeoutException}. The threads backend cannot interrupt a blocking call:
 * it reports the timeout on time and lets the call finish on its worker, keeping the buffer until then (a timed-out
 * read may still have filled it, a timed-out write may still have written).
 */
public final class AsyncFile implements AutoCloseable {
    private static final int SYNC_RANGE_FLAGS =
            Uapi.SYNC_FILE_RANGE_WAIT_BEFORE | Uapi.SYNC_FILE_RANGE_WRITE | Uapi.SYNC_FILE_RANGE_WAIT_AFTER;

    final IoExecutor executor;
    final Engine engine;
    /** The loop that opened the file and runs its operations (io_uring backend), else null. */
    final UringLoop loop;
    private final String path;
    final MemorySegment cPath;
    final int fd;
    final int fixedSlot;
    final FileTarget target;
    final boolean direct;
    private final int memAlign;
    private final int offAlign;
    final boolean deleteOnClose;
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private volatile boolean closed;
    private volatile CompletableFuture<Void> closeFuture;

    // ---- loop thread (io_uring backend)
    boolean loopClosing;
    int inflight;
    Op pendingClose;

    // ---- threads backend, guarded by this
    private int threadsInflight;
    private boolean threadsClosing;

    AsyncFile(IoExecutor executor, UringLoop loop, String path, MemorySegment cPath, int fd, int fixedSlot,
            boolean direct, int memAlign, int offAlign, boolean deleteOnClose) {
        this.executor = executor;
        this.engine = executor.engine;
        this.loop = loop;
        this.path = path;
        this.cPath = cPath;
        this.fd = fd;
        this.fixedSlot = fixedSlot;
        this.target = fixedSlot >= 0 ? FileTarget.fixed(fixedSlot) : FileTarget.fd(fd);
        this.direct = direct;
        this.memAlign = Math.max(1, memAlign);
        this.offAlign = Math.max(1, offAlign);
        this.deleteOnClose = deleteOnClose;
    }

    // ============================================================================================ open

    /** Opens {@code path} on the {@linkplain IoExecutor#defaultExecutor() default executor}. */
    public static CompletableFuture<AsyncFile> open(Path path, OpenOption... options) {
        return open(IoExecutor.defaultExecutor(), path, options);
    }

    /**
     * Opens {@code path} with {@code IORING_OP_OPENAT} (or {@code open(2)} on the threads backend). Takes the
     * {@link StandardOpenOption}s (without {@code APPEND}, which positional writes cannot honour;
     * {@code READ} when neither {@code READ} nor {@code WRITE} is given), {@link LinkOption#NOFOLLOW_LINKS}, and
     * {@link FileOption}s. Files are created with mode 0666 minus the umask.
     *
     * @throws UnsupportedOperationException for {@code APPEND} or an option this class does not know
     * @throws IllegalStateException         when the executor is closed
     */
    public static CompletableFuture<AsyncFile> open(IoExecutor executor, Path path, OpenOption... options) {
        Op op = openOp(executor, path, Set.of(options));
        return submit(executor.engine, op);
    }

    /** {@link #open(IoExecutor, Path, OpenOption...)} reporting to {@code handler}. */
    public static <A> void open(IoExecutor executor, Path path, Set<? extends OpenOption> options, A attachment,
            CompletionHandler<AsyncFile, ? super A> handler) {
        Op op = openOp(executor, path, options);
        submit(executor.engine, op, attachment, handler);
    }

    private static Op openOp(IoExecutor executor, Path path, Set<? extends OpenOption> options) {
        Objects.requireNonNull(path, "path");
        executor.checkOpen();
        if (path.getFileSystem() != FileSystems.getDefault()) {
            throw new IllegalArgumentException("not a file of the default file system: " + path);
        }
        boolean read = false;
        boolean write = false;
        boolean create = false;
        boolean createNew = false;
        boolean truncate = false;
        boolean deleteOnClose = false;
        int extra = Uapi.O_CLOEXEC;
        boolean direct = false;
        boolean registered = false;
        for (OpenOption o : options) {
            if (o instanceof StandardOpenOption s) {
                switch (s) {
                    case READ -> read = true;
                    case WRITE -> write = true;
                    case CREATE -> create = true;
                    case CREATE_NEW -> createNew = true;
                    case TRUNCATE_EXISTING -> truncate = true;
                    case DELETE_ON_CLOSE -> deleteOnClose = true;
                    case SPARSE -> {
                        // a hint; Linux files are sparse anyway
                    }
                    case SYNC -> extra |= Uapi.O_SYNC;
                    case DSYNC -> extra |= Uapi.O_DSYNC;
                    case APPEND -> throw new UnsupportedOperationException(
                            "APPEND: asynchronous writes are positional; write at size() instead");
                    default -> throw new UnsupportedOperationException(s.toString());
                }
            } else if (o == LinkOption.NOFOLLOW_LINKS) {
                extra |= Uapi.O_NOFOLLOW;
            } else if (o instanceof FileOption f) {
                switch (f) {
                    case DIRECT -> {
                        extra |= Uapi.O_DIRECT;
                        direct = true;
                    }
                    case DSYNC -> extra |= Uapi.O_DSYNC;
                    case NOATIME -> extra |= Uapi.O_NOATIME;
                    case REGISTERED -> registered = true;
                    default -> throw new UnsupportedOperationException(f.toString());
                }
            } else {
                throw new UnsupportedOperationException("unsupported open option: " + o);
            }
        }
        if (!read && !write) {
            read = true;
        }
        int flags = read && write ? Uapi.O_RDWR : write ? Uapi.O_WRONLY : Uapi.O_RDONLY;
        if (write) {
            if (createNew) {
                flags |= Uapi.O_CREAT | Uapi.O_EXCL | Uapi.O_NOFOLLOW;
            } else if (create) {
                flags |= Uapi.O_CREAT;
            }
            if (truncate) {
                flags |= Uapi.O_TRUNC;
            }
        }
        String abs = path.toAbsolutePath().toString();
        Op op = executor.ops.acquire();
        op.kind = Op.OPEN;
        op.resultKind = Op.R_FILE;
        op.path = abs;
        op.cPath = Arena.ofAuto().allocateFrom(abs);
        op.openFlags = flags | extra;
        op.direct = direct;
        op.registered = registered;
        op.deleteOnClose = deleteOnClose;
        return op;
    }

    // ============================================================================================ plumbing

    @SuppressWarnings("unchecked")
    private static <T> CompletableFuture<T> submit(Engine engine, Op op) {
        engine.route(op);
        OpFuture<T> f = new OpFuture<>(engine, op, op.generation, op.loop);
        op.future = (CompletableFuture<Object>) (CompletableFuture<?>) f;
        engine.execute(op);
        return f;
    }

    @SuppressWarnings("unchecked")
    private static <A> void submit(Engine engine, Op op, A attachment, CompletionHandler<?, ? super A> handler) {
        Objects.requireNonNull(handler, "handler");
        op.handler = (CompletionHandler<Object, Object>) handler;
        op.attachment = attachment;
        engine.execute(op);
    }

    private <T> CompletableFuture<T> future(Op op) {
        if (op == null) {
            return CompletableFuture.failedFuture(new ClosedChannelException());
        }
        return submit(engine, op);
    }

    private <A> void handler(Op op, A attachment, CompletionHandler<?, ? super A> handler) {
        Objects.requireNonNull(handler, "handler");
        if (op == null) {
            handler.failed(new ClosedChannelException(), attachment);
            return;
        }
        submit(engine, op, attachment, handler);
    }

    /** A fresh op for this file, or null when the file is closed. */
    private Op op(int kind, int resultKind) {
        if (closeStarted.get()) {
            return null;
        }
        Op op = executor.ops.acquire();
        op.kind = kind;
        op.resultKind = resultKind;
        op.file = this;
        return op;
    }

    private void checkDirect(long address, long position, long length) {
        if (!direct) {
            return;
        }
        if (address % memAlign != 0 || position % offAlign != 0 || length % offAlign != 0) {
            throw new IllegalArgumentException("O_DIRECT alignment: " + path + " needs the buffer address aligned to "
                    + memAlign + " bytes and the file offset and length to " + offAlign + " bytes (address 0x"
                    + Long.toHexString(address) + ", offset " + position + ", length " + length
                    + "); use BufferPool.builder().alignmentFor(file)");
        }
    }

    private static void checkPosition(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("negative position: " + position);
        }
    }

    private Op transfer(int kind, ByteBuffer buf, long position, boolean fully, Duration timeout) {
        Objects.requireNonNull(buf, "buffer");
        checkPosition(position);
        boolean read = kind == Op.READ;
        if (read && buf.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        int len = buf.remaining();
        long address = buf.isDirect() ? addressOf(buf) : 0;
        checkDirect(address, position, len);
        Op op = op(kind, Op.R_INT);
        if (op == null) {
            return null;
        }
        if (buf.isDirect()) {
            op.address = address;
        } else {
            MemorySegment b = executor.bounces.acquire(len);
            if (!read) {
                MemorySegment.copy(MemorySegment.ofBuffer(buf), 0, b, 0, len);
            }
            op.bounce = b;
            op.address = b.address();
        }
        op.userBuffer = buf;
        op.keep = buf;
        op.length = len;
        op.position = position;
        op.fully = fully;
        op.timeoutNanos = timeout == null ? 0 : Math.max(1, timeout.toNanos());
        return op;
    }

    private Op transfer(int kind, MemorySegment seg, long position, boolean fully, Duration timeout) {
        Objects.requireNonNull(seg, "segment");
        checkPosition(position);
        boolean read = kind == Op.READ;
        if (read && seg.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only segment");
        }
        long size = seg.byteSize();
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one operation moves at most 2 GiB - 1 bytes, not " + size);
        }
        int len = (int) size;
        checkDirect(seg.isNative() ? seg.address() : 0, position, len);
        Op op = op(kind, Op.R_INT);
        if (op == null) {
            return null;
        }
        if (seg.isNative()) {
            op.address = seg.address();
        } else {
            MemorySegment b = executor.bounces.acquire(len);
            if (read) {
                op.heapSegment = seg;
            } else {
                MemorySegment.copy(seg, 0, b, 0, len);
            }
            op.bounce = b;
            op.address = b.address();
        }
        op.keep = seg;
        op.length = len;
        op.position = position;
        op.fully = fully;
        op.timeoutNanos = timeout == null ? 0 : Math.max(1, timeout.toNanos());
        return op;
    }

    private Op vectored(int kind, ByteBuffer[] bufs, long position) {
        Objects.requireNonNull(bufs, "buffers");
        checkPosition(position);
        if (bufs.length == 0 || bufs.length > Op.MAX_IOV) {
            throw new IllegalArgumentException("vectored I/O takes 1 to " + Op.MAX_IOV + " buffers, not " + bufs.length);
        }
        long[] addr = new long[bufs.length];
        for (int i = 0; i < bufs.length; i++) {
            ByteBuffer b = Objects.requireNonNull(bufs[i], "buffer");
            if (!b.isDirect()) {
                throw new IllegalArgumentException("vectored I/O needs direct buffers (buffer " + i + " is on the heap)");
            }
            if (kind == Op.READV && b.isReadOnly()) {
                throw new IllegalArgumentException("read into a read-only buffer (buffer " + i + ")");
            }
            addr[i] = addressOf(b);
            checkDirect(addr[i], position, b.remaining());
        }
        Op op = op(kind, Op.R_LONG);
        if (op == null) {
            return null;
        }
        for (int i = 0; i < bufs.length; i++) {
            op.iovAddr[i] = addr[i];
            op.iovLen[i] = bufs[i].remaining();
        }
        op.iovCount = bufs.length;
        op.buffers = bufs;
        op.keep = bufs;
        op.position = position;
        return op;
    }

    /**
     * Where a direct buffer's memory starts, remembered per buffer: {@link MemorySegment#ofBuffer} allocates a
     * segment and a scope each call, which the handler path must not. Weak, so a cached buffer can still be freed;
     * a slot lost to a race or a hash collision only costs a recomputation.
     */
    private static final class BufferBase extends WeakReference<ByteBuffer> {
        final long base;

        BufferBase(ByteBuffer b, long base) {
            super(b);
            this.base = base;
        }
    }

    private static final BufferBase[] BASES = new BufferBase[1024];

    /** The address of {@code b}'s current position. */
    static long addressOf(ByteBuffer b) {
        int h = System.identityHashCode(b) & (BASES.length - 1);
        BufferBase e = BASES[h];
        int pos = b.position();
        if (e != null && e.get() == b) {
            return e.base + pos;
        }
        long a = MemorySegment.ofBuffer(b).address();
        BASES[h] = new BufferBase(b, a - pos);
        return a;
    }

    /** After a transfer of {@code n} bytes: copy a heap target back, advance a ByteBuffer. */
    static void completeBuffers(Op op, long n) {
        if (op.bounce != null && op.kind == Op.READ) {
            if (op.userBuffer != null) {
                MemorySegment.copy(op.bounce, 0, MemorySegment.ofBuffer(op.userBuffer), 0, n);
            } else if (op.heapSegment != null) {
                MemorySegment.copy(op.bounce, 0, op.heapSegment, 0, n);
            }
        }
        ByteBuffer b = op.userBuffer;
        if (b != null) {
            b.position(b.position() + (int) n);
        }
    }

    /** Advances {@code bufs}' positions over {@code n} bytes, in order. */
    static void advance(ByteBuffer[] bufs, long n) {
        if (bufs == null) {
            return;
        }
        for (ByteBuffer b : bufs) {
            if (n <= 0) {
                break;
            }
            int step = (int) Math.min(b.remaining(), n);
            b.position(b.position() + step);
            n -= step;
        }
    }

    // ============================================================================================ read

    /** Reads into {@code dst} from {@code position}: bytes read, or -1 at end of file. */
    public CompletableFuture<Integer> read(ByteBuffer dst, long position) {
        return future(transfer(Op.READ, dst, position, false, null));
    }

    /** As {@link #read(ByteBuffer, long)}, failing with InterruptedByTimeoutException after {@code timeout}. */
    public CompletableFuture<Integer> read(ByteBuffer dst, long position, Duration timeout) {
        return future(transfer(Op.READ, dst, position, false, Objects.requireNonNull(timeout)));
    }

    public <A> void read(ByteBuffer dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.READ, dst, position, false, null), attachment, handler);
    }

    /** Reads into all of {@code dst}: bytes read, or -1 at end of file. */
    public CompletableFuture<Integer> read(MemorySegment dst, long position) {
        return future(transfer(Op.READ, dst, position, false, null));
    }

    public CompletableFuture<Integer> read(MemorySegment dst, long position, Duration timeout) {
        return future(transfer(Op.READ, dst, position, false, Objects.requireNonNull(timeout)));
    }

    public <A> void read(MemorySegment dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.READ, dst, position, false, null), attachment, handler);
    }

    /** Fills {@code dst}'s remaining bytes, resubmitting short reads; EOFException if the file ends first. */
    public CompletableFuture<Integer> readFully(ByteBuffer dst, long position) {
        return future(transfer(Op.READ, dst, position, true, null));
    }

    public <A> void readFully(ByteBuffer dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.READ, dst, position, true, null), attachment, handler);
    }

    public CompletableFuture<Integer> readFully(MemorySegment dst, long position) {
        return future(transfer(Op.READ, dst, position, true, null));
    }

    public <A> void readFully(MemorySegment dst, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.READ, dst, position, true, null), attachment, handler);
    }

    /** Scattering read ({@code READV}) into up to 64 direct buffers: bytes read, or -1 at end of file. */
    public CompletableFuture<Long> read(ByteBuffer[] dsts, long position) {
        return future(vectored(Op.READV, dsts, position));
    }

    public <A> void read(ByteBuffer[] dsts, long position, A attachment, CompletionHandler<Long, ? super A> handler) {
        handler(vectored(Op.READV, dsts, position), attachment, handler);
    }

    // ============================================================================================ write

    /** Writes {@code src}'s remaining bytes at {@code position}: bytes written (may be fewer). */
    public CompletableFuture<Integer> write(ByteBuffer src, long position) {
        return future(transfer(Op.WRITE, src, position, false, null));
    }

    public CompletableFuture<Integer> write(ByteBuffer src, long position, Duration timeout) {
        return future(transfer(Op.WRITE, src, position, false, Objects.requireNonNull(timeout)));
    }

    public <A> void write(ByteBuffer src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.WRITE, src, position, false, null), attachment, handler);
    }

    public CompletableFuture<Integer> write(MemorySegment src, long position) {
        return future(transfer(Op.WRITE, src, position, false, null));
    }

    public CompletableFuture<Integer> write(MemorySegment src, long position, Duration timeout) {
        return future(transfer(Op.WRITE, src, position, false, Objects.requireNonNull(timeout)));
    }

    public <A> void write(MemorySegment src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.WRITE, src, position, false, null), attachment, handler);
    }

    /** Writes all of {@code src}'s remaining bytes, resubmitting short writes. */
    public CompletableFuture<Integer> writeFully(ByteBuffer src, long position) {
        return future(transfer(Op.WRITE, src, position, true, null));
    }

    public <A> void writeFully(ByteBuffer src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.WRITE, src, position, true, null), attachment, handler);
    }

    public CompletableFuture<Integer> writeFully(MemorySegment src, long position) {
        return future(transfer(Op.WRITE, src, position, true, null));
    }

    public <A> void writeFully(MemorySegment src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.WRITE, src, position, true, null), attachment, handler);
    }

    /** Gathering write ({@code WRITEV}) from up to 64 direct buffers: bytes written. */
    public CompletableFuture<Long> write(ByteBuffer[] srcs, long position) {
        return future(vectored(Op.WRITEV, srcs, position));
    }

    public <A> void write(ByteBuffer[] srcs, long position, A attachment, CompletionHandler<Long, ? super A> handler) {
        handler(vectored(Op.WRITEV, srcs, position), attachment, handler);
    }

    /**
     * Writes all of {@code src} and then {@code fdatasync}s, as one linked write&rarr;fsync chain on io_uring: the
     * future completes once the data is durable. A short write is finished and the sync issued again.
     */
    public CompletableFuture<Integer> writeAndSync(ByteBuffer src, long position) {
        return future(transfer(Op.WRITE_SYNC, src, position, true, null));
    }

    public <A> void writeAndSync(ByteBuffer src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.WRITE_SYNC, src, position, true, null), attachment, handler);
    }

    public CompletableFuture<Integer> writeAndSync(MemorySegment src, long position) {
        return future(transfer(Op.WRITE_SYNC, src, position, true, null));
    }

    public <A> void writeAndSync(MemorySegment src, long position, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        handler(transfer(Op.WRITE_SYNC, src, position, true, null), attachment, handler);
    }

    // ============================================================================================ the rest

    /**
     * The file's size ({@code statx}). A {@linkplain FileOption#REGISTERED registered} file has no descriptor to
     * ask, so its size is taken by path.
     */
    public CompletableFuture<Long> size() {
        return future(op(Op.SIZE, Op.R_LONG));
    }

    public <A> void size(A attachment, CompletionHandler<Long, ? super A> handler) {
        handler(op(Op.SIZE, Op.R_LONG), attachment, handler);
    }

    private Op forceOp(boolean metaData) {
        Op op = op(Op.FSYNC, Op.R_VOID);
        if (op != null) {
            op.metaData = metaData;
        }
        return op;
    }

    /** {@code fsync} with {@code metaData}, else {@code fdatasync}. */
    public CompletableFuture<Void> force(boolean metaData) {
        return future(forceOp(metaData));
    }

    public <A> void force(boolean metaData, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(forceOp(metaData), attachment, handler);
    }

    private Op truncateOp(long size) {
        if (size < 0) {
            throw new IllegalArgumentException("negative size: " + size);
        }
        Op op = op(Op.TRUNCATE, Op.R_VOID);
        if (op != null) {
            op.arg = size;
        }
        return op;
    }

    /** Sets the file's size ({@code ftruncate}): cuts it, or extends it with zeros. */
    public CompletableFuture<Void> truncate(long size) {
        return future(truncateOp(size));
    }

    public <A> void truncate(long size, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(truncateOp(size), attachment, handler);
    }

    private Op rangeOp(int kind, long position, long length, int flags) {
        checkPosition(position);
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        Op op = op(kind, Op.R_VOID);
        if (op != null) {
            op.position = position;
            op.arg = length;
            op.flags = flags;
        }
        return op;
    }

    /** Reserves blocks for {@code [position, position + length)} ({@code fallocate}, mode 0: may grow the file). */
    public CompletableFuture<Void> allocate(long position, long length) {
        return future(rangeOp(Op.ALLOCATE, position, length, 0));
    }

    public <A> void allocate(long position, long length, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(rangeOp(Op.ALLOCATE, position, length, 0), attachment, handler);
    }

    /** Tells the kernel how a range will be used ({@code posix_fadvise}); {@code length} 0 means to the end. */
    public CompletableFuture<Void> advise(long position, long length, Advice advice) {
        return future(rangeOp(Op.ADVISE, position, length, advice.value));
    }

    public <A> void advise(long position, long length, Advice advice, A attachment,
            CompletionHandler<Void, ? super A> handler) {
        handler(rangeOp(Op.ADVISE, position, length, advice.value), attachment, handler);
    }

    /**
     * Writes back the dirty pages of a range and waits for them ({@code sync_file_range} with WAIT_BEFORE, WRITE,
     * WAIT_AFTER). Not a durability guarantee: metadata and the disk cache are not flushed; use {@link #force}.
     */
    public CompletableFuture<Void> syncRange(long position, long length) {
        return future(rangeOp(Op.SYNC_RANGE, position, length, SYNC_RANGE_FLAGS));
    }

    public <A> void syncRange(long position, long length, A attachment, CompletionHandler<Void, ? super A> handler) {
        handler(rangeOp(Op.SYNC_RANGE, position, length, SYNC_RANGE_FLAGS), attachment, handler);
    }

    // ============================================================================================ close

    /**
     * Closes the file: operations still in flight are cancelled (they fail with
     * {@link AsynchronousCloseException}) and awaited, then the descriptor (or registered slot) is closed. Later
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
            if (closed || !closeStarted.compareAndSet(false, true)) {
                closeFuture = CompletableFuture.completedFuture(null);
                return closeFuture;
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            closeFuture = done;
            Op op = executor.ops.acquire();
            op.kind = Op.CLOSE;
            op.resultKind = Op.R_VOID;
            op.file = this;
            CompletableFuture<Object> raw = new CompletableFuture<>();
            op.future = raw;
            raw.whenComplete((v, t) -> {
                if (t == null || closed) {
                    done.complete(null); // an executor that closed first closed the file too
                } else {
                    done.completeExceptionally(t);
                }
            });
            engine.execute(op);
            return done;
        }
    }

    /** {@link #closeAsync()} and waits (unless called on the file's own event loop, where waiting would deadlock). */
    @Override
    public void close() throws IOException {
        CompletableFuture<Void> f = closeAsync();
        if (loop != null && Thread.currentThread() == loop.thread) {
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

    /** False once {@link #close()} was called (or the executor closed the file). */
    public boolean isOpen() {
        return !closeStarted.get();
    }

    void markClosed() {
        closeStarted.set(true);
        closed = true;
    }

    // ---- threads backend

    synchronized boolean enterThreads() {
        if (threadsClosing) {
            return false;
        }
        threadsInflight++;
        return true;
    }

    synchronized void exitThreads() {
        if (--threadsInflight == 0) {
            notifyAll();
        }
    }

    /** Stops new operations and waits for running ones; false if someone else is closing. */
    synchronized boolean beginCloseThreads() {
        if (threadsClosing) {
            return false;
        }
        threadsClosing = true;
        boolean interrupted = false;
        while (threadsInflight > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    // ============================================================================================ facts

    public Path path() {
        return Path.of(path);
    }

    String pathString() {
        return path;
    }

    public IoExecutor executor() {
        return executor;
    }

    /** True when opened with {@link FileOption#DIRECT}. */
    public boolean isDirect() {
        return direct;
    }

    /**
     * Offset and length alignment {@code O_DIRECT} needs here: from {@code STATX_DIOALIGN} (Linux 6.1) where
     * the kernel reports it, else 4096. Buffers must be aligned to {@link #directIoMemoryAlignment()}.
     */
    public int directIoAlignment() {
        return offAlign;
    }

    /** Buffer-address alignment for {@code O_DIRECT} (see {@link #directIoAlignment()}). */
    public int directIoMemoryAlignment() {
        return memAlign;
    }

    /** True when the file sits in a registered-file slot of its ring. */
    public boolean isRegistered() {
        return fixedSlot >= 0;
    }

    @Override
    public String toString() {
        return "AsyncFile[" + path + (fixedSlot >= 0 ? ", slot " + fixedSlot : ", fd " + fd)
                + (direct ? ", O_DIRECT" : "") + (isOpen() ? "" : ", closed") + "]";
    }
}
