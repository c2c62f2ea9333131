package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.direct;
import static io.github.uring4j.file.TestFiles.failure;
import static io.github.uring4j.file.TestFiles.get;
import static io.github.uring4j.file.TestFiles.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.KernelCopy;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.uring.UringBackend;
import io.github.uring4j.linux.Errno;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The AsyncFile behaviour every backend must have; {@link AsyncFileUringTest} and {@link AsyncFileThreadsTest}
 * run it. Numbers in the names are the cases of docs/reliability.md.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AsyncFileContract {
    @TempDir
    Path dir;

    IoExecutor io;

    abstract Backend backend();

    IoExecutor.Builder builder() {
        return IoExecutor.builder().backend(backend()).loops(1);
    }

    @BeforeEach
    void start() throws IOException {
        io = builder().build();
        assertEquals(backend(), io.backend());
    }

    @AfterEach
    void stop() {
        if (io != null) {
            io.close();
        }
    }

    Path file(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    AsyncFile open(Path p, java.nio.file.OpenOption... o) throws Exception {
        return get(AsyncFile.open(io, p, o));
    }

    // ------------------------------------------------------------------------------------------ basics

    @Test
    void writeThenReadRoundTripsDirectBuffers() throws Exception {
        byte[] data = pattern(10_000, 1);
        Path p = dir.resolve("rt");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer src = direct(data);
            assertEquals(10_000, get(f.writeFully(src, 100)));
            assertEquals(10_000, src.position());
            assertEquals(10_100L, get(f.size()));
            ByteBuffer dst = ByteBuffer.allocateDirect(10_000);
            assertEquals(10_000, get(f.readFully(dst, 100)));
            byte[] back = new byte[10_000];
            dst.flip().get(back);
            assertArrayEquals(data, back);
        }
        byte[] onDisk = Files.readAllBytes(p);
        assertEquals(10_100, onDisk.length);
        assertEquals(data[0], onDisk[100]);
    }

    /** Case 1: read 4096 B from a 1024 B file. */
    @Test
    void case1ShortFileReadReturnsWhatIsThereAndReadFullyThrowsEof() throws Exception {
        Path p = file("small", pattern(1024, 2));
        try (AsyncFile f = open(p)) {
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            assertEquals(1024, get(f.read(b, 0)));
            assertEquals(1024, b.position());
            Throwable t = failure(f.readFully(ByteBuffer.allocateDirect(4096), 0));
            assertInstanceOf(EOFException.class, t);
            assertTrue(t.getMessage().contains("small"), t.getMessage());
        }
    }

    /** Case 2: read at EOF gives -1, once, without resubmitting. */
    @Test
    void case2ReadAtEofReturnsMinusOne() throws Exception {
        Path p = file("eof", pattern(100, 3));
        try (AsyncFile f = open(p)) {
            ByteBuffer b = ByteBuffer.allocateDirect(64);
            assertEquals(-1, get(f.read(b, 100)));
            assertEquals(-1, get(f.read(b, 1 << 20)));
            assertEquals(0, b.position());
            MemorySegment m = Arena.ofAuto().allocate(64);
            assertEquals(-1, get(f.read(m, 100)));
            assertEquals(-1L, get(f.read(new ByteBuffer[] {b}, 100)));
        }
    }

    /** Case 3 (injected): every completion reports at most 1000 bytes; the rest is resubmitted at offset + n. */
    @Test
    void case3ShortTransfersAreFinished() throws Exception {
        io.close();
        AtomicInteger shortened = new AtomicInteger();
        io = builder().resultFilter((kind, sub, res, requested) -> {
            if ((kind == Request.READ || kind == Request.WRITE) && res > 1000) {
                shortened.incrementAndGet();
                return 1000;
            }
            return res;
        }).build();
        byte[] data = pattern(64 * 1024 + 123, 4);
        Path p = dir.resolve("short");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
            assertEquals(data.length, get(f.writeFully(direct(data), 5000)));
            ByteBuffer dst = ByteBuffer.allocateDirect(data.length);
            assertEquals(data.length, get(f.readFully(dst, 5000)));
            byte[] back = new byte[data.length];
            dst.flip().get(back);
            assertArrayEquals(data, back);
            // a plain read returns the short count, as the JDK does
            assertEquals(1000, get(f.read(ByteBuffer.allocateDirect(4096), 5000)));
        }
        assertTrue(shortened.get() >= 2 * 65, "short completions injected: " + shortened.get());
        byte[] disk = Files.readAllBytes(p);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(disk, 5000, disk.length));
    }

    // ------------------------------------------------------------------------------------------ case 7

    /** Case 7: random block writes then reads at several depths; every block verified; a mangled one found. */
    @ParameterizedTest(name = "depth {0}")
    @ValueSource(ints = {1, 32, 256})
    void case7RandomWritesAndReadsVerifyEveryBlock(int depth) throws Exception {
        long mib = Long.getLong("uring4j.test.case7.mib", 32);
        int blocks = (int) (mib * 256);
        Path p = dir.resolve("big");
        int[] order = new int[blocks];
        for (int i = 0; i < blocks; i++) {
            order[i] = i;
        }
        java.util.Random rnd = new java.util.Random(depth);
        for (int i = blocks - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        try (AsyncFile f = open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            runAtDepth(depth, blocks, i -> {
                int b = order[i];
                ByteBuffer buf = ByteBuffer.allocateDirect(4096);
                Blocks.fill(buf, (long) b * 4096, i);
                return f.writeFully(buf, (long) b * 4096).thenApply(n -> null);
            });
            AtomicInteger mismatches = new AtomicInteger();
            runAtDepth(depth, blocks, i -> {
                int b = order[blocks - 1 - i];
                ByteBuffer buf = ByteBuffer.allocateDirect(4096);
                return f.readFully(buf, (long) b * 4096).thenApply(n -> {
                    if (!Blocks.check(buf, (long) b * 4096)) {
                        mismatches.incrementAndGet();
                    }
                    return null;
                });
            });
            assertEquals(0, mismatches.get());
            // Mangle one byte of one block behind the library's back: the check must see it.
            int victim = blocks / 3;
            ByteBuffer one = ByteBuffer.allocateDirect(1).put((byte) 0x5a).flip();
            ByteBuffer orig = ByteBuffer.allocateDirect(1);
            get(f.read(orig, (long) victim * 4096 + 2000));
            if (orig.get(0) == 0x5a) {
                one.put(0, (byte) 0xa5);
            }
            get(f.write(one, (long) victim * 4096 + 2000));
            ByteBuffer buf = ByteBuffer.allocateDirect(4096);
            get(f.readFully(buf, (long) victim * 4096));
            assertFalse(Blocks.check(buf, (long) victim * 4096), "a mangled block must fail its crc32c");
        }
    }

    interface Step {
        CompletableFuture<Void> start(int i);
    }

    /** Runs {@code n} operations keeping {@code depth} in flight. */
    static void runAtDepth(int depth, int n, Step step) throws Exception {
        java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(depth);
        AtomicReference<Throwable> error = new AtomicReference<>();
        for (int i = 0; i < n && error.get() == null; i++) {
            if (!window.tryAcquire(60, TimeUnit.SECONDS)) {
                throw new AssertionError("no completion within 60 s at op " + i);
            }
            step.start(i).whenComplete((v, t) -> {
                if (t != null) {
                    error.compareAndSet(null, t);
                }
                window.release();
            });
        }
        if (!window.tryAcquire(depth, 60, TimeUnit.SECONDS)) {
            throw new AssertionError("operations still pending after 60 s");
        }
        if (error.get() != null) {
            throw new AssertionError(error.get());
        }
    }

    /** 4 KiB blocks that carry their offset, a sequence number and a crc32c of the rest. */
    static final class Blocks {
        static void fill(ByteBuffer b, long offset, long seq) {
            b.clear();
            b.putLong(offset).putLong(seq);
            long x = offset * 0x9E3779B97F4A7C15L + seq;
            while (b.position() < 4092) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                b.put((byte) x);
            }
            CRC32C crc = new CRC32C();
            crc.update(b.duplicate().flip());
            b.putInt((int) crc.getValue());
            b.flip();
        }

        static boolean check(ByteBuffer b, long offset) {
            b.clear();
            if (b.getLong(0) != offset) {
                return false;
            }
            CRC32C crc = new CRC32C();
            crc.update(b.duplicate().limit(4092));
            return b.getInt(4092) == (int) crc.getValue();
        }
    }

    // ------------------------------------------------------------------------------------------ case 8

    /** {@code p} opened for reading and writing with {@code O_DIRECT}; the test is skipped where that is refused. */
    private AsyncFile openDirect(Path p) throws Exception {
        try {
            return open(p, StandardOpenOption.READ, StandardOpenOption.WRITE, FileOption.DIRECT);
        } catch (FileIOException e) {
            Assumptions.abort("O_DIRECT not supported on " + dir + ": " + e.getMessage());
            throw e; // not reached
        }
    }

    /** Case 8: O_DIRECT aligned works; unaligned is refused before submission with a message about alignment. */
    @Test
    void case8DirectIoAlignedWorksUnalignedIsRefused() throws Exception {
        Path p = file("direct", pattern(64 * 1024, 5));
        AsyncFile f = openDirect(p);
        try (f; BufferPool pool = BufferPool.builder().bufferSize(8192).count(4).alignmentFor(f).build()) {
            int align = f.directIoAlignment();
            assertTrue(align > 0 && Integer.bitCount(align) == 1, "alignment " + align);
            MemorySegment m = pool.acquire();
            assertEquals(8192, get(f.read(m, 8192)));
            assertEquals(pattern(64 * 1024, 5)[8192], m.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(8192, get(f.write(m, 16384)));
            // unaligned offset, length, address
            IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class, () -> f.read(m, 100));
            assertTrue(e1.getMessage().contains("alignment"), e1.getMessage());
            IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                    () -> f.read(m.asSlice(0, 1000), 0));
            assertTrue(e2.getMessage().contains("alignment"), e2.getMessage());
            if (f.directIoMemoryAlignment() > 1) {
                IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class,
                        () -> f.read(m.asSlice(1, 4096), 0));
                assertTrue(e3.getMessage().contains("alignment"), e3.getMessage());
            }
            pool.release(m);
            // heap buffers go through an aligned bounce buffer
            ByteBuffer heap = ByteBuffer.allocate(4096);
            assertEquals(4096, get(f.read(heap, 4096)));
            assertEquals(pattern(64 * 1024, 5)[4096], heap.get(0));
        }
    }

    /**
     * An option given twice counts once, as {@code FileChannel.open} takes it (it failed with "duplicate element"); a
     * null option is refused with {@code NullPointerException}, as there.
     */
    @Test
    void anOptionGivenTwiceCountsOnceAndANullOneIsRefused() throws Exception {
        Path p = file("twice", pattern(100, 8));
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.WRITE)) {
            assertEquals(100, get(f.read(ByteBuffer.allocate(100), 0)));
            assertEquals(1, get(f.write(ByteBuffer.wrap(new byte[1]), 0)));
        }
        assertThrows(NullPointerException.class, () -> AsyncFile.open(io, p, StandardOpenOption.READ, null));
        assertThrows(NullPointerException.class, () -> java.nio.channels.FileChannel.open(p, StandardOpenOption.READ,
                null));
    }

    /**
     * The JDK's own name for {@code O_DIRECT}, {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, opens the file as
     * {@link FileOption#DIRECT} does (it was refused as an unsupported option, where the drop-in channels took it).
     */
    @Test
    void theJdksDirectOptionOpensWithODirect() throws Exception {
        Path p = file("jdk-direct", pattern(16 * 1024, 6));
        AsyncFile f;
        try {
            f = open(p, StandardOpenOption.READ, JdkOptions.DIRECT);
        } catch (FileIOException e) {
            Assumptions.abort("O_DIRECT not supported on " + dir + ": " + e.getMessage());
            return;
        }
        try (f; BufferPool pool = BufferPool.builder().bufferSize(4096).count(1).alignmentFor(f).build()) {
            assertTrue(f.isDirect(), f.toString());
            assertTrue(f.toString().contains("O_DIRECT"), f.toString());
            MemorySegment m = pool.acquire();
            assertEquals(4096, get(f.read(m, 8192)));
            assertEquals(pattern(16 * 1024, 6)[8192], m.get(ValueLayout.JAVA_BYTE, 0));
            assertThrows(IllegalArgumentException.class, () -> f.read(m.asSlice(0, 1000), 0));
            pool.release(m);
        }
    }

    /**
     * An {@code O_DIRECT} file's errors name alignment where alignment is what the kernel refused: a copy from an
     * unaligned offset says so; a range past the largest file offset is refused at once, and says what it is.
     */
    @Test
    void directFilesErrorsNameAlignmentOnlyWhereItIsTheCause() throws Exception {
        Path p = file("direct-errors", pattern(64 * 1024, 8));
        TestFiles.assumeNotInMemory(p, "tmpfs copies O_DIRECT files at any offset");
        AsyncFile f = openDirect(p);
        try (f; AsyncFile g = open(file("direct-errors-target", new byte[0]), StandardOpenOption.WRITE)) {
            Throwable copy = failure(f.transferTo(76, 1000, g, 0));
            assertInstanceOf(FileIOException.class, copy);
            assertTrue(copy.getMessage().contains("O_DIRECT") && copy.getMessage().contains("alignment"), copy.toString());
            for (long[] range : new long[][] {{Long.MAX_VALUE, 1}, {1, Long.MAX_VALUE}}) {
                IllegalArgumentException sync = assertThrows(IllegalArgumentException.class,
                        () -> f.syncRange(range[0], range[1]));
                assertTrue(sync.getMessage().contains("largest file offset"), sync.getMessage());
                assertThrows(IllegalArgumentException.class, () -> f.allocate(range[0], range[1]));
                assertThrows(IllegalArgumentException.class, () -> f.advise(range[0], range[1], Advice.DONTNEED));
            }
        }
    }

    /**
     * A range longer than an SQE's 32-bit length (5 GiB here) is advised whole: a page cached past 4 GiB is dropped by
     * {@code DONTNEED} of {@code [0, 5 GiB)}, as the system call drops it.
     */
    @Test
    void adviceOverMoreThanFourGibibytesCoversTheWholeRange() throws Exception {
        Path p = file("sparse", new byte[0]);
        TestFiles.assumeNotInMemory(p, "a file in memory has no other copy: DONTNEED drops none of its pages");
        long at = 4L << 30 | 1L << 29; // 4.5 GiB, in a sparse file
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(pattern(4096, 9)), at);
            ch.force(true); // clean pages only are dropped
        }
        try (AsyncFile f = open(p, StandardOpenOption.READ)) {
            assertEquals(4096, get(f.read(ByteBuffer.allocate(4096), at)));
            assertTrue(cached(p, at), "the page is cached before the advice");
            get(f.advise(0, 5L << 30, Advice.DONTNEED));
            assertFalse(cached(p, at), "the page past 4 GiB is still cached after DONTNEED of [0, 5 GiB)");
        }
    }

    /** Whether the page of {@code p} at {@code at} is in the page cache ({@code mincore} of a fresh mapping). */
    private static boolean cached(Path p, long at) throws java.io.IOException {
        // the mapping is gone before anything is advised: the kernel drops no page a process maps
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p, StandardOpenOption.READ);
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            return ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, at, 4096, arena).isLoaded();
        }
    }

    // ------------------------------------------------------------------------------------------ case 9

    @Test
    void case9OperationsOnAClosedFileFailWithClosedChannelAndCloseIsIdempotent() throws Exception {
        Path p = file("closed", pattern(100, 6));
        AsyncFile f = open(p);
        f.close();
        f.close();
        assertFalse(f.isOpen());
        assertInstanceOf(ClosedChannelException.class, failure(f.read(ByteBuffer.allocateDirect(10), 0)));
        AtomicReference<Throwable> seen = new AtomicReference<>();
        f.read(ByteBuffer.allocateDirect(10), 0, null, new CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer result, Object attachment) {
            }

            @Override
            public void failed(Throwable exc, Object attachment) {
                seen.set(exc);
            }
        });
        assertInstanceOf(ClosedChannelException.class, seen.get());
        io.close();
        io.close();
        assertThrows(IllegalStateException.class, () -> AsyncFile.open(io, p));
    }

    // ------------------------------------------------------------------------------------------ case 11

    /** Case 11: the caller drops its only reference to the buffer; the library keeps it until completion. */
    @Test
    void case11BufferStaysReachableUntilCompletion() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo11");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            WeakReference<ByteBuffer> ref = new WeakReference<>(buf);
            CompletableFuture<Integer> r = f.read(buf, 0);
            buf = null;
            for (int i = 0; i < 5 && ref.get() != null; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertNotNull(ref.get(), "the library must hold the buffer of an operation in flight");
            assertFalse(r.isDone());
            try (AsyncFile w = open(fifo, StandardOpenOption.WRITE)) {
                assertEquals(5, get(w.write(ByteBuffer.wrap("hello".getBytes()), 0)));
            }
            assertEquals(5, get(r));
        }
    }

    // ------------------------------------------------------------------------------------------ case 12

    /** Case 12: heap ByteBuffers and heap MemorySegments work, copied through pooled direct memory. */
    @Test
    void case12HeapBuffersAndSegmentsWork() throws Exception {
        byte[] data = pattern(70_000, 7);
        Path p = dir.resolve("heap");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer src = ByteBuffer.wrap(data, 10, 60_000);
            assertEquals(60_000, get(f.writeFully(src, 0)));
            assertEquals(60_010, src.position());
            ByteBuffer dst = ByteBuffer.allocate(60_000);
            assertEquals(60_000, get(f.readFully(dst, 0)));
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 10, 60_010), dst.array());

            byte[] seg = pattern(5000, 8);
            assertEquals(5000, get(f.write(MemorySegment.ofArray(seg), 100_000)));
            byte[] back = new byte[5000];
            assertEquals(5000, get(f.read(MemorySegment.ofArray(back), 100_000)));
            assertArrayEquals(seg, back);
            ByteBuffer ro = ByteBuffer.wrap(seg).asReadOnlyBuffer();
            assertEquals(5000, get(f.write(ro, 200_000)));
            assertThrows(IllegalArgumentException.class, () -> f.read(ro, 0));
        }
    }

    // ------------------------------------------------------------------------------------------ case 14

    /** Case 14: 10,000 × (open then cancel): every descriptor that did open is closed again. */
    @Test
    void case14OpenThenCancelLeaksNoDescriptor() throws Exception {
        Path p = file("opencancel", pattern(10, 9));
        int before = TestFiles.openFds();
        List<CompletableFuture<AsyncFile>> opened = new ArrayList<>();
        int cancelled = 0;
        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<AsyncFile> f = AsyncFile.open(io, p);
            if (f.cancel(true)) {
                cancelled++;
            } else {
                opened.add(f);
            }
        }
        for (CompletableFuture<AsyncFile> f : opened) {
            AsyncFile file = get(f);
            try {
                file.closeAsync().get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("close hangs: " + debug(), e);
            }
        }
        // cancelled opens finish in the background
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (io.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        drain();
        int after = TestFiles.openFds();
        // Closes of opens that won the race against cancel are themselves asynchronous: give them time.
        for (int i = 0; i < 200 && after != before; i++) {
            Thread.sleep(10);
            after = TestFiles.openFds();
        }
        assertEquals(before, after, "descriptors before/after (" + cancelled + " cancelled): "
                + TestFiles.fdTargets());
    }

    String debug() {
        return io.backend.describe();
    }

    /** Waits until queued work has passed through the backend. */
    void drain() throws Exception {
        Path p = file("drain" + System.nanoTime(), new byte[1]);
        try (AsyncFile f = open(p)) {
            get(f.size());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (io.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    // ------------------------------------------------------------------------------------------ case 19

    /** Case 19: 100,000 virtual threads share one executor. */
    @Test
    void case19HundredThousandVirtualThreads() throws Exception {
        Path p = file("vt", pattern(1 << 16, 10));
        byte[] expect = pattern(1 << 16, 10);
        try (AsyncFile f = open(p)) {
            int n = 100_000;
            AtomicInteger ok = new AtomicInteger();
            try (var ex = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < n; i++) {
                    int off = (i * 64) & 0xffff;
                    ex.submit(() -> {
                        ByteBuffer b = ByteBuffer.allocate(64);
                        int r = f.read(b, off).join();
                        if (r == Math.min(64, 65536 - off) && b.get(0) == expect[off]) {
                            ok.incrementAndGet();
                        }
                        return null;
                    });
                }
            }
            assertEquals(n, ok.get());
        }
    }

    // ------------------------------------------------------------------------------------------ case 25

    /** Case 25 (injected): the write of a write→fdatasync comes back short; both are issued again. */
    @Test
    void case25ShortWriteInLinkedWriteAndSync() throws Exception {
        io.close();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger syncs = new AtomicInteger();
        io = builder().resultFilter((kind, sub, res, requested) -> {
            if (kind != Request.WRITE_SYNC) {
                return res;
            }
            if (sub == 0) {
                return writes.incrementAndGet() == 1 && res > 1 ? res / 2 : res;
            }
            return syncs.incrementAndGet() == 1 && backend() == Backend.IO_URING
                    ? -Errno.ECANCELED : res;
        }).build();
        byte[] data = pattern(32 * 1024, 11);
        Path p = dir.resolve("wsync");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertEquals(data.length, get(f.writeAndSync(direct(data), 4096)));
        }
        assertTrue(writes.get() >= 2, "write issued again: " + writes.get());
        assertTrue(syncs.get() >= 1, "sync issued: " + syncs.get());
        byte[] disk = Files.readAllBytes(p);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(disk, 4096, disk.length));
    }

    // ------------------------------------------------------------------------------------------ the rest of the API

    @Test
    void typedErrors() throws Exception {
        assertInstanceOf(NoSuchFileException.class, failure(AsyncFile.open(io, dir.resolve("missing"))));
        Path p = file("exists", new byte[1]);
        assertInstanceOf(FileAlreadyExistsException.class,
                failure(AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW)));
        Path ro = file("noperm", new byte[1]);
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("---------"));
        if (!"root".equals(System.getProperty("user.name"))) {
            assertInstanceOf(AccessDeniedException.class, failure(AsyncFile.open(io, ro)));
        }
        try (AsyncFile f = open(p)) {
            // written through a file opened for reading: refused at the call, as the JDK's channels do
            assertThrows(java.nio.channels.NonWritableChannelException.class,
                    () -> f.write(ByteBuffer.allocateDirect(8), 4096));
            assertThrows(java.nio.channels.NonWritableChannelException.class, () -> f.truncate(0));
        }
        try (AsyncFile w = open(p, StandardOpenOption.WRITE)) {
            assertThrows(java.nio.channels.NonReadableChannelException.class,
                    () -> w.read(ByteBuffer.allocateDirect(8), 0));
        }
        try (AsyncFile d = open(dir)) {
            // an errno the JDK has no exception for: typed, with operation, path and offset
            Throwable t = failure(d.read(ByteBuffer.allocateDirect(8), 4096));
            FileIOException e = assertInstanceOf(FileIOException.class, t);
            assertEquals("EISDIR", e.errnoName());
            assertEquals("READ", e.operation());
            assertEquals(4096, e.offset());
            assertTrue(e.getMessage().startsWith("EISDIR during READ of " + dir.toAbsolutePath() + " at 4096"),
                    e.getMessage());
        }
        assertThrows(UnsupportedOperationException.class,
                () -> AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
    }

    @Test
    void metadataOperations() throws Exception {
        Path p = dir.resolve("meta");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.DSYNC)) {
            assertEquals(0L, get(f.size()));
            get(f.allocate(0, 1 << 20));
            assertEquals(1L << 20, get(f.size()));
            get(f.truncate(5000));
            assertEquals(5000L, get(f.size()));
            get(f.advise(0, 0, Advice.SEQUENTIAL));
            get(f.write(direct(pattern(5000, 12)), 0));
            get(f.syncRange(0, 5000));
            get(f.force(true));
            get(f.force(false));
            // vectored
            ByteBuffer a = ByteBuffer.allocateDirect(1000);
            ByteBuffer b = ByteBuffer.allocateDirect(3000);
            assertEquals(4000L, get(f.read(new ByteBuffer[] {a, b}, 500)));
            assertEquals(1000, a.position());
            assertEquals(3000, b.position());
            assertEquals(pattern(5000, 12)[500], a.get(0));
            assertEquals(pattern(5000, 12)[1500], b.get(0));
            a.flip();
            b.flip();
            assertEquals(4000L, get(f.write(new ByteBuffer[] {b, a}, 10_000)));
            assertEquals(14_000L, get(f.size()));
        }
        assertEquals(14_000, Files.size(p));
    }

    @Test
    void handlerVariantReportsResultsAndAttachment() throws Exception {
        Path p = file("handler", pattern(8192, 13));
        try (AsyncFile f = open(p)) {
            CountDownLatch done = new CountDownLatch(3);
            List<Object> results = java.util.Collections.synchronizedList(new ArrayList<>());
            CompletionHandler<Object, String> h = new CompletionHandler<>() {
                @Override
                public void completed(Object result, String att) {
                    results.add(att + "=" + result);
                    done.countDown();
                }

                @Override
                public void failed(Throwable exc, String att) {
                    results.add(att + "!" + exc);
                    done.countDown();
                }
            };
            f.read(ByteBuffer.allocateDirect(4096), 0, "read", as(h));
            f.size("size", as(h));
            f.readFully(ByteBuffer.allocateDirect(4096), 8000, "eof", as(h));
            assertTrue(done.await(30, TimeUnit.SECONDS));
            assertTrue(results.contains("read=4096"), results.toString());
            assertTrue(results.contains("size=8192"), results.toString());
            assertTrue(results.stream().anyMatch(s -> s.toString().startsWith("eof!java.io.EOFException")),
                    results.toString());
        }
    }

    @Test
    void registeredOptionStillWorks() throws Exception {
        Path p = file("reg", pattern(8192, 14));
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE, FileOption.REGISTERED)) {
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            assertEquals(4096, get(f.readFully(b, 4096)));
            assertEquals(pattern(8192, 14)[4096], b.get(0));
            assertEquals(8192L, get(f.size()));
            assertEquals(10, get(f.write(ByteBuffer.wrap(new byte[10]), 8192)));
            get(f.force(false));
        }
        assertEquals(8202, Files.size(p));
    }

    @Test
    void registeredBufferPoolWorks() throws Exception {
        io.close();
        // every read through the ring: the pool's buffer as READ_FIXED (not the caller's, nor the loop's own of a file
        // in memory, where the test's directory is on tmpfs)
        io = builder().callerReads(false).inlineWriteMax(0).build();
        Path p = file("fixed", pattern(1 << 16, 15));
        try (BufferPool pool = BufferPool.builder().bufferSize(16384).count(4).register(io).build();
                AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertEquals(backend() == Backend.IO_URING, pool.isRegistered(), pool.registrationFailure().toString());
            ByteBuffer b = pool.acquireBuffer();
            assertEquals(16384, get(f.readFully(b, 16384)));
            assertEquals(pattern(1 << 16, 15)[16384], b.get(0));
            b.flip();
            assertEquals(16384, get(f.writeFully(b, 1 << 16)));
            pool.release(b);
            assertEquals(4, pool.available());
            if (backend() == Backend.IO_URING) {
                // The read goes as READ_FIXED; the buffered write as WRITE_FIXED or, on a file system that cannot
                // take it without blocking (ext4), as a write the loop makes itself.
                UringBackend u = (UringBackend) io.backend;
                assertTrue(u.fixedOps() >= 1, "READ_FIXED used: " + u.fixedOps());
                assertTrue(u.fixedOps() + u.inlineWrites() >= 2, "READ_FIXED/WRITE_FIXED used: " + u.fixedOps()
                        + ", writes made by the loop: " + u.inlineWrites());
            }
        }
        byte[] disk = Files.readAllBytes(p);
        assertArrayEquals(java.util.Arrays.copyOfRange(disk, 16384, 32768),
                java.util.Arrays.copyOfRange(disk, 65536, 65536 + 16384));
    }

    @Test
    void closeOfExecutorClosesItsFiles() throws Exception {
        Path p = file("owned", pattern(10, 16));
        AsyncFile f = open(p);
        assertTrue(TestFiles.fdTargets().stream().anyMatch(s -> s.endsWith("/owned")));
        io.close();
        assertFalse(f.isOpen());
        assertFalse(TestFiles.fdTargets().stream().anyMatch(s -> s.endsWith("/owned")), TestFiles.fdTargets()::toString);
        f.close();
    }

    @Test
    void asyncCloseFailsOperationsOnTheFileNotTheExecutor() throws Exception {
        Path p = file("ac", pattern(10, 18));
        AsyncFile f = open(p);
        f.closeAsync();
        Throwable t = failure(f.read(ByteBuffer.allocateDirect(10), 0));
        assertTrue(t instanceof ClosedChannelException, String.valueOf(t));
        assertTrue(t instanceof AsynchronousCloseException || t.getClass() == ClosedChannelException.class);
        get(f.closeAsync());
        try (AsyncFile g = open(p)) {
            assertEquals(10, get(g.read(ByteBuffer.allocateDirect(10), 0)));
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static <V> CompletionHandler<V, String> as(CompletionHandler h) {
        return h;
    }

    /**
     * A read reported timed out delivers nothing afterwards, though its call may still end with bytes (the threads
     * backend cannot stop its {@code pread}): the buffer's position stays where it was and a heap buffer's array is
     * not written; a read that succeeds moves the bytes and the position. Before, the threads backend advanced the
     * position after the timeout was reported (and would have copied into a heap buffer the caller had taken back).
     * On the threads backend no zero-timeout read or write (200 of 4 KiB) succeeds (before, about half did, some of
     * them 2-22 ms late, when its timer's thread lagged behind the workers; found by a hostile probe).
     */
    @Test
    void aReadReportedTimedOutDeliversNothingAfterwards() throws Exception {
        byte[] data = pattern(4096, 45);
        Path p = file("timed-deliver", data);
        try (AsyncFile f = open(p)) {
            int timedOut = 0;
            for (int i = 0; i < 40; i++) {
                ByteBuffer b = i % 2 == 0 ? ByteBuffer.allocate(4096) : ByteBuffer.allocateDirect(4096);
                for (int j = 0; j < 4096; j++) {
                    b.put(j, (byte) 0x5A);
                }
                Throwable t = failure(f.withTimeout(java.time.Duration.ZERO).read(b, 0));
                UringExecutorTest.waitIdle(io);
                if (t == null) {
                    assertEquals(4096, b.position());
                    byte[] got = new byte[4096];
                    b.get(0, got);
                    assertArrayEquals(data, got);
                } else {
                    assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, t);
                    timedOut++;
                    assertEquals(0, b.position(), "a timed-out read moved the position");
                    if (b.hasArray()) {
                        for (int j = 0; j < 4096; j++) {
                            assertEquals((byte) 0x5A, b.get(j), "a timed-out read wrote into the heap buffer at " + j);
                        }
                    }
                }
            }
            System.out.println(backend() + ": " + timedOut + " of 40 zero-timeout reads timed out");
            if (backend() == Backend.THREADS) {
                // its deadline has passed when a worker takes it: never a success, however soon the call would end
                assertEquals(40, timedOut, "zero-timeout reads the threads backend reported as successes");
                try (AsyncFile w = open(p, StandardOpenOption.WRITE)) {
                    for (int i = 0; i < 200; i++) {
                        Throwable t = failure(w.withTimeout(java.time.Duration.ZERO).write(ByteBuffer.wrap(data), 0));
                        assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, t,
                                "zero-timeout write " + i);
                    }
                    UringExecutorTest.waitIdle(io);
                }
            }
        }
    }

    /**
     * A completion handler that blocks for as long as it likes holds its own thread (an event loop, or a worker),
     * and no more: closing its file and then its executor from another thread return (after about two seconds
     * without progress there, with a warning) instead of waiting for it for ever; once the handler returns, the
     * loop finishes what the closes started and no descriptor is left. Before, both closes waited for the handler on
     * io_uring.
     */
    @Test
    void closesDoNotWaitForEverForAHandlerThatBlocks() throws Exception {
        Path p = file("held", pattern(4096, 46));
        int before = TestFiles.openFds();
        HeldHandler held = new HeldHandler();
        AsyncFile f = open(p);
        f.read(ByteBuffer.allocateDirect(16), 0, null, held);
        assertTrue(held.entered.await(30, TimeUnit.SECONDS));
        CompletableFuture<Integer> queued = f.read(ByteBuffer.allocateDirect(16), 0);
        try {
            CompletableFuture<Void> closes = CompletableFuture.runAsync(() -> {
                try {
                    f.close();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                io.close();
            });
            get(closes.orTimeout(60, TimeUnit.SECONDS));
            assertFalse(f.isOpen());
            assertThrows(IllegalStateException.class, () -> AsyncFile.open(io, p), "the executor is closed");
        } finally {
            held.release();
        }
        Throwable q = failure(queued);
        assertTrue(q == null || q instanceof java.nio.channels.AsynchronousCloseException
                || q instanceof ClosedChannelException, String.valueOf(q));
        // The file's descriptor goes, and on io_uring the ring's too, once the loop has finished the closes.
        int after = before - (backend() == Backend.IO_URING ? 1 : 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (TestFiles.openFds() > after && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(TestFiles.openFds() <= after, "descriptors left: " + TestFiles.fdTargets());
        assertFalse(TestFiles.fdTargets().toString().contains(p.toString()), TestFiles.fdTargets().toString());
    }

    /**
     * A write of 128 MiB into the page cache through a view with a 2 ms timeout, three times: it fails with
     * {@code InterruptedByTimeoutException} (the write itself takes tens of milliseconds) and goes on to its end where
     * the kernel cannot stop it; nothing is left in flight afterwards. Before, on io_uring, whose kernel worker makes
     * such a write to its end, it succeeded 27-317 ms later, 5 of 5 times (found by a hostile probe).
     */
    @Test
    void aTimedWriteTheKernelCannotStopStillTimesOutOnTime() throws Exception {
        Path p = dir.resolve("timed-big");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer big = ByteBuffer.allocateDirect(128 << 20);
            for (int round = 0; round < 3; round++) {
                Throwable t = failure(f.withTimeout(java.time.Duration.ofMillis(2)).write(big.clear(), 0));
                assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, t, "round " + round);
                assertEquals(0, big.position(), "a timed-out write moves no position");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (io.inFlight() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertEquals(0, io.inFlight(), "the write left in flight");
                get(f.truncate(0));
            }
        }
    }

    /** Per-operation timeout: io_uring attaches LINK_TIMEOUT; the threads backend reports it from a timer. */
    @Test
    void readWithTimeoutFailsWithInterruptedByTimeout() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoT");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Throwable t = failure(f.withTimeout(java.time.Duration.ofMillis(50)).read(ByteBuffer.allocateDirect(8), 0));
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, t);
            // the JDK's type takes no message: its cause says what timed out
            assertInstanceOf(java.util.concurrent.TimeoutException.class, t.getCause());
            assertEquals("READ of " + fifo + " at 0 did not end within its timeout of 50 ms", t.getCause().getMessage());
            CompletableFuture<Integer> viaHandler = new CompletableFuture<>();
            f.withTimeout(java.time.Duration.ofMillis(50)).read(ByteBuffer.allocateDirect(8), 0, "h",
                    TestFiles.into(viaHandler));
            Throwable h = failure(viaHandler);
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, h);
            assertEquals("READ of " + fifo + " at 0 did not end within its timeout of 50 ms", h.getCause().getMessage());
            // Unblock threads-backend workers still sitting in read(2), one byte at a time.
            try (var w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                for (int i = 0; i < 500 && io.inFlight() > 0; i++) {
                    w.write(ByteBuffer.wrap(new byte[1]));
                    Thread.sleep(10);
                }
            }
            assertEquals(0, io.inFlight());
            Path p = file("regularT", new byte[100]);
            try (AsyncFile g = open(p)) {
                assertEquals(100, get(g.withTimeout(java.time.Duration.ofSeconds(10)).read(ByteBuffer.allocateDirect(200), 0)));
            }
        }
    }

    /**
     * {@code readFully} and {@code writeFully} through a timed view: a FIFO that gives half of what a full read asks
     * and then nothing times the read out; a full write into a FIFO nobody drains times out, and what it put in is a
     * prefix of its bytes; on a regular file both move every byte, buffers and segments, futures and handlers.
     */
    @Test
    void fullReadsAndWritesOfATimedViewTimeOut() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoFull");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
                var w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
            AsyncFile.Timed timed = f.withTimeout(java.time.Duration.ofMillis(100));
            assertEquals(f, timed.file());
            assertEquals(java.time.Duration.ofMillis(100), timed.timeout());
            w.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class,
                    failure(timed.readFully(ByteBuffer.allocateDirect(8), 0)));
            for (int i = 0; i < 500 && io.inFlight() > 0; i++) { // a threads-backend worker still in read(2)
                w.write(ByteBuffer.wrap(new byte[1]));
                Thread.sleep(10);
            }
            assertEquals(0, io.inFlight());
        }
        Path full = TestFiles.fifo(dir, "fifoFullWrite");
        try (AsyncFile f = open(full, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            byte[] data = pattern(1 << 20, 41); // more than a pipe holds
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class,
                    failure(f.withTimeout(java.time.Duration.ofMillis(100)).writeFully(direct(data), 0)));
            // drain what the write put in (a threads-backend worker may still be writing: drain until it is done)
            java.io.ByteArrayOutputStream drained = new java.io.ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocateDirect(65536);
            for (int quiet = 0; quiet < 3; ) {
                CompletableFuture<Integer> read = f.withTimeout(java.time.Duration.ofMillis(50)).read(b.clear(), 0);
                Throwable t = failure(read);
                if (t != null) {
                    assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, t);
                    quiet = io.inFlight() == 0 ? quiet + 1 : 0;
                    continue;
                }
                byte[] got = new byte[read.join()];
                b.flip().get(got);
                drained.writeBytes(got);
            }
            byte[] all = drained.toByteArray();
            assertTrue(all.length > 0 && all.length < data.length, "a pipe's worth went in: " + all.length);
            assertArrayEquals(java.util.Arrays.copyOf(data, all.length), all, "the write's bytes, in order");
        }
        Path p = dir.resolve("timedFull");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            AsyncFile.Timed timed = f.withTimeout(java.time.Duration.ofSeconds(30));
            byte[] data = pattern(300_000, 43);
            assertEquals(data.length, get(timed.writeFully(direct(data), 0)));
            try (Arena a = Arena.ofShared()) {
                MemorySegment s = a.allocate(1000);
                MemorySegment.copy(data, 0, s, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, 1000);
                CompletableFuture<Integer> viaHandler = new CompletableFuture<>();
                timed.writeFully(s, data.length, null, TestFiles.into(viaHandler));
                assertEquals(1000, get(viaHandler));
            }
            ByteBuffer back = ByteBuffer.allocateDirect(data.length);
            assertEquals(data.length, get(timed.readFully(back, 0)));
            byte[] got = new byte[data.length];
            back.flip().get(got);
            assertArrayEquals(data, got);
            try (Arena a = Arena.ofShared()) {
                MemorySegment s = a.allocate(1000);
                CompletableFuture<Integer> viaHandler = new CompletableFuture<>();
                timed.readFully(s, data.length, null, TestFiles.into(viaHandler));
                assertEquals(1000, get(viaHandler));
                assertArrayEquals(java.util.Arrays.copyOf(data, 1000), s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
            assertInstanceOf(java.io.EOFException.class,
                    failure(timed.readFully(ByteBuffer.allocateDirect(10), data.length + 995)));
        }
    }

    /** Offsets are longs: a sparse file written and read past 4 GiB lands where asked. */
    @Test
    void offsetsPastFourGiB() throws Exception {
        Path p = dir.resolve("sparse");
        long far = (5L << 30) + 12345;
        try (AsyncFile f = open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.SPARSE)) {
            byte[] data = pattern(3000, 23);
            assertEquals(3000, get(f.writeFully(direct(data), far)));
            assertEquals(far + 3000, get(f.size()));
            ByteBuffer b = ByteBuffer.allocateDirect(3000);
            assertEquals(3000, get(f.readFully(b, far)));
            byte[] back = new byte[3000];
            b.flip().get(back);
            assertArrayEquals(data, back);
            ByteBuffer zero = ByteBuffer.allocate(16);
            assertEquals(16, get(f.read(zero, 1L << 32)));
            assertArrayEquals(new byte[16], zero.array());
        }
        try (var ch = java.nio.channels.FileChannel.open(p)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, far);
            assertEquals(pattern(3000, 23)[0], b.get(0));
        }
    }

    // ------------------------------------------------------------------------------------------ readFile

    @Test
    void readFileReadsWholeFilesOfEverySizeIntoEveryKindOfMemory() throws Exception {
        for (int size : new int[] {0, 1, 4095, 4096, 100_000}) {
            byte[] data = pattern(size, size + 3);
            Path p = file("whole" + size, data);
            ByteBuffer direct = ByteBuffer.allocateDirect(size + 10).position(5);
            assertEquals(size, get(AsyncFile.readFile(io, p, direct)));
            assertEquals(5 + size, direct.position(), "the buffer's position advances by the count");
            byte[] back = new byte[size];
            direct.get(5, back);
            assertArrayEquals(data, back);
            ByteBuffer heap = ByteBuffer.allocate(size + 1);
            assertEquals(size, get(AsyncFile.readFile(io, p, heap)));
            assertArrayEquals(data, java.util.Arrays.copyOf(heap.array(), size));
            MemorySegment seg = java.lang.foreign.Arena.ofAuto().allocate(size + 1);
            assertEquals(size, get(AsyncFile.readFile(io, p, seg)));
            assertArrayEquals(data, seg.asSlice(0, size).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void readFileOfAFileLargerThanTheBufferFillsTheBuffer() throws Exception {
        byte[] data = pattern(10_000, 31);
        Path p = file("larger", data);
        ByteBuffer b = ByteBuffer.allocateDirect(4096);
        assertEquals(4096, get(AsyncFile.readFile(io, p, b)));
        assertFalse(b.hasRemaining());
        byte[] back = new byte[4096];
        b.flip().get(back);
        assertArrayEquals(java.util.Arrays.copyOf(data, 4096), back);
    }

    @Test
    void readFileFailuresSayWhatFailedWhere() throws Exception {
        Path missing = dir.resolve("missing");
        // The open fails as AsyncFile.open's does (the JDK's exception types), the read with the errno.
        Throwable t = failure(AsyncFile.readFile(io, missing, ByteBuffer.allocateDirect(16)));
        assertInstanceOf(NoSuchFileException.class, t);
        assertEquals(missing.toString(), ((NoSuchFileException) t).getFile());
        Path sub = Files.createDirectory(dir.resolve("sub"));
        t = failure(AsyncFile.readFile(io, sub, ByteBuffer.allocateDirect(16)));
        assertInstanceOf(FileIOException.class, t);
        assertTrue(t.getMessage().contains("EISDIR") && t.getMessage().contains(sub.toString()), t.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> AsyncFile.readFile(io, missing, ByteBuffer.allocateDirect(16).asReadOnlyBuffer()));
        assertThrows(NullPointerException.class, () -> AsyncFile.readFile(io, missing, (ByteBuffer) null));
    }

    @Test
    void manyReadFilesAtOnceLeakNoDescriptorAndEveryOneIsRight() throws Exception {
        // More at once than registered slots (4 here): the rest take the open-then-read way; none may leak.
        io.close();
        io = builder().registeredFiles(4).inFlightLimit(1024).build();
        int n = 300;
        Path[] paths = new Path[n];
        for (int i = 0; i < n; i++) {
            paths[i] = file("many" + i, pattern(100 + i * 37, i));
        }
        int before = TestFiles.openFds();
        for (int round = 0; round < 3; round++) {
            List<CompletableFuture<Integer>> all = new ArrayList<>();
            List<ByteBuffer> bufs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ByteBuffer b = ByteBuffer.allocateDirect(20_000);
                bufs.add(b);
                all.add(AsyncFile.readFile(io, paths[i], b));
            }
            for (int i = 0; i < n; i++) {
                int size = 100 + i * 37;
                assertEquals(size, get(all.get(i)));
                byte[] back = new byte[size];
                bufs.get(i).flip().get(back);
                assertArrayEquals(pattern(size, i), back);
            }
        }
        assertEquals(before, TestFiles.openFds(), "descriptors left open: " + TestFiles.fdTargets());
    }

    // ------------------------------------------------------------------------------------------ transferTo

    @Test
    void transferToCopiesTheRangeAndStopsAtTheEndOfTheSource() throws Exception {
        byte[] data = pattern(3 * (1 << 20) + 12_345, 41);
        Path src = file("copy-src", data);
        Path dst = dir.resolve("copy-dst");
        try (AsyncFile in = open(src);
                AsyncFile out = open(dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertEquals((long) data.length, get(in.transferTo(0, data.length, out, 0)));
            assertEquals(100L, get(in.transferTo(1000, 100, out, data.length)));
            assertEquals(12L, get(in.transferTo(data.length - 12, 1 << 20, out, data.length + 100)), "to the end");
            assertEquals(0L, get(in.transferTo(data.length + 5, 10, out, 0)), "past the end");
            assertEquals(0L, get(in.transferTo(0, 0, out, 0)));
        }
        byte[] got = Files.readAllBytes(dst);
        assertEquals(data.length + 112, got.length);
        assertArrayEquals(data, java.util.Arrays.copyOf(got, data.length));
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 1000, 1100),
                java.util.Arrays.copyOfRange(got, data.length, data.length + 100));
        assertArrayEquals(java.util.Arrays.copyOfRange(data, data.length - 12, data.length),
                java.util.Arrays.copyOfRange(got, data.length + 100, data.length + 112));
    }

    /**
     * A copy of a file onto its own end with no count to speak of ({@code Long.MAX_VALUE}) copies the size the file
     * had when the copy started, as the JDK's {@code transferTo} does; it ran on until the disk was full.
     */
    @Test
    void transferToOntoItsOwnEndCopiesTheSizeItHadAtTheStart() throws Exception {
        byte[] data = pattern((1 << 20) + 4321, 44);
        Path p = file("copy-self", data);
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertEquals((long) data.length, get(f.transferTo(0, Long.MAX_VALUE, f, data.length)));
            assertEquals(2L * data.length, get(f.size()));
            assertEquals(100L, get(f.transferTo(2L * data.length - 100, Long.MAX_VALUE, f, 2L * data.length)));
        }
        // A file that says it is empty is read until it ends.
        Path copy = dir.resolve("copy-proc");
        try (AsyncFile proc = open(Path.of("/proc/self/mounts"));
                AsyncFile out = open(copy, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertEquals(0L, get(proc.size()));
            long n = get(proc.transferTo(0, Long.MAX_VALUE, out, 0));
            assertTrue(n > 0, "bytes copied from /proc/self/mounts: " + n);
            assertEquals(n, Files.size(copy));
        }
        byte[] got = Files.readAllBytes(p);
        assertEquals(2 * data.length + 100, got.length);
        assertArrayEquals(data, java.util.Arrays.copyOfRange(got, 0, data.length));
        assertArrayEquals(data, java.util.Arrays.copyOfRange(got, data.length, 2 * data.length));
        assertArrayEquals(java.util.Arrays.copyOfRange(data, data.length - 100, data.length),
                java.util.Arrays.copyOfRange(got, 2 * data.length, got.length));
    }

    @Test
    void transferToSurvivesClosingBothFilesAndLeaksNoDescriptor() throws Exception {
        byte[] data = pattern(8 << 20, 43);
        Path src = file("copy-close-src", data);
        Path dst = dir.resolve("copy-close-dst");
        int before = TestFiles.openFds();
        AsyncFile in = open(src);
        AsyncFile out = open(dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        CompletableFuture<Long> copy = in.transferTo(0, data.length, out, 0);
        in.close();
        out.close();
        assertEquals((long) data.length, get(copy));
        assertArrayEquals(data, Files.readAllBytes(dst));
        assertEquals(before, TestFiles.openFds(), "descriptors left: " + TestFiles.fdTargets());
    }

    @Test
    void aLargeTransferToIsCopiedByPiecesIntoPlaceEvenWithBothFilesClosed() throws Exception {
        // large enough to be split over several threads (io.github.uring4j.engine.KernelCopy), and not in whole pieces
        int n = (int) (2 * KernelCopy.PIECE) + 12_345;
        byte[] data = pattern(n, 45);
        Path src = file("copy-large-src", data);
        TestFiles.evict(src); // a copy from the device is the one that is split
        Path dst = dir.resolve("copy-large-dst");
        Files.write(dst, pattern(1000, 46));
        int before = TestFiles.openFds();
        AsyncFile in = open(src);
        AsyncFile out = open(dst, StandardOpenOption.WRITE);
        CompletableFuture<Long> copy = in.transferTo(7, Long.MAX_VALUE / 2, out, 500);
        in.close();
        out.close();
        assertEquals((long) n - 7, get(copy), "up to the end of the source");
        byte[] got = Files.readAllBytes(dst);
        assertEquals(500 + n - 7, got.length);
        assertArrayEquals(java.util.Arrays.copyOf(pattern(1000, 46), 500), java.util.Arrays.copyOf(got, 500));
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 7, n), java.util.Arrays.copyOfRange(got, 500, got.length));
        assertEquals(before, TestFiles.openFds(), "descriptors left: " + TestFiles.fdTargets());
    }

    /**
     * A copy onto a full disk ends with the bytes it copied, as the JDK's transfers do (it failed with {@code ENOSPC},
     * and the caller learnt how much was copied only from the message), the target holds them and nothing past them,
     * and the next copy, from there, fails with {@code ENOSPC}.
     */
    @Test
    void aTransferToOntoAFullDiskSaysWhatItCopiedAndTheNextFailsWithENOSPC() throws Exception {
        Path fs = TestFiles.smallFileSystem(dir, 100L << 20);
        try {
            int n = (int) (2 * KernelCopy.PIECE) + (6 << 20);
            byte[] data = pattern(n, 47);
            Path src = Files.write(fs.resolve("src"), data);
            TestFiles.evict(src); // from the device: the copy is split
            Path dst = fs.resolve("dst");
            long copied;
            try (AsyncFile in = open(src);
                    AsyncFile out = open(dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                copied = get(in.transferTo(0, n, out, 0));
                assertTrue(copied > 0 && copied < n, "copied " + copied + " of " + n);
                Throwable t = failure(in.transferTo(copied, n - copied, out, copied));
                FileIOException e = assertInstanceOf(FileIOException.class, t);
                assertEquals(Errno.ENOSPC, e.errno(), e.getMessage());
            }
            long size = Files.size(dst);
            assertEquals(copied, size, "the target holds what the copy said it copied");
            assertArrayEquals(java.util.Arrays.copyOf(data, (int) size), Files.readAllBytes(dst),
                    "what was copied, and nothing past it");
        } finally {
            TestFiles.unmount(fs);
        }
    }

    /**
     * Writes onto a full disk (a 32 MiB file system of the test's own, skipped where none can be mounted), through
     * the loop's own writes and, on io_uring, through the ring's workers ({@code inlineWriteMax(0)}): {@code write},
     * {@code writeFully} and {@code writeAndSync} each fail with {@code ENOSPC} naming the file and the offset; the
     * file holds what the writes said they wrote, and once there is room again the same file takes writes.
     */
    @Test
    void writesOntoAFullDiskFailWithENOSPCAndTheFileTakesWritesOnceThereIsRoomAgain() throws Exception {
        Path fs = TestFiles.smallFileSystem(dir, 32L << 20);
        List<IoExecutor> executors = new ArrayList<>(List.of(io));
        if (backend() == Backend.IO_URING) {
            executors.add(builder().inlineWriteMax(0).build());
        }
        try {
            byte[] chunk = pattern(1 << 20, 48);
            for (IoExecutor x : executors) {
                String how = x == io ? backend() + "" : "the ring's workers";
                Path room = Files.write(fs.resolve("room"), new byte[4 << 20]);
                Path p = fs.resolve("f");
                try (AsyncFile f = get(AsyncFile.open(x, p, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
                    long written = 0;
                    Throwable full = null;
                    for (int i = 0; i < 64 && full == null; i++) {
                        CompletableFuture<Integer> w = f.write(direct(chunk), written);
                        full = failure(w);
                        written += full == null ? w.join() : 0;
                    }
                    FileIOException e = assertInstanceOf(FileIOException.class, full, how + ": 64 MiB on 32 MiB");
                    assertEquals(Errno.ENOSPC, e.errno(), how + ": " + e.getMessage());
                    assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains(" at " + written),
                            how + ": the message names the file and the offset: " + e.getMessage());
                    assertEquals(written, Files.size(p), how + ": the file is as long as what was written");
                    for (CompletableFuture<Integer> w : List.of(f.writeFully(direct(chunk), written),
                            f.writeAndSync(direct(chunk), written))) {
                        FileIOException again = assertInstanceOf(FileIOException.class, failure(w), how);
                        assertEquals(Errno.ENOSPC, again.errno(), how + ": " + again.getMessage());
                    }
                    ByteBuffer last = ByteBuffer.allocateDirect(1 << 20);
                    long lastStart = (written - 1) / chunk.length * chunk.length;
                    get(f.readFully(last.limit((int) (written - lastStart)), lastStart));
                    assertArrayEquals(java.util.Arrays.copyOf(chunk, last.flip().remaining()), bytes(last),
                            how + ": the last bytes written are on the disk");
                    Files.delete(room);
                    assertEquals(chunk.length, get(f.writeFully(direct(chunk), written)), how + ": room again");
                    ByteBuffer back = ByteBuffer.allocateDirect(chunk.length);
                    get(f.readFully(back, written));
                    assertArrayEquals(chunk, bytes(back.flip()), how);
                }
                Files.delete(p);
            }
        } finally {
            for (IoExecutor x : executors) {
                if (x != io) {
                    x.close();
                }
            }
            TestFiles.unmount(fs);
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    @Test
    void transferToRefusesBadArgumentsAndClosedFiles() throws Exception {
        Path src = file("copy-bad", pattern(100, 44));
        try (AsyncFile in = open(src); AsyncFile ro = open(src)) {
            assertThrows(IllegalArgumentException.class, () -> in.transferTo(-1, 1, ro, 0));
            assertThrows(IllegalArgumentException.class, () -> in.transferTo(0, -1, ro, 0));
            assertThrows(IllegalArgumentException.class, () -> in.transferTo(0, 1, ro, -1));
            assertThrows(java.nio.channels.NonWritableChannelException.class, () -> in.transferTo(0, 1, ro, 0));
            assertThrows(NullPointerException.class, () -> in.transferTo(0, 1, null, 0));
            try (AsyncFile wo = open(dir.resolve("copy-wo"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                assertThrows(java.nio.channels.NonReadableChannelException.class, () -> wo.transferTo(0, 1, in, 0));
                AsyncFile closed = open(src);
                closed.close();
                assertInstanceOf(ClosedChannelException.class, failure(closed.transferTo(0, 1, wo, 0)));
            }
        }
    }
}
