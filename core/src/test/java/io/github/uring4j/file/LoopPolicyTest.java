package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.failure;
import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.uring.UringBackend;
import io.github.uring4j.linux.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a loop decides for itself: buffered writes it makes itself (the kernel would otherwise hand them to its io-wq
 * workers: the same bytes, results and errors as through the ring, never recursion, never for pipes or
 * {@code O_DIRECT}), the bound on page-cache bytes in flight, and the per-device budget of {@code O_DIRECT}
 * operations.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoopPolicyTest {
    @TempDir
    Path dir;

    private static long inline(IoExecutor io) {
        return ((UringBackend) io.backend).inlineWrites();
    }

    private static long inlineSyncs(IoExecutor io) {
        return ((UringBackend) io.backend).inlineSyncs();
    }

    private static long inlineSizes(IoExecutor io) {
        return ((UringBackend) io.backend).inlineSizes();
    }

    private static long inlineOpens(IoExecutor io) {
        return ((UringBackend) io.backend).inlineOpens();
    }

    private static long blocked(IoExecutor io) {
        return io.backend.stats().slowLoopCalls();
    }

    /** One record at a time: write then force, writeAndSync, force with metadata; the file read back. */
    private byte[] syncedRecords(IoExecutor io, Path p) throws Exception {
        byte[] expect = new byte[3 * 4096];
        new Random(5).nextBytes(expect);
        try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            assertEquals(4096, get(f.write(ByteBuffer.allocateDirect(4096).put(0, expect, 0, 4096), 0)));
            get(f.force(false));
            assertEquals(4096, get(f.writeAndSync(ByteBuffer.allocateDirect(4096).put(0, expect, 4096, 4096), 4096)));
            assertEquals(4096, get(f.writeAndSync(ByteBuffer.allocateDirect(4096).put(0, expect, 8192, 4096), 8192)));
            get(f.force(true));
        }
        return expect;
    }

    @Test
    void syncsOfAnIdleLoopAreMadeByTheLoop() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build()) {
            Path p = dir.resolve("synced");
            byte[] expect = syncedRecords(io, p);
            assertArrayEquals(expect, Files.readAllBytes(p));
            // force, two writeAndSync and force again, each alone on the loop
            assertEquals(4, inlineSyncs(io), "syncs made by the loop");
        }
    }

    /**
     * A file in memory (tmpfs at {@code /dev/shm}; skipped where there is none): tmpfs refuses {@code RWF_NOWAIT}, so
     * io_uring would hand each read to an io-wq worker. Handler reads (at, across and past the end) are made by the
     * loop itself, with the ring's results; future reads on the caller's thread; with {@code inlineWriteMax(0)} the
     * ring makes them all. A file on the test's own file system is read through the ring as before.
     */
    @Test
    void readsOfAFileInMemoryAreMadeByTheLoopOrTheCallerNotAnIoWqWorker() throws Exception {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.getFileStore(shm).type().equals("tmpfs"),
                "no tmpfs at /dev/shm");
        Path p = Files.createTempFile(shm, "uring4j-inmemory", ".bin");
        try {
            byte[] data = new byte[3 * 4096 + 100];
            new Random(8).nextBytes(data);
            Files.write(p, data);
            for (int max : new int[] {1 << 20, 0}) {
                try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(max).build();
                        AsyncFile f = get(AsyncFile.open(io, p))) {
                    long before = ((UringBackend) io.backend).inlineReads();
                    for (long at : new long[] {0, 4096, 3 * 4096, 3 * 4096 + 100, 1 << 20}) {
                        ByteBuffer b = ByteBuffer.allocateDirect(4096);
                        int want = at >= data.length ? -1 : (int) Math.min(4096, data.length - at);
                        assertEquals(want, handlerRead(f, b, at), "read at " + at);
                        if (want > 0) {
                            assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) at, (int) at + want),
                                    java.util.Arrays.copyOf(bytes(b.flip()), want), "bytes at " + at);
                        }
                    }
                    long loopMade = ((UringBackend) io.backend).inlineReads() - before;
                    assertEquals(max == 0 ? 0 : 5, loopMade, "reads the loop made itself, inlineWriteMax " + max);
                    ByteBuffer b = ByteBuffer.allocateDirect(4096);
                    CompletableFuture<Integer> read = f.read(b, 4096);
                    assertTrue(read.isDone(), "a future read is made on the caller's thread");
                    assertEquals(4096, get(read));
                    assertArrayEquals(java.util.Arrays.copyOfRange(data, 4096, 8192), bytes(b.flip()));
                }
            }
        } finally {
            Files.deleteIfExists(p);
        }
        // A FIFO in memory is no file of bytes in memory: its read waits in the ring for a writer, not in the loop.
        Path fifo = TestFiles.fifo(shm, "uring4j-inmemory-fifo-" + ProcessHandle.current().pid());
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build();
                AsyncFile q = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            CompletableFuture<Integer> n = new CompletableFuture<>();
            ByteBuffer b = ByteBuffer.allocateDirect(3);
            q.read(b, 0, null, TestFiles.into(n));
            assertEquals(0L, get(q.size()), "the loop answers while the read waits");
            assertFalse(n.isDone(), "a FIFO's read with nothing written");
            try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("abc".getBytes()));
            }
            assertEquals(3, get(n));
            assertArrayEquals("abc".getBytes(), bytes(b.flip()));
            assertEquals(0, ((UringBackend) io.backend).inlineReads(), "not a regular file");
        } finally {
            Files.deleteIfExists(fifo);
        }
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build()) {
            UringBackend u = (UringBackend) io.backend;
            for (int i = 0; i < 3; i++) {
                Path onDisk = dir.resolve("on-disk-" + i);
                Files.write(onDisk, new byte[4096]);
                try (AsyncFile f = get(AsyncFile.open(io, onDisk))) {
                    assertEquals(4096, handlerRead(f, ByteBuffer.allocateDirect(4096), 0));
                }
            }
            String type = Files.getFileStore(dir).type();
            if (!type.equals("tmpfs") && !type.equals("overlay")) { // those the loop reads itself
                assertEquals(0, u.inlineReads(), "a file on disk is read by the ring");
                // the first file's file system said its directory is on disk: the next two are not asked
                assertEquals(1, u.fileSystemsAsked(), "fstatfs calls for three files of one directory on disk");
                Path other = Files.createDirectories(dir.resolve("sub")).resolve("elsewhere");
                Files.write(other, new byte[4096]);
                try (AsyncFile f = get(AsyncFile.open(io, other))) {
                    assertEquals(4096, handlerRead(f, ByteBuffer.allocateDirect(4096), 0));
                }
                assertEquals(2, u.fileSystemsAsked(), "a file of another directory is asked");
            }
        }
    }

    /**
     * A file of an overlayfs (a container's own file system; one of the test's own, skipped where none can be
     * mounted). Overlayfs refuses {@code RWF_NOWAIT}, so io_uring would hand each read to an io-wq worker: the loop
     * reads it itself when {@code mincore} of a mapping of the file says every page is cached, and leaves the rest to
     * the ring. Reads of pages just written, then dropped from the cache, then read back; every result and byte as the
     * ring's.
     */
    @Test
    void readsOfAnOverlayFileInThePageCacheAreMadeByTheLoopOthersByTheRing() throws Exception {
        Path merged = TestFiles.overlay(dir);
        try {
            Path p = merged.resolve("layered");
            byte[] data = new byte[64 * 1024 + 100];
            new Random(9).nextBytes(data);
            Files.write(p, data); // in the page cache now
            try (IoExecutor io = UringExecutorTest.uring().loops(1).build(); AsyncFile f = get(AsyncFile.open(io, p))) {
                UringBackend u = (UringBackend) io.backend;
                long before = u.inlineReads();
                for (long at : new long[] {0, 4096, 60 * 1024, 64 * 1024 + 100}) {
                    ByteBuffer b = ByteBuffer.allocateDirect(8192);
                    int want = (int) Math.max(-1, Math.min(8192, data.length - at));
                    assertEquals(want == 0 ? -1 : want, handlerRead(f, b, at), "read at " + at);
                    if (want > 0) {
                        assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) at, (int) at + want),
                                bytes(b.flip()), "bytes at " + at);
                    }
                }
                // the last two reach past the end of the file: the ring says where it ends
                assertEquals(2, u.inlineReads() - before, "reads of cached pages the loop made itself");
                TestFiles.evict(p);
                long evicted = u.inlineReads();
                ByteBuffer b = ByteBuffer.allocateDirect(8192);
                assertEquals(8192, handlerRead(f, b, 16384));
                assertArrayEquals(java.util.Arrays.copyOfRange(data, 16384, 16384 + 8192), bytes(b.flip()));
                assertEquals(evicted, u.inlineReads(), "pages out of the cache are read by the ring");
                assertEquals(8192, handlerRead(f, b.clear(), 16384));
                assertEquals(evicted + 1, u.inlineReads(), "and once read, by the loop");
            }
        } finally {
            TestFiles.unmount(merged);
        }
    }

    /** A read through a {@code CompletionHandler}, which the loop delivers (a future's may be the caller's own). */
    private static int handlerRead(AsyncFile f, ByteBuffer b, long at) throws Exception {
        CompletableFuture<Integer> n = new CompletableFuture<>();
        f.read(b, at, null, TestFiles.into(n));
        return get(n);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    @Test
    void createsAndTruncatesOfAnIdleLoopAreMadeByTheLoopWithTheRingsResults() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build()) {
            Path p = dir.resolve("made");
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
                assertEquals(5, get(f.write(ByteBuffer.allocateDirect(5).put(0, "hello".getBytes()), 0)));
            }
            assertEquals(1, inlineOpens(io));
            assertArrayEquals("hello".getBytes(), Files.readAllBytes(p));
            assertInstanceOf(java.nio.file.FileAlreadyExistsException.class,
                    failure(AsyncFile.open(io, p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)));
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE))) {
                assertEquals(0L, get(f.size()));
            }
            assertInstanceOf(java.nio.file.NoSuchFileException.class, failure(AsyncFile.open(io,
                    dir.resolve("no").resolve("such"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)));
            assertEquals(4, inlineOpens(io), "the failed opens were the loop's too");
            get(AsyncFile.open(io, p, StandardOpenOption.READ)).close(); // neither creates nor truncates: the ring's
            assertEquals(4, inlineOpens(io));
        }
        try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(0).build()) {
            get(AsyncFile.open(io, dir.resolve("ring-made"), StandardOpenOption.CREATE, StandardOpenOption.WRITE))
                    .close();
            assertTrue(Files.exists(dir.resolve("ring-made")));
            assertEquals(0, inlineOpens(io), "inlineWriteMax(0): every open through the ring");
        }
    }

    @Test
    void sizesOfAnIdleLoopAreAskedByTheLoopAndAgreeWithTheRings() throws Exception {
        for (int max : new int[] {1 << 20, 0}) {
            try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(max).build()) {
                Path p = dir.resolve("sized" + max);
                Files.write(p, new byte[12345]);
                Path fifo = TestFiles.fifo(dir, "sized-fifo" + max);
                try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE));
                        AsyncFile q = get(AsyncFile.open(io, fifo, StandardOpenOption.READ,
                                StandardOpenOption.WRITE))) {
                    assertEquals(12345L, get(f.size()));
                    get(f.truncate(100));
                    assertEquals(100L, get(f.size()));
                    assertEquals(5, get(f.write(ByteBuffer.allocateDirect(5), 1 << 20)));
                    assertEquals((1L << 20) + 5, get(f.size()));
                    assertEquals(0L, get(q.size()), "a FIFO's size, as statx gives it");
                    f.close();
                    assertInstanceOf(java.nio.channels.ClosedChannelException.class, failure(f.size()));
                }
                assertEquals(max == 0 ? 0 : 4, inlineSizes(io), "sizes the loop asked itself, inlineWriteMax " + max);
            }
        }
    }

    /** For each descriptor of this process open on {@code p}: whether its O_NONBLOCK flag is set (/proc/self/fdinfo). */
    private static java.util.List<Boolean> nonBlocking(Path p) throws java.io.IOException {
        java.util.List<Boolean> out = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                Path target;
                try {
                    target = Files.readSymbolicLink(fd);
                } catch (java.io.IOException gone) {
                    continue; // closed meanwhile (the listing's own descriptor)
                }
                if (!target.equals(p)) {
                    continue;
                }
                for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo", fd.getFileName().toString()))) {
                    if (line.startsWith("flags:")) {
                        out.add((Integer.parseInt(line.substring(6).trim(), 8) & 04000) != 0);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The loop opens without blocking (O_NONBLOCK) and turns the flag off again: the descriptor of a FIFO it opened for
     * reading and writing has the flag off, and its read waits for the bytes written after it; a FIFO opened for
     * writing only, whose reader is not there yet, goes to the ring's worker, which waits for the reader.
     */
    @Test
    void aFifoOpenedByTheLoopWaitsAsOpen2Makes() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo-rw");
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build();
                AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            assertEquals(1, inlineOpens(io));
            assertEquals(java.util.List.of(false), nonBlocking(fifo), "O_NONBLOCK of the descriptors open on the FIFO");
            ByteBuffer b = ByteBuffer.allocateDirect(5);
            CompletableFuture<Integer> r = f.read(b, 0);
            awaitInFlight(io, 1);
            try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("bytes".getBytes()));
            }
            assertEquals(5, get(r));
            byte[] got = new byte[5];
            b.flip().get(got);
            assertArrayEquals("bytes".getBytes(), got);
        }
        Path lonely = TestFiles.fifo(dir, "fifo-w");
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build()) {
            CompletableFuture<AsyncFile> w = AsyncFile.open(io, lonely, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            awaitInFlight(io, 1);
            assertFalse(w.isDone(), "a FIFO opened for writing only waits for its reader");
            try (java.nio.channels.FileChannel reader = java.nio.channels.FileChannel.open(lonely,
                    StandardOpenOption.READ); AsyncFile writer = get(w)) {
                assertEquals(3, get(writer.write(ByteBuffer.allocateDirect(3).put(0, "abc".getBytes()), 0)));
                ByteBuffer in = ByteBuffer.allocate(3);
                while (in.hasRemaining() && reader.read(in) >= 0) {
                    // a FIFO may hand the bytes over in pieces
                }
                assertArrayEquals("abc".getBytes(), in.array());
            }
        }
    }

    @Test
    void zeroMaxSendsEverySyncThroughTheRing() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(0).build()) {
            Path p = dir.resolve("ring-synced");
            byte[] expect = syncedRecords(io, p);
            assertArrayEquals(expect, Files.readAllBytes(p));
            assertEquals(0, inlineSyncs(io));
        }
    }

    /**
     * A timed write whose link timeout fired but whose cancel found the write where it could not stop it (the
     * timeout's result {@code -ENOENT} or {@code -EALREADY} instead of {@code -ETIME}), the write then ending with
     * {@code ECANCELED}: an {@code InterruptedByTimeoutException}, as every timeout (before: {@code FileIOException:
     * ECANCELED during WRITE}; found by a hostile probe, a few times in millions of timed writes under load, the
     * timeout's result {@code -ENOENT}; injected here). A write that ends first is still written.
     */
    @Test
    void aTimeoutThatFiredWhileItsWriteRanIsATimeout() throws Exception {
        for (int timeoutRes : new int[] {-Errno.ENOENT, -Errno.EALREADY}) {
            try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(0).resultFilter(
                    (kind, sub, res, requested) -> kind != Request.WRITE ? res
                            : sub == 2 ? timeoutRes : sub == 0 ? -Errno.ECANCELED : res).build()) {
                Path p = dir.resolve("timed");
                try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                    Throwable t = failure(f.withTimeout(java.time.Duration.ofSeconds(30))
                            .write(ByteBuffer.allocateDirect(4096), 0));
                    assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, t, Errno.name(-timeoutRes));
                }
            }
        }
        try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(0).build();
                AsyncFile f = get(AsyncFile.open(io, dir.resolve("timed-ok"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE))) {
            assertEquals(4096, get(f.withTimeout(java.time.Duration.ofSeconds(30))
                    .write(ByteBuffer.allocateDirect(4096), 0)));
        }
    }

    @Test
    void aFailedSyncOfTheLoopFailsItsRequestAndNothingElse() throws Exception {
        AtomicInteger injected = new AtomicInteger();
        try (IoExecutor io = UringExecutorTest.uring().loops(1).resultFilter((kind, sub, res, requested) -> {
            boolean sync = kind == Request.FSYNC || (kind == Request.WRITE_SYNC && sub == 1);
            if (sync && injected.getAndIncrement() < 2) {
                return -Errno.EIO;
            }
            return res;
        }).build()) {
            Path p = dir.resolve("eio");
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                assertEquals(4096, get(f.write(ByteBuffer.allocateDirect(4096), 0)));
                Throwable forced = failure(f.force(false));
                assertNotNull(forced, "force with an injected EIO");
                assertTrue(forced.getMessage().contains("EIO"), forced.toString());
                Throwable synced = failure(f.writeAndSync(ByteBuffer.allocateDirect(4096), 4096));
                assertNotNull(synced, "writeAndSync with an injected EIO");
                assertTrue(synced.getMessage().contains("EIO during FDATASYNC after a WRITE of 4096 bytes"),
                        synced.toString());
                // the file and the loop go on
                get(f.force(false));
                assertEquals(4096, get(f.writeAndSync(ByteBuffer.allocateDirect(4096), 8192)));
            }
            assertEquals(3 * 4096, Files.size(p));
            assertTrue(inlineSyncs(io) >= 2, "syncs made by the loop: " + inlineSyncs(io));
        }
    }

    @Test
    void aLongSyncWithNobodyWaitingKeepsTheFilesSyncsOnTheLoop() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build()) {
            Path p = dir.resolve("long-sync");
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                ByteBuffer mib = ByteBuffer.allocateDirect(1 << 20);
                for (int i = 0; i < 64; i++) {
                    assertEquals(1 << 20, get(f.write(mib.duplicate(), (long) i << 20)));
                }
                if (blocked(io) > 0) {
                    Thread.sleep(300); // a write held the loop: let the file's back-off pass
                }
                long syncs = inlineSyncs(io);
                long held = blocked(io);
                // writing 64 MiB of dirty pages out holds the loop for more than 10 ms on a disk
                get(f.force(false));
                Assumptions.assumeTrue(inlineSyncs(io) == syncs + 1 && blocked(io) == held + 1,
                        "the loop did not make a sync that held it 10 ms (a RAM-backed file system, or a write backed off)");
                assertEquals(4096, get(f.writeAndSync(ByteBuffer.allocateDirect(4096), 64L << 20)));
                assertEquals(syncs + 2, inlineSyncs(io), "the next sync of the lone writer was made by the loop too");
            }
            assertEquals((64L << 20) + 4096, Files.size(p));
        }
    }

    /**
     * A write of 64 MiB into the page cache in one call, made by the loop: on this kind of machine it holds the loop
     * longer than 10 ms. Returns whether it did (the assumption of the tests below).
     */
    private static boolean slowWrite(IoExecutor io, AsyncFile f, ByteBuffer big, long at) throws Exception {
        long inline = inline(io);
        long held = blocked(io);
        assertEquals(big.capacity(), get(f.write(big.duplicate(), at)));
        return inline(io) == inline + 1 && blocked(io) == held + 1;
    }

    @Test
    void aLoneWritersSlowWriteKeepsItsNextWritesOnTheLoop() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(64 << 20).build()) {
            Path p = dir.resolve("lone");
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                ByteBuffer big = ByteBuffer.allocateDirect(64 << 20);
                Assumptions.assumeTrue(slowWrite(io, f, big, 0),
                        "the loop did not make a write that held it 10 ms (no RWF_NOWAIT-refusing file system, or fast)");
                long inline = inline(io);
                assertEquals(4096, get(f.write(ByteBuffer.allocateDirect(4096), 64L << 20)));
                assertEquals(inline + 1, inline(io), "nobody waited for the loop: the next write is the loop's too");
            }
            assertEquals((64L << 20) + 4096, Files.size(p));
        }
    }

    /**
     * A slow write that an operation in the kernel waited for: the first alone keeps the file's writes on the loop
     * (one stall may be the JVM's, or a one-off of the kernel's); a second within a second sends them to the ring.
     */
    @Test
    void aSecondSlowWriteThatAnOperationInTheKernelWaitedForSendsTheFilesWritesToTheRing() throws Exception {
        Path fifo = TestFiles.fifo(dir, "waiting");
        try (IoExecutor io = UringExecutorTest.uring().loops(1).inlineWriteMax(64 << 20).build();
                AsyncFile pipe = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            Path p = dir.resolve("shared");
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                // a read that stays in the kernel until the pipe is written: its completion would wait for the loop
                CompletableFuture<Integer> read = pipe.read(ByteBuffer.allocateDirect(5), 0);
                awaitInFlight(io, 1);
                ByteBuffer big = ByteBuffer.allocateDirect(64 << 20);
                long t0 = System.nanoTime();
                Assumptions.assumeTrue(slowWrite(io, f, big, 0),
                        "the loop did not make a write that held it 10 ms (no RWF_NOWAIT-refusing file system, or fast)");
                long inline = inline(io);
                assertEquals(4096, get(f.write(ByteBuffer.allocateDirect(4096), 64L << 20)));
                assertEquals(inline + 1, inline(io), "one slow write alone: the file's next write is the loop's still");
                Assumptions.assumeTrue(slowWrite(io, f, big, (64L << 20) + 4096), "the second 64 MiB write was fast");
                Assumptions.assumeTrue(System.nanoTime() - t0 < 900_000_000L, "the two slow writes took over 0.9 s");
                inline = inline(io);
                assertEquals(4096, get(f.write(ByteBuffer.allocateDirect(4096), (128L << 20) + 4096)));
                assertEquals(inline, inline(io), "a second within a second: the file's next write went to the ring");
                assertEquals(5, get(pipe.write(ByteBuffer.wrap("hello".getBytes()), 0)));
                assertEquals(5, get(read));
            }
            assertEquals((128L << 20) + 8192, Files.size(p));
        }
    }

    @Test
    void syncsInFlightTogetherAllLand() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().loops(1).build()) {
            Path p = dir.resolve("group");
            byte[] expect = new byte[32 * 4096];
            new Random(9).nextBytes(expect);
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                CompletableFuture<?>[] all = new CompletableFuture<?>[32];
                for (int b = 0; b < 32; b++) {
                    all[b] = f.writeAndSync(ByteBuffer.allocateDirect(4096).put(0, expect, b * 4096, 4096), b * 4096L);
                }
                for (CompletableFuture<?> c : all) {
                    assertEquals(4096, get(c));
                }
            }
            assertArrayEquals(expect, Files.readAllBytes(p));
        }
    }

    /** Random 4 KiB writes from many threads, then the whole file compared with what was written. */
    private static byte[] randomWrites(IoExecutor io, Path p, int blocks) throws Exception {
        byte[] expect = new byte[blocks * 4096];
        new Random(11).nextBytes(expect);
        try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            CompletableFuture<?>[] all = new CompletableFuture<?>[blocks];
            for (int b = blocks - 1; b >= 0; b--) {
                ByteBuffer src = ByteBuffer.allocateDirect(4096).put(0, expect, b * 4096, 4096);
                all[b] = f.writeFully(src, b * 4096L);
            }
            for (CompletableFuture<?> c : all) {
                assertEquals(4096, get(c));
            }
        }
        return expect;
    }

    @Test
    void bufferedWritesAreMadeByTheLoopAndLandWhereTheyShould() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().build()) {
            Path p = dir.resolve("inline");
            byte[] expect = randomWrites(io, p, 256);
            assertArrayEquals(expect, Files.readAllBytes(p));
            assertTrue(inline(io) > 0, "writes made by the loop: " + inline(io));
        }
    }

    @Test
    void zeroMaxSendsEveryWriteThroughTheRing() throws Exception {
        try (IoExecutor io = UringExecutorTest.uring().inlineWriteMax(0).build()) {
            Path p = dir.resolve("ring");
            byte[] expect = randomWrites(io, p, 64);
            assertArrayEquals(expect, Files.readAllBytes(p));
            // A file system that takes RWF_NOWAIT writes (tmpfs, XFS) still gets them from the loop: only the
            // blocking kind is switched off. On ext4 none is made by the loop.
            if (Files.getFileStore(p).type().equals("ext4")) {
                assertEquals(0, inline(io));
            }
        }
    }

    @Test
    void syncFilesAreNeverWrittenByTheLoopWithABlockingCall() throws Exception {
        Path p = dir.resolve("dsync");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.getFileStore(dir).type().equals("ext4"),
                "ext4 refuses RWF_NOWAIT writes, so only a blocking call could write from the loop");
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.DSYNC))) {
            byte[] b = new byte[4096];
            new Random(8).nextBytes(b);
            assertEquals(4096, get(f.writeFully(ByteBuffer.wrap(b), 0)));
            assertEquals(0, inline(io), "an O_DSYNC write waits for the device: the ring's worker does it");
            assertArrayEquals(b, Files.readAllBytes(p));
        }
    }

    @Test
    void writesLargerThanTheMaxGoThroughTheRing() throws Exception {
        Path p = dir.resolve("large");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.getFileStore(dir).type().equals("ext4"),
                "the max applies where RWF_NOWAIT writes are refused (ext4)");
        try (IoExecutor io = UringExecutorTest.uring().inlineWriteMax(8192).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            byte[] small = new byte[8192];
            byte[] large = new byte[8193];
            new Random(3).nextBytes(small);
            new Random(4).nextBytes(large);
            assertEquals(8192, get(f.writeFully(ByteBuffer.wrap(small), 0)));
            long afterSmall = inline(io);
            assertTrue(afterSmall >= 1, "the 8 KiB write was made by the loop");
            assertEquals(8193, get(f.writeFully(ByteBuffer.wrap(large), 8192)));
            assertEquals(afterSmall, inline(io), "the larger write went through the ring");
            byte[] got = Files.readAllBytes(p);
            assertArrayEquals(small, java.util.Arrays.copyOfRange(got, 0, 8192));
            assertArrayEquals(large, java.util.Arrays.copyOfRange(got, 8192, 8192 + 8193));
        }
    }

    @Test
    void anInlineWriteFailsAsTheRingsDoes() throws Exception {
        Path p = dir.resolve("efbig");
        Files.createFile(p);
        TestFiles.assumeRefusesPosition(dir, Long.MAX_VALUE - 4096);
        String[] messages = new String[2];
        Class<?>[] types = new Class<?>[2];
        for (int i = 0; i < 2; i++) {
            try (IoExecutor io = UringExecutorTest.uring().inlineWriteMax(i == 0 ? 1 << 20 : 0).build();
                    AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE))) {
                // Past the largest file ext4 (or any file system) can hold: EFBIG from the kernel.
                Throwable t = failure(f.write(ByteBuffer.allocateDirect(16), Long.MAX_VALUE - 4096));
                assertInstanceOf(FileIOException.class, t);
                messages[i] = t.getMessage();
                types[i] = t.getClass();
            }
        }
        assertEquals(types[1], types[0]);
        assertEquals(messages[1], messages[0]);
        assertEquals(0, Files.size(p));
    }

    @Test
    void writesChainedFromHandlersRunOneTurnAtATimeNotRecursively() throws Exception {
        // 20,000 writes, each issued by the previous one's handler on the loop: a result delivered from inside the
        // call that issued it would nest 20,000 deep.
        int n = 20_000;
        Path p = dir.resolve("chain");
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            MemorySegment src = Arena.ofAuto().allocate(8);
            CompletableFuture<Integer> done = new CompletableFuture<>();
            AtomicInteger count = new AtomicInteger();
            CompletionHandler<Integer, Long> h = new CompletionHandler<>() {
                @Override
                public void completed(Integer r, Long pos) {
                    int c = count.incrementAndGet();
                    if (c == n) {
                        done.complete(c);
                        return;
                    }
                    src.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, c);
                    f.write(src, pos + 8, pos + 8, this);
                }

                @Override
                public void failed(Throwable exc, Long pos) {
                    done.completeExceptionally(exc);
                }
            };
            src.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
            f.write(src, 0L, 0L, h);
            assertEquals(n, get(done));
            assertTrue(inline(io) > 0);
        }
        ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(p)).order(java.nio.ByteOrder.nativeOrder());
        assertEquals(8L * n, all.capacity());
        for (int i = 0; i < n; i++) {
            assertEquals(i, all.getLong(i * 8));
        }
    }

    @Test
    void pipesAndDirectFilesAreNeverWrittenByTheLoop() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo");
        Path direct = dir.resolve("direct");
        Files.write(direct, new byte[8192]);
        try (IoExecutor io = UringExecutorTest.uring().build()) {
            try (AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
                ByteBuffer in = ByteBuffer.allocateDirect(5);
                CompletableFuture<Integer> read = f.read(in, 0);
                assertEquals(5, get(f.write(ByteBuffer.wrap("hello".getBytes()), 0)));
                assertEquals(5, get(read));
            }
            assertEquals(0, inline(io), "the pipe's write went through the ring");
            try (AsyncFile f = get(AsyncFile.open(io, direct, StandardOpenOption.WRITE, FileOption.DIRECT))) {
                MemorySegment src = Arena.ofAuto().allocate(4096, 4096);
                assertEquals(4096, get(f.write(src, 4096)));
            } catch (java.util.concurrent.ExecutionException | FileIOException e) {
                org.junit.jupiter.api.Assumptions.abort("no O_DIRECT here: " + e);
            }
            assertEquals(0, inline(io), "the O_DIRECT write went through the ring");
        }
    }

    @Test
    void aByteBoundNeverMakesAPipesReadWaitForItsOwnWrite() throws Exception {
        // A pipe's read waits in the kernel for a write issued after it: were pipes counted against the bound, the
        // write would wait behind the read for ever.
        Path fifo = TestFiles.fifo(dir, "bytes");
        try (IoExecutor io = UringExecutorTest.uring().inFlightBytes(4096).build();
                AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            CompletableFuture<Integer> read = f.read(ByteBuffer.allocateDirect(16384), 0);
            awaitInFlight(io, 1);
            assertEquals(16384, get(f.write(ByteBuffer.allocateDirect(16384), 0)));
            assertEquals(16384, get(read));
        }
    }

    @Test
    void readsBeyondTheByteBoundWaitInOrderAndAllArrive() throws Exception {
        Path p = dir.resolve("bounded");
        byte[] data = randomFile(p, 5);
        try (IoExecutor io = UringExecutorTest.uring().inFlightBytes(8192).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            java.util.List<CompletableFuture<Integer>> reads = new java.util.ArrayList<>();
            java.util.List<ByteBuffer> bufs = new java.util.ArrayList<>();
            for (int i = 0; i < 256; i++) {
                ByteBuffer b = ByteBuffer.allocateDirect(i % 3 == 0 ? 16384 : 4096); // some larger than the bound
                bufs.add(b);
                reads.add(f.read(b, (long) i * 4096 % data.length));
            }
            for (int i = 0; i < 256; i++) {
                int n = get(reads.get(i));
                int off = (int) ((long) i * 4096 % data.length);
                assertEquals(Math.min(bufs.get(i).capacity(), data.length - off), n);
                byte[] got = new byte[n];
                bufs.get(i).get(0, got);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, off, off + n), got);
            }
        }
    }

    /** {@code p} opened for {@code O_DIRECT} reads; the test is skipped where the file system refuses it. */
    private static AsyncFile openDirectOrSkip(IoExecutor io, Path p) throws Exception {
        try {
            return get(AsyncFile.open(io, p, StandardOpenOption.READ, FileOption.DIRECT));
        } catch (FileIOException e) {
            org.junit.jupiter.api.Assumptions.abort("no O_DIRECT here: " + e);
            throw e; // not reached: abort throws
        }
    }

    /** Writes 1 MiB of random bytes from {@code seed} to {@code p}; the bytes. */
    private static byte[] randomFile(Path p, int seed) throws java.io.IOException {
        byte[] data = new byte[1 << 20];
        new Random(seed).nextBytes(data);
        Files.write(p, data);
        return data;
    }

    private static void awaitInFlight(IoExecutor io, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (io.inFlight() < n && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(n, io.inFlight());
    }

    @Test
    void boundsRefuseNonsense() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> IoExecutor.builder().inFlightBytes(0));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> IoExecutor.builder().inlineWriteMax(-1));
        // a loop is a thread and its ring's mappings: 100,000 of them killed the JVM (its mappings exhausted)
        for (int loops : new int[] {0, -1, 1025, 100_000, Integer.MAX_VALUE}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> IoExecutor.builder().loops(loops));
            assertEquals("loops must be 1..1024: " + loops, e.getMessage());
        }
        for (int threads : new int[] {0, 4097, Integer.MAX_VALUE}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> IoExecutor.builder().threads(threads));
            assertEquals("threads must be 1..4096: " + threads, e.getMessage());
        }
    }

    @Test
    void directReadsBeyondTheDeviceBudgetWaitAndAllArriveOrFailOnClose() throws Exception {
        Path p = dir.resolve("direct-budget");
        byte[] data = randomFile(p, 9);
        try (IoExecutor io = UringExecutorTest.uring().directInFlight(2).build()) {
            AsyncFile f = openDirectOrSkip(io, p);
            // 200 reads through a budget of 2: every one arrives, with the right bytes.
            MemorySegment slab = Arena.ofAuto().allocate(200L * 4096, 4096);
            java.util.List<CompletableFuture<Integer>> reads = new java.util.ArrayList<>();
            for (int i = 0; i < 200; i++) {
                reads.add(f.read(slab.asSlice(i * 4096L, 4096), (i * 4096L * 7) % data.length));
            }
            for (int i = 0; i < 200; i++) {
                assertEquals(4096, get(reads.get(i)));
                int off = (int) ((i * 4096L * 7) % data.length);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, off, off + 4096),
                        slab.asSlice(i * 4096L, 4096).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
            // 500 more, then close at once: each ends, read or failed as closed, none hangs.
            reads.clear();
            MemorySegment more = Arena.ofAuto().allocate(500L * 4096, 4096);
            for (int i = 0; i < 500; i++) {
                reads.add(f.read(more.asSlice(i * 4096L, 4096), 0));
            }
            int most = 0;
            for (int i = 0; i < 200; i++) {
                most = Math.max(most, io.inFlight());
            }
            assertTrue(most <= 2, "in the kernel at once: " + most + " (budget 2)");
            f.close();
            for (CompletableFuture<Integer> r : reads) {
                Throwable t = failure(r);
                assertTrue(t == null || t instanceof java.nio.channels.AsynchronousCloseException, String.valueOf(t));
            }
            UringExecutorTest.waitIdle(io);
        }
    }
    @Test
    void directReadsLetInWhileCompletionsAreHandledAllArriveRight() throws Exception {
        // A budget of 32 with thousands waiting: completions come back in batches, and the reads they let in are
        // submitted while the rest of the batch is still being handled. Every read must still arrive, right.
        Path p = dir.resolve("direct-refill");
        byte[] data = randomFile(p, 11);
        try (IoExecutor io = UringExecutorTest.uring().directInFlight(32).build()) {
            AsyncFile f = openDirectOrSkip(io, p);
            int n = 3000;
            MemorySegment slab = Arena.ofAuto().allocate(n * 4096L, 4096);
            java.util.List<CompletableFuture<Integer>> reads = java.util.Collections.synchronizedList(
                    new java.util.ArrayList<>());
            Thread[] issuers = new Thread[3];
            for (int t = 0; t < issuers.length; t++) {
                int first = t;
                issuers[t] = Thread.ofPlatform().start(() -> {
                    for (int i = first; i < n; i += issuers.length) {
                        reads.add(f.read(slab.asSlice(i * 4096L, 4096), offset(i, data.length))
                                .thenApply(r -> r));
                    }
                });
            }
            for (Thread t : issuers) {
                t.join();
            }
            for (CompletableFuture<Integer> r : reads) {
                assertEquals(4096, get(r));
            }
            for (int i = 0; i < n; i++) {
                int off = (int) offset(i, data.length);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, off, off + 4096),
                        slab.asSlice(i * 4096L, 4096).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), "read " + i);
            }
            f.close();
            UringExecutorTest.waitIdle(io);
        }
    }

    private static long offset(int i, int length) {
        return (i * 4096L * 13) % length;
    }
}
