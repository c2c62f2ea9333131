package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.Request;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sync covers the writes of its file made before it, awaited or not (both backends), and buffered writes of one file
 * land in the order they were made (io_uring; the threads backend runs a file's calls on several workers at once, and
 * its writes, as the JDK's {@code AsynchronousFileChannel}'s, land in any order). A hostile probe traced both failing: a {@code force} after unawaited writes that the
 * kernel's workers ran (timed writes, or any write when the loop hands them to the ring) ran beside them, and left
 * records dirty in the page cache after it ended (16 of 200 rounds), and the threads backend ran a sync on one
 * worker beside writes on others; a write the loop made itself landed before an
 * earlier one still in the ring, so the earlier bytes ended on top (287 of 300).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SyncOrderTest {
    @TempDir
    Path dir;

    private static IoExecutor uring() throws Exception {
        return IoExecutor.builder().backend(Backend.IO_URING).loops(1).build();
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    void aForceCoversTheUnawaitedWritesBeforeIt(Backend backend) throws Exception {
        Path p = dir.resolve("log");
        int records = 120;
        int size = 4096;
        Files.write(p, new byte[records * size]);
        int dirtyRounds = 0;
        int earlyRounds = 0;
        try (IoExecutor io = IoExecutor.builder().backend(backend).loops(1).build(); Arena a = Arena.ofConfined();
                AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE)
                        .get(10, TimeUnit.SECONDS)) {
            MemorySegment capture = LeanCalls.allocateCapture(a);
            MemorySegment range = a.allocate(16, 8); // offset 0, length 0: the whole file
            MemorySegment stat = a.allocate(LeanCalls.CACHESTAT_SIZE, 8);
            int fd = LeanCalls.open(capture, a.allocateFrom(p.toString()), 0, 0);
            assertTrue(fd >= 0, "open: " + fd);
            try {
                for (int round = 0; round < 300; round++) {
                    List<CompletableFuture<Integer>> writes = new ArrayList<>();
                    AsyncFile.Timed timed = f.withTimeout(Duration.ofSeconds(30)); // made by the kernel's workers
                    for (int i = 0; i < records; i++) {
                        ByteBuffer b = ByteBuffer.allocateDirect(size);
                        b.put(0, (byte) (round + 1));
                        writes.add(timed.write(b, (long) i * size));
                    }
                    f.force(false).get(30, TimeUnit.SECONDS);
                    boolean early = false;
                    for (CompletableFuture<Integer> w : writes) {
                        early |= !w.isDone();
                    }
                    int r = LeanCalls.cachestat(capture, fd, range, stat);
                    if (r == -Errno.ENOSYS) {
                        org.junit.jupiter.api.Assumptions.abort("no cachestat (Linux 6.5+)");
                    }
                    assertEquals(0, r, "cachestat");
                    long dirty = stat.get(ValueLayout.JAVA_LONG, 8) + stat.get(ValueLayout.JAVA_LONG, 16);
                    dirtyRounds += dirty > 0 ? 1 : 0;
                    earlyRounds += early ? 1 : 0;
                    for (CompletableFuture<Integer> w : writes) {
                        assertEquals(size, w.get(30, TimeUnit.SECONDS));
                    }
                }
            } finally {
                LeanCalls.close(capture, fd);
            }
        }
        assertEquals(0, dirtyRounds, "rounds with records not yet written back when their force ended");
        if (backend == Backend.IO_URING) {
            // (the threads backend starts a file's next call, the force, before it completes the future of the call
            // that ended, so there a write's future may still be completing when the force's is)
            assertEquals(0, earlyRounds, "rounds whose force ended before a write made before it");
        }
    }

    @Test
    void overlappingWritesLandInTheOrderTheyWereMade() throws Exception {
        Path p = dir.resolve("overlap");
        Files.write(p, new byte[8192]);
        int wrong = 0;
        try (IoExecutor io = uring();
                AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE)
                        .get(10, TimeUnit.SECONDS)) {
            for (int round = 0; round < 200; round++) {
                ByteBuffer first = ByteBuffer.allocateDirect(4096);
                ByteBuffer second = ByteBuffer.allocateDirect(4096);
                byte[] a = new byte[4096];
                byte[] b = new byte[4096];
                Arrays.fill(a, (byte) 'A');
                Arrays.fill(b, (byte) 'B');
                first.put(a).flip();
                second.put(b).flip();
                // the first through the kernel's workers (a timed write), the second a plain one
                CompletableFuture<Integer> w1 = f.withTimeout(Duration.ofSeconds(30)).write(first, 4096);
                CompletableFuture<Integer> w2 = f.write(second, 4096);
                assertEquals(4096, w1.get(30, TimeUnit.SECONDS));
                assertEquals(4096, w2.get(30, TimeUnit.SECONDS));
                ByteBuffer back = ByteBuffer.allocateDirect(4096);
                assertEquals(4096, f.read(back, 4096).get(30, TimeUnit.SECONDS));
                wrong += back.get(0) == 'B' && back.get(4095) == 'B' ? 0 : 1;
            }
        }
        assertEquals(0, wrong, "rounds where the earlier write's bytes ended on top");
    }

    /**
     * The threads backend: a {@code writeAndSync} starts its write beside the file's running writes and waits only
     * with its sync, which still ends after an earlier write held in its call (here by the test's result filter); and
     * two {@code writeAndSync}s are in their syncs at once, where one journal commit can serve both. Before, each
     * waited for every running change of its file before its write began, so they ran one at a time (8 in flight,
     * 4 KiB each: 4.2-5.9k a second, now 12.2-12.5k).
     */
    @Test
    void threadsWriteAndSyncsRunSideBySideAndStillFollowTheWritesBeforeThem() throws Exception {
        Path p = dir.resolve("synced");
        CountDownLatch writeHeld = new CountDownLatch(1);
        CountDownLatch releaseWrite = new CountDownLatch(1);
        AtomicBoolean meetInSyncs = new AtomicBoolean();
        CyclicBarrier inSyncs = new CyclicBarrier(2);
        AtomicInteger metInSyncs = new AtomicInteger();
        IoExecutor.Builder b = IoExecutor.builder().backend(Backend.THREADS).threads(4).resultFilter(
                (kind, sub, res, requested) -> {
                    try {
                        if (kind == Request.WRITE) {
                            writeHeld.countDown();
                            releaseWrite.await(30, TimeUnit.SECONDS);
                        } else if (kind == Request.WRITE_SYNC && sub == 1 && meetInSyncs.get()) {
                            inSyncs.await(10, TimeUnit.SECONDS);
                            metInSyncs.incrementAndGet();
                        }
                    } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                        // not met: the count says so
                    }
                    return res;
                });
        try (IoExecutor io = b.build(); AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE).get(10, TimeUnit.SECONDS)) {
            CompletableFuture<Integer> held = f.write(filled((byte) 1), 0);
            assertTrue(writeHeld.await(10, TimeUnit.SECONDS), "the first write reached its call");
            CompletableFuture<Integer> synced = f.writeAndSync(filled((byte) 2), 4096);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (byteAt(p, 4096) != 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(2, byteAt(p, 4096), "the writeAndSync's write, made beside the held write");
            Thread.sleep(200);
            assertFalse(synced.isDone(), "the writeAndSync ended while a write made before it was still in its call");
            releaseWrite.countDown();
            assertEquals(4096, held.get(10, TimeUnit.SECONDS));
            assertEquals(4096, synced.get(10, TimeUnit.SECONDS));
            meetInSyncs.set(true);
            CompletableFuture<Integer> one = f.writeAndSync(filled((byte) 3), 8192);
            CompletableFuture<Integer> two = f.writeAndSync(filled((byte) 4), 12288);
            assertEquals(4096, one.get(30, TimeUnit.SECONDS));
            assertEquals(4096, two.get(30, TimeUnit.SECONDS));
            assertEquals(2, metInSyncs.get(), "two writeAndSyncs of one file in their syncs at once");
        }
    }

    /**
     * io_uring, {@code O_DIRECT}, one loop with room for two direct operations at a time: 8 {@code writeAndSync}s
     * issued together, 10 rounds; then 6 behind a 1 MiB write and one whose write fails ({@code EFBIG}). Every one
     * ends (before: in 9 of 10 rounds one never did, and the file's close waited for ever: a request that took the
     * slot of one that ended was dropped from the file's list of waiting syncs; found by a hostile probe).
     */
    @Test
    void directWriteAndSyncsThroughANarrowDeviceBudgetAllEnd() throws Exception {
        Path p = dir.resolve("narrow");
        long limit = HostileUseContract.largestFileSize(p);
        for (int round = 0; round < 10; round++) {
            Files.deleteIfExists(p);
            try (IoExecutor io = IoExecutor.builder().backend(Backend.IO_URING).loops(1).directInFlight(2).build();
                    Arena a = Arena.ofShared()) {
                AsyncFile f = openDirect(io, p);
                try {
                    List<CompletableFuture<Integer>> all = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        all.add(f.writeAndSync(a.allocate(4096, 4096), 4096L * i));
                    }
                    for (CompletableFuture<Integer> w : all) {
                        assertEquals(4096, w.get(10, TimeUnit.SECONDS), "round " + round);
                    }
                    all.clear();
                    all.add(f.write(a.allocate(1 << 20, 4096), 0));
                    CompletableFuture<Integer> failing = f.writeAndSync(a.allocate(4096, 4096), limit);
                    for (int i = 0; i < 6; i++) {
                        all.add(f.writeAndSync(a.allocate(4096, 4096), (1 << 20) + 4096L * i));
                    }
                    assertInstanceOf(FileIOException.class, TestFiles.failure(failing), "round " + round);
                    for (CompletableFuture<Integer> w : all) {
                        assertTrue(w.get(10, TimeUnit.SECONDS) > 0, "round " + round);
                    }
                } finally {
                    // on a thread of its own: a close that waited for ever for a lost request failed the test at once
                    AsyncFile file = f;
                    Thread closing = Thread.ofPlatform().daemon().start(() -> {
                        try {
                            file.close();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
                    closing.join(TimeUnit.SECONDS.toMillis(10));
                    assertFalse(closing.isAlive(), "round " + round + ": the file's close did not return");
                }
                assertEquals(0, io.inFlight(), "round " + round + ": left in flight");
            }
        }
    }

    /**
     * io_uring, {@code O_DIRECT}: 8 {@code writeAndSync}s issued together behind a 1 MiB write, 20 rounds: fewer
     * {@code fdatasync}s reach the kernel than there are records (those that fall due in one turn of the loop share
     * one), every record reads back, and each ends after the write before it. Before, one sync each: 8 records in
     * flight overwriting a preallocated log ran at 0.60-0.62 of the JDK's channel from 8 threads, now 0.91-0.95.
     */
    @Test
    void directWriteAndSyncsDueTogetherShareOneSync() throws Exception {
        Path p = dir.resolve("grouped");
        java.util.concurrent.atomic.AtomicInteger syncs = new java.util.concurrent.atomic.AtomicInteger();
        IoExecutor.Builder b = IoExecutor.builder().backend(Backend.IO_URING).loops(1).resultFilter(
                (kind, sub, res, requested) -> {
                    if (kind == Request.WRITE_SYNC && sub == 1) {
                        syncs.incrementAndGet();
                    }
                    return res;
                });
        int rounds = 20;
        try (IoExecutor io = b.build(); Arena a = Arena.ofShared()) {
            AsyncFile f = openDirect(io, p);
            try (f) {
                MemorySegment bulk = a.allocate(1 << 20, 4096);
                MemorySegment[] records = new MemorySegment[8];
                for (int i = 0; i < records.length; i++) {
                    records[i] = a.allocate(4096, 4096);
                }
                for (int round = 0; round < rounds; round++) {
                    CompletableFuture<Integer> earlier = f.write(bulk, 0);
                    List<CompletableFuture<Integer>> synced = new ArrayList<>();
                    for (int i = 0; i < records.length; i++) {
                        records[i].fill((byte) (round * 8 + i + 1));
                        synced.add(f.writeAndSync(records[i], (1 << 20) + i * 4096L));
                    }
                    for (CompletableFuture<Integer> w : synced) {
                        assertEquals(4096, w.get(30, TimeUnit.SECONDS));
                        assertTrue(earlier.isDone(), "round " + round + ": a writeAndSync ended before the write before it");
                    }
                    for (int i = 0; i < records.length; i++) {
                        assertEquals((byte) (round * 8 + i + 1), byteAt(p, (1 << 20) + i * 4096L), "round " + round);
                    }
                }
            }
        }
        assertTrue(syncs.get() < rounds * 8, syncs.get() + " syncs for " + rounds * 8 + " records");
    }

    /**
     * io_uring, {@code O_DIRECT}: a {@code writeAndSync} of 8 KiB whose write comes back short (4 KiB, injected, as
     * {@code ulimit -f} lowered and raised again does it; its linked sync cancelled), the rest then written: alone,
     * and with a one-at-a-time write of the file in flight, 20 rounds each. Each ends with all its bytes in the file
     * (before, the rest was taken for a write beginning beside changes in flight, one of them its own: its sync waited
     * for it for ever, and the file's close with it; found by a hostile probe).
     */
    @Test
    @Timeout(120)
    void aDirectWriteAndSyncCutShortWritesItsRestAndSyncs() throws Exception {
        Path p = dir.resolve("cut-short");
        AtomicBoolean cut = new AtomicBoolean();
        AtomicBoolean cancelItsSync = new AtomicBoolean();
        IoExecutor.Builder b = IoExecutor.builder().backend(Backend.IO_URING).loops(1).resultFilter(
                (kind, sub, res, requested) -> {
                    if (kind == Request.WRITE_SYNC && sub == 0 && res == 8192 && cut.getAndSet(false)) {
                        cancelItsSync.set(true);
                        return 4096; // the kernel wrote it all: the rest is written again, unchanged
                    }
                    if (kind == Request.WRITE_SYNC && sub == 1 && requested == 8192 && cancelItsSync.getAndSet(false)) {
                        return -Errno.ECANCELED; // the sync linked to the short write, as the kernel cancels it
                    }
                    return res;
                });
        IoExecutor io = b.build();
        Arena a = Arena.ofShared();
        AsyncFile f = openDirect(io, p);
        try {
            MemorySegment bulk = a.allocate(1 << 20, 4096);
            MemorySegment record = a.allocate(8192, 4096);
            for (int round = 0; round < 40; round++) {
                boolean beside = round % 2 == 1;
                CompletableFuture<Integer> earlier = beside ? f.write(bulk, 1 << 20) : null;
                record.fill((byte) (round + 1));
                cut.set(true);
                cancelItsSync.set(false);
                CompletableFuture<Integer> synced = f.writeAndSync(record, 0);
                assertEquals(8192, synced.get(30, TimeUnit.SECONDS), "round " + round + (beside ? ", beside a write"
                        : ""));
                if (earlier != null) {
                    assertEquals(1 << 20, earlier.get(30, TimeUnit.SECONDS));
                }
                assertEquals((byte) (round + 1), byteAt(p, 0), "round " + round);
                assertEquals((byte) (round + 1), byteAt(p, 8191), "round " + round);
            }
        } catch (Throwable t) {
            Thread.ofPlatform().daemon().start(() -> { // a close that waits for a lost write must not hold the run
                try {
                    f.close();
                } catch (java.io.IOException | RuntimeException e) {
                    // the test fails with what it found
                }
                io.close();
            });
            throw t;
        }
        f.close();
        io.close();
        a.close();
    }

    /**
     * io_uring: a {@code writeAndSync} of 8 KiB written in two pieces whose sync then fails with an {@code EINTR}
     * that no cancel, timeout or close explains (injected) says the sync failed after the write moved all 8 KiB, and
     * the buffer's position moved past them (before, it said "after the first 8192 of its 12288 bytes", the last
     * piece's bookkeeping taken for a transfer still under way).
     */
    @Test
    @Timeout(60)
    void aSyncFailingAfterAWriteInPiecesSaysTheWholeWriteMoved() throws Exception {
        Path p = dir.resolve("sync-fails");
        AtomicInteger syncs = new AtomicInteger();
        IoExecutor.Builder b = IoExecutor.builder().backend(Backend.IO_URING).loops(1).resultFilter(
                (kind, sub, res, requested) -> {
                    if (kind != Request.WRITE_SYNC) {
                        return res;
                    }
                    if (sub == 0 && res == 8192) {
                        return 4096;
                    }
                    if (sub == 1) {
                        return syncs.incrementAndGet() == 1 ? -Errno.ECANCELED : -Errno.EINTR;
                    }
                    return res;
                });
        try (IoExecutor io = b.build(); AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE).get(10, TimeUnit.SECONDS)) {
            ByteBuffer data = ByteBuffer.allocateDirect(8192);
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> f.writeAndSync(data, 0).get(30, TimeUnit.SECONDS));
            String m = e.getCause().getMessage();
            assertInstanceOf(FileIOException.class, e.getCause(), e.toString());
            assertTrue(m.contains("FDATASYNC after a WRITE of 8192 bytes") && m.contains("EINTR"), m);
            assertFalse(m.contains("12288"), m);
            assertEquals(8192, data.position(), "the position moves past the bytes written");
            assertEquals(2, syncs.get(), "the sync of the short piece, then the sync of the whole write");
        }
    }

    private static ByteBuffer filled(byte value) {
        ByteBuffer b = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < 4096; i++) {
            b.put(i, value);
        }
        return b;
    }

    private static int byteAt(Path p, long position) throws java.io.IOException {
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(p)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            return c.read(one, position) == 1 ? one.get(0) : -1;
        }
    }

    /**
     * io_uring, {@code O_DIRECT}: {@code writeAndSync}s made while an 8 MiB write of the file is in flight make their
     * writes at once and their syncs after it (the device completes direct writes in any order, so a sync linked to
     * its own write could end before the earlier write; waiting for it before the write ran such write-and-syncs one
     * at a time: 8 in flight, 3.2-5.4k a second against the JDK's 9.4-12.6k, now 7.8-12.8k against 9.4-12.2k); then
     * such a waiting {@code writeAndSync} cancelled, and one whose file is closed while it waits. This disk completes
     * the writes in the order they came (a sync issued right after its own write still ended after the earlier write
     * here), so the order is checked where a device reorders; the cancel and the close are checked here.
     */
    @Test
    void directWriteAndSyncsBesideAnEarlierWriteSyncAfterIt() throws Exception {
        Path p = dir.resolve("direct");
        int big = 16 << 20;
        try (IoExecutor io = uring(); Arena a = Arena.ofShared()) {
            AsyncFile f = openDirect(io, p);
            // The earlier write's bytes come from a mapping of a file out of the page cache (a new one each time): the
            // kernel reads them from the disk as it makes the write, which so ends well after the small ones behind it.
            byte[] sevens = new byte[big];
            Arrays.fill(sevens, (byte) 7);
            MemorySegment[] records = new MemorySegment[8];
            for (int i = 0; i < records.length; i++) {
                records[i] = a.allocate(4096, 4096);
            }
            for (int round = 0; round < 6; round++) {
                CompletableFuture<Integer> earlier = f.write(uncachedMapping(io, dir.resolve("source" + round), sevens), 0);
                List<CompletableFuture<Integer>> synced = new ArrayList<>();
                for (int i = 0; i < records.length; i++) {
                    records[i].fill((byte) (round * 8 + i + 1));
                    synced.add(f.writeAndSync(records[i], big + i * 4096L));
                }
                for (CompletableFuture<Integer> w : synced) {
                    assertEquals(4096, w.get(30, TimeUnit.SECONDS));
                    assertTrue(earlier.isDone(), "round " + round + ": a writeAndSync ended before the write made before it");
                }
                assertEquals(big, earlier.get(30, TimeUnit.SECONDS));
                for (int i = 0; i < records.length; i++) {
                    assertEquals((byte) (round * 8 + i + 1), byteAt(p, big + i * 4096L), "round " + round + ", record " + i);
                }
            }
            // cancelled while it waits for the earlier write: cancelled, and nothing left behind
            CompletableFuture<Integer> earlier = f.write(uncachedMapping(io, dir.resolve("sourceA"), sevens), 0);
            CompletableFuture<Integer> cancelled = f.writeAndSync(records[0], big);
            Thread.sleep(3); // its write made, its sync waiting for the earlier write (which takes 13-26 ms here)
            cancelled.cancel(true);
            assertEquals(big, earlier.get(30, TimeUnit.SECONDS));
            assertTrue(cancelled.isCancelled());
            // the file closed while one waits: it ends (synced before the close came, or failed by it)
            earlier = f.write(uncachedMapping(io, dir.resolve("sourceB"), sevens), 0);
            CompletableFuture<Integer> closedUnder = f.writeAndSync(records[1], big + 4096);
            Thread.sleep(3);
            f.close();
            syncedOrClosed(closedUnder);
            assertNothingLeftInFlight(io);
        }
    }

    /** A new file of {@code content}, out of the page cache, mapped. */
    private static java.nio.MappedByteBuffer uncachedMapping(IoExecutor io, Path p, byte[] content) throws Exception {
        Files.write(p, content);
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(p)) {
            c.force(true);
            try (AsyncFile s = AsyncFile.open(io, p, StandardOpenOption.READ).get(10, TimeUnit.SECONDS)) {
                s.advise(0, content.length, Advice.DONTNEED).get(10, TimeUnit.SECONDS);
            }
            return c.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, content.length);
        }
    }

    /**
     * io_uring, {@code O_DIRECT}: four threads mixing writes and {@code writeAndSync}s of one file (200 each, every
     * tenth cancelled at once), then the file closed under a last batch: every future ends, each uncancelled record
     * reads back as written, nothing is left in flight (the two-step syncs' bookkeeping loses none of them).
     */
    @Test
    void directWritesAndWriteAndSyncsFromManyThreadsAllEnd() throws Exception {
        Path p = dir.resolve("mixed");
        int threads = 4;
        int each = 200;
        try (IoExecutor io = uring(); Arena a = Arena.ofShared()) {
            AsyncFile f = openDirect(io, p);
            MemorySegment records = a.allocate((long) threads * each * 4096, 4096);
            List<Thread> all = new ArrayList<>();
            List<CompletableFuture<Integer>> kept = java.util.Collections.synchronizedList(new ArrayList<>());
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                int lane = t;
                all.add(Thread.ofPlatform().start(() -> {
                    try {
                        List<CompletableFuture<Integer>> mine = new ArrayList<>();
                        for (int i = 0; i < each; i++) {
                            long at = ((long) lane * each + i) * 4096;
                            MemorySegment r = records.asSlice(at, 4096).fill((byte) (lane * 31 + i + 1));
                            CompletableFuture<Integer> w = i % 3 == 0 ? f.write(r, at) : f.writeAndSync(r, at);
                            if (i % 10 == 9) {
                                w.cancel(true);
                            } else {
                                mine.add(w);
                            }
                        }
                        for (CompletableFuture<Integer> w : mine) {
                            assertEquals(4096, w.get(30, TimeUnit.SECONDS));
                        }
                        kept.addAll(mine);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : all) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            for (int lane = 0; lane < threads; lane++) {
                for (int i = 0; i < each; i++) {
                    if (i % 10 != 9) {
                        assertEquals((byte) (lane * 31 + i + 1), byteAt(p, ((long) lane * each + i) * 4096),
                                "lane " + lane + ", record " + i);
                    }
                }
            }
            List<CompletableFuture<Integer>> last = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                last.add(i % 2 == 0 ? f.write(records.asSlice(i * 4096L, 4096), i * 4096L)
                        : f.writeAndSync(records.asSlice(i * 4096L, 4096), i * 4096L));
            }
            f.close();
            for (CompletableFuture<Integer> w : last) {
                syncedOrClosed(w);
            }
            assertNothingLeftInFlight(io);
        }
    }

    /** {@code p} opened (made if missing) for reading and writing with {@code O_DIRECT}; the test stops where none. */
    private static AsyncFile openDirect(IoExecutor io, Path p) throws Exception {
        try {
            return AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    FileOption.DIRECT).get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            org.junit.jupiter.api.Assumptions.abort("no O_DIRECT here: " + e.getCause());
            throw e; // not reached
        }
    }

    /** A 4 KiB write whose file was closed under it: it wrote, or failed with the close. */
    private static void syncedOrClosed(CompletableFuture<Integer> w) throws Exception {
        try {
            assertEquals(4096, w.get(30, TimeUnit.SECONDS));
        } catch (java.util.concurrent.ExecutionException e) {
            assertTrue(e.getCause() instanceof java.nio.channels.AsynchronousCloseException, e.toString());
        }
    }

    private static void assertNothingLeftInFlight(IoExecutor io) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (io.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, io.inFlight(), "left in flight after the close");
    }

}
