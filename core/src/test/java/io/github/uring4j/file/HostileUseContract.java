package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.failure;
import static io.github.uring4j.file.TestFiles.get;
import static io.github.uring4j.file.TestFiles.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.PinnedRegion;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.ring.SetupFlag;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a hostile (or careless) caller can do through the public API, on every backend: free memory under an
 * operation, drop files, hold every slot with operations that never complete, close from a completion, pass absurd
 * arguments. Whatever it does, the JVM keeps running, nothing hangs, nothing leaks, and every error says what
 * happened. {@link HostileUseUringTest} and {@link HostileUseThreadsTest} run it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class HostileUseContract {
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

    /**
     * Nothing of {@code io} is left in flight soon after its clients were told: no call is left waiting on a FIFO
     * (the threads backend's reads once went on waiting there, holding a worker, until bytes came).
     */
    void assertNothingLeftInFlight() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (io.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, io.inFlight(), "calls still in flight after their clients were told");
    }

    // ------------------------------------------------------------------------------------------ freed memory

    /** Memory already freed is refused before anything reaches the kernel: arenas, views of them, closed pools. */
    @Test
    void memoryAlreadyFreedIsRefused() throws Exception {
        Path p = file("freed", pattern(8192, 1));
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment shared;
            MemorySegment confined;
            ByteBuffer view;
            try (Arena a = Arena.ofShared(); Arena c = Arena.ofConfined()) {
                shared = a.allocate(16);
                confined = c.allocate(16);
                view = a.allocate(4096).asByteBuffer();
            }
            assertThrows(IllegalStateException.class, () -> f.read(shared, 0));
            assertThrows(IllegalStateException.class, () -> f.write(shared, 0));
            assertThrows(IllegalStateException.class, () -> f.read(view, 0));
            assertThrows(IllegalStateException.class, () -> f.read(confined, 0, null, ignoring()));
            BufferPool pool = BufferPool.create(4096, 2);
            MemorySegment lent = pool.acquire();
            ByteBuffer lentBuffer = pool.acquireBuffer();
            pool.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.read(lent, 0));
            assertTrue(e.getMessage().contains("freed"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> f.read(lentBuffer, 0));
            assertFalse(pool.isFreed(), "buffers still lent out: the memory stays");
            pool.release(lent);
            pool.release(lentBuffer);
            assertTrue(pool.isFreed(), "the last release frees a closed pool");
            assertThrows(IllegalStateException.class, pool::acquire);
            // The file is fine.
            ByteBuffer b = ByteBuffer.allocateDirect(8192);
            assertEquals(8192, get(f.readFully(b, 0)));
            assertEquals(0, io.inFlight());
        }
    }

    /** Closing a shared arena while a read into it waits: the kernel fills library memory; the read fails cleanly. */
    @Test
    void closingASharedArenaUnderAPendingReadFailsTheReadNotTheJvm() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoArena");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Arena a = Arena.ofShared();
            MemorySegment small = a.allocate(24);
            CompletableFuture<Integer> r = f.read(small, 0);
            ByteBuffer view = a.allocate(4096).asByteBuffer();
            CompletableFuture<Integer> rv = f.read(view, 0);
            a.close(); // succeeds: the kernel holds none of the arena's memory
            try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                for (int i = 0; i < 1000 && !(r.isDone() && rv.isDone()); i++) {
                    w.write(ByteBuffer.wrap(new byte[8]));
                    Thread.sleep(2);
                }
            }
            Throwable t = failure(r);
            assertInstanceOf(IllegalStateException.class, t);
            assertTrue(t.getMessage().contains("freed"), t.getMessage());
            assertInstanceOf(IllegalStateException.class, failure(rv));
            // Allocate and free a lot: a stray kernel write into freed memory would surface as heap corruption.
            for (int i = 0; i < 10_000; i++) {
                try (Arena x = Arena.ofConfined()) {
                    x.allocate(24).fill((byte) 1);
                }
            }
        }
    }

    /**
     * A read of an empty FIFO cancelled while it waits: the bytes written next go to the next read, on both backends
     * (the threads backend's cancelled read took them, and they were lost, where its timed-out one did not).
     */
    @Test
    void aCancelledFifoReadLeavesTheNextBytesToTheNextRead() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoCancel");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (int round = 0; round < 3; round++) {
                CompletableFuture<Integer> first = f.read(ByteBuffer.allocateDirect(16), 0);
                Thread.sleep(50); // waiting for bytes
                assertTrue(first.cancel(true));
                if (backend() == Backend.IO_URING) {
                    // the cancel reaches the kernel a moment later: bytes written before it ended the read may still
                    // be the read's, as the kernel's cancel of a pipe read allows. The threads backend's read looks at
                    // the mark before it takes anything: the bytes are written at once.
                    assertNothingLeftInFlight();
                }
                try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                    w.write(ByteBuffer.wrap(("hello" + round).getBytes()));
                }
                ByteBuffer b = ByteBuffer.allocateDirect(16);
                assertEquals(6, f.read(b, 0).get(10, TimeUnit.SECONDS), "round " + round);
                assertEquals("hello" + round, java.nio.charset.StandardCharsets.US_ASCII.decode(b.flip()).toString());
            }
        }
        assertNothingLeftInFlight();
    }

    /**
     * A gathering write and a scattering read of a FIFO: bytes move, as a single write or read would move them, on
     * both backends (the threads backend made positional calls: ESPIPE).
     */
    @Test
    void vectoredReadsAndWritesOfAFifoMoveBytes() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoVectored");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer[] out = {ByteBuffer.allocateDirect(0), ByteBuffer.allocateDirect(4).put("abcd".getBytes()).flip(),
                    ByteBuffer.allocateDirect(4).put("efgh".getBytes()).flip()};
            long wrote = f.write(out, 0).get(10, TimeUnit.SECONDS);
            assertTrue(wrote >= 4 && wrote <= 8, "wrote " + wrote);
            if (wrote < 8) {
                assertEquals(4, (long) f.write(new ByteBuffer[] {out[2]}, 0).get(10, TimeUnit.SECONDS));
            }
            ByteBuffer a = ByteBuffer.allocateDirect(3);
            ByteBuffer b = ByteBuffer.allocateDirect(5);
            long read = 0;
            while (read < 8) {
                long n = f.read(new ByteBuffer[] {a, b}, 0).get(10, TimeUnit.SECONDS);
                assertTrue(n > 0, "read " + n);
                read += n;
            }
            byte[] got = new byte[8];
            a.flip().get(got, 0, 3);
            b.flip().get(got, 3, 5);
            assertEquals("abcdefgh", new String(got, java.nio.charset.StandardCharsets.US_ASCII));
        }
        assertNothingLeftInFlight();
    }

    /**
     * {@code transferTo} into a FIFO, and out of one: the bytes go through it in order, as the JDK's transferTo writes
     * into a pipe (both failed with {@code ESPIPE}: the copy wrote and read at offsets).
     */
    @Test
    void transfersIntoAndOutOfAFifoMoveTheBytes() throws Exception {
        byte[] data = pattern(10_000, 3);
        Path src = file("toFifo", data);
        Path fifo = TestFiles.fifo(dir, "fifoTransfer");
        Path dst = dir.resolve("fromFifo");
        try (AsyncFile in = open(src); AsyncFile pipe = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
                AsyncFile out = open(dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertEquals(10_000L, (long) in.transferTo(0, 10_000, pipe, 0).get(10, TimeUnit.SECONDS));
            assertEquals(10_000L, (long) pipe.transferTo(0, 10_000, out, 0).get(10, TimeUnit.SECONDS));
        }
        assertArrayEquals(data, Files.readAllBytes(dst));
    }

    /**
     * A copy out of a FIFO opened for reading before any writer waits for one, as a read does, and goes on through a
     * pause of the writer until it leaves or the count is reached (before: it returned 0 at once on both backends,
     * and on the threads backend, whose FIFOs are non-blocking, it failed with {@code EAGAIN} or ended at the pause;
     * found by a hostile probe). A copy nobody feeds ends when cancelled.
     */
    @Test
    void aCopyOutOfAFifoWaitsForItsWriter() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoCopyWaits");
        Path dst = dir.resolve("fromWaitingFifo");
        try (AsyncFile pipe = open(fifo, StandardOpenOption.READ);
                AsyncFile out = open(dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            CompletableFuture<Long> copy = pipe.transferTo(0, 1000, out, 0);
            Thread.sleep(200);
            assertFalse(copy.isDone(), "a copy out of a FIFO nobody writes waits: " + copy);
            try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("first".getBytes(StandardCharsets.US_ASCII)));
                Thread.sleep(200);
                assertFalse(copy.isDone(), "the copy waits through the writer's pause: " + copy);
                w.write(ByteBuffer.wrap("|second".getBytes(StandardCharsets.US_ASCII)));
            }
            assertEquals(12L, (long) copy.get(10, TimeUnit.SECONDS), "the copy ends when the writer leaves");
            assertEquals(0L, (long) pipe.transferTo(0, 1000, out, 100).get(10, TimeUnit.SECONDS),
                    "the writer has left: the FIFO ends at once, as a read says");
        }
        assertEquals("first|second", Files.readString(dst));
        Path unfed = TestFiles.fifo(dir, "fifoCopyUnfed");
        try (AsyncFile pipe = open(unfed, StandardOpenOption.READ);
                AsyncFile out = open(dir.resolve("fromUnfedFifo"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            CompletableFuture<Long> copy = pipe.transferTo(0, 1000, out, 0);
            Thread.sleep(100);
            assertFalse(copy.isDone(), "no writer: " + copy);
            copy.cancel(true);
            assertTrue(copy.isCancelled());
        }
        assertNothingLeftInFlight();
    }

    /** A pool closed while one of its buffers is under a read keeps the memory until the read completes. */
    @Test
    void closingABufferPoolUnderAPendingReadDefersTheFree() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoPool");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            BufferPool pool = BufferPool.create(4096, 1);
            MemorySegment buf = pool.acquire();
            CompletableFuture<Integer> r = f.read(buf.asSlice(0, 8), 0);
            pool.release(buf); // released too early, then closed: the caller's mistake
            pool.close();
            assertFalse(pool.isFreed(), "a read still uses the memory");
            try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("deferred".getBytes()));
            }
            assertEquals(8, get(r));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pool.isFreed() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(pool.isFreed(), "freed once the read completed");
        }
    }

    /**
     * A pool buffer released under a pending read and lent out again with a smaller limit: the read cannot advance
     * it, and says so, instead of never completing (and keeping the pool's memory for ever).
     */
    @Test
    void aPoolBufferLentAgainUnderAPendingReadStillEndsTheRead() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoLentAgain");
        try (AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            BufferPool pool = BufferPool.create(4096, 1);
            ByteBuffer buf = pool.acquireBuffer().limit(8);
            CompletableFuture<Integer> r = f.read(buf, 0);
            pool.release(buf); // the caller's mistake: released while the read uses it
            ByteBuffer again = pool.acquireBuffer(); // the same buffer, lent out again
            again.limit(2);
            try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("lentagain".getBytes()));
            }
            Throwable t = failure(r);
            assertInstanceOf(IllegalStateException.class, t);
            assertTrue(t.getMessage().contains("changed"), t.getMessage());
            pool.release(again);
            pool.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pool.isFreed() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(pool.isFreed(), "the read gave the pool's memory back");
            assertEquals(0, io.inFlight());
        }
    }

    /** Confined memory: a write copies it at the call; a read into it (completed on another thread) is refused. */
    @Test
    void confinedArenasWriteButCannotBeReadInto() throws Exception {
        Path p = dir.resolve("confined");
        try (AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena c = Arena.ofConfined()) {
            MemorySegment m = c.allocate(100);
            m.fill((byte) 7);
            assertEquals(100, get(f.write(m, 0)));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.read(m, 0));
            assertTrue(e.getMessage().contains("confined"), e.getMessage());
            MemorySegment shared = Arena.ofAuto().allocate(100);
            assertEquals(100, get(f.read(shared, 0)));
            assertEquals(7, shared.get(ValueLayout.JAVA_BYTE, 99));
        }
    }

    // ------------------------------------------------------------------------------------------ hangs

    /**
     * A file whose reads never complete fills its in-flight limit and more: another file's operations still run,
     * and its own close cancels everything and completes.
     */
    @Test
    void aFileStuckOnEveryInFlightSlotHoldsBackNeitherOthersNorItsClose() throws Exception {
        io.close();
        io = builder().inFlightLimit(8).threads(2).build();
        Path fifo = TestFiles.fifo(dir, "fifoFull");
        Path other = file("other", pattern(4096, 2));
        AsyncFile stuck = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        List<CompletableFuture<Integer>> reads = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            reads.add(stuck.read(ByteBuffer.allocateDirect(8), 0));
        }
        try (AsyncFile g = open(other)) {
            assertEquals(4096, g.read(ByteBuffer.allocateDirect(4096), 0).get(10, TimeUnit.SECONDS));
        }
        stuck.closeAsync().get(10, TimeUnit.SECONDS);
        for (CompletableFuture<Integer> r : reads) {
            Throwable t = failure(r);
            assertTrue(t instanceof AsynchronousCloseException || t instanceof CancellationException, String.valueOf(t));
        }
        assertNothingLeftInFlight();
        try (AsyncFile g = open(other)) {
            assertEquals(4096, get(g.read(ByteBuffer.allocateDirect(4096), 0)));
        }
    }

    /**
     * Reads with a timeout that wait behind their file's in-flight limit, held by reads of a FIFO nobody writes, time
     * out all the same (on io_uring they once waited for a slot, their timeout not yet started, for ever); the reads
     * holding the limit go on waiting until the close.
     */
    @Test
    void timedReadsWaitingBehindTheInFlightLimitTimeOut() throws Exception {
        io.close();
        io = builder().inFlightLimit(2).threads(2).build();
        AsyncFile f = open(TestFiles.fifo(dir, "fifoTimed"), StandardOpenOption.READ, StandardOpenOption.WRITE);
        List<CompletableFuture<Integer>> holding = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            holding.add(f.read(ByteBuffer.allocateDirect(8), 0));
        }
        List<CompletableFuture<Integer>> timed = new ArrayList<>();
        for (int ms : new int[] {300, 50, 0, 150}) { // not in deadline order
            timed.add(f.withTimeout(Duration.ofMillis(ms)).read(ByteBuffer.allocateDirect(8), 0));
        }
        for (CompletableFuture<Integer> t : timed) {
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, failure(t));
        }
        for (CompletableFuture<Integer> h : holding) {
            assertFalse(h.isDone(), "a read nobody fed ended: " + h);
        }
        f.closeAsync().get(10, TimeUnit.SECONDS);
        for (CompletableFuture<Integer> h : holding) {
            Throwable t = failure(h);
            assertTrue(t instanceof AsynchronousCloseException || t instanceof CancellationException, String.valueOf(t));
        }
        assertNothingLeftInFlight();
    }

    /** Closing the file from its own completion (the blocking close()) neither deadlocks nor fails. */
    @Test
    void closingAFileFromItsOwnCompletion() throws Exception {
        Path p = file("selfclose", pattern(100, 3));
        AsyncFile f = open(p);
        CompletableFuture<Integer> chain = f.read(ByteBuffer.allocateDirect(100), 0).whenComplete((n, t) -> {
            try {
                f.close();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        assertEquals(100, chain.get(10, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertFalse(f.isOpen());
        get(f.closeAsync());
    }

    /**
     * A handler whose failure closes {@code f}, then completes {@code told} with that failure (or with what the close
     * threw); a result completes it with null.
     */
    private static java.nio.channels.CompletionHandler<Integer, Object> closesOnFailure(AsyncFile f,
            CompletableFuture<Throwable> told) {
        return new java.nio.channels.CompletionHandler<>() {
            public void completed(Integer n, Object a) {
                told.complete(null);
            }

            public void failed(Throwable t, Object a) {
                try {
                    f.close();
                    told.complete(t);
                } catch (Throwable e) {
                    told.complete(e);
                }
            }
        };
    }

    /**
     * A read that times out, whose handler closes its file: the close returns and the file closes (on the threads
     * backend the timeout's handler once ran under the task's lock, which the close waited for: both hung).
     */
    @Test
    void aTimeoutHandlerThatClosesItsFileDoesNotHang() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoTimeoutClose");
        AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        CompletableFuture<Throwable> told = new CompletableFuture<>();
        f.withTimeout(Duration.ofMillis(20)).read(ByteBuffer.allocateDirect(1), 0, null, closesOnFailure(f, told));
        assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, told.get(30, TimeUnit.SECONDS),
                "the handler was told of the timeout and its close() returned");
        assertFalse(f.isOpen());
        assertNothingLeftInFlight();
    }

    /**
     * A pending read failed by its file's close, whose handler closes the file again: that inner close returns at
     * once (on the threads backend it once waited for the close that was calling it).
     */
    @Test
    void aHandlerOfAReadFailedByCloseMayCloseAgain() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoCloseAgain");
        AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        CompletableFuture<Throwable> told = new CompletableFuture<>();
        f.read(ByteBuffer.allocateDirect(1), 0, null, closesOnFailure(f, told));
        while (io.inFlight() == 0) {
            Thread.sleep(1);
        }
        get(f.closeAsync());
        assertInstanceOf(java.nio.channels.AsynchronousCloseException.class, told.get(30, TimeUnit.SECONDS),
                "the handler was told of the close and its own close() returned");
        assertFalse(f.isOpen());
        assertNothingLeftInFlight();
    }

    /**
     * A read of a FIFO that timed out took nothing from it: what is written afterwards goes to the next read (on the
     * threads backend the timed-out read once went on waiting on its worker and swallowed those bytes).
     */
    @Test
    void aTimedOutReadOfAFifoLosesNoBytes() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoNoLoss");
        AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class,
                    failure(f.withTimeout(Duration.ofMillis(20)).read(ByteBuffer.allocateDirect(8), 0)));
        }
        nextReadGetsWhatIsWrittenNow(f);
        assertNothingLeftInFlight();
        f.closeAsync().get(10, TimeUnit.SECONDS);
    }

    /**
     * A handler that issues its read again each time it fails, on a closed file: every failure is told at once on
     * the calling thread, so the retries nest in one another; past a few levels they are told on another thread
     * (the JDK's channel does the same past 16), and all 100,000 end without a {@code StackOverflowError}. The same
     * when the file's executor was closed.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aHandlerRetryingOnAClosedFileDoesNotOverflowTheStack(boolean closeTheExecutor) throws Exception {
        Path p = file("retryClosed", pattern(10, 5));
        AsyncFile f = open(p);
        if (closeTheExecutor) {
            io.close(); // its files close with it
        } else {
            f.close();
        }
        CompletableFuture<Integer> done = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        java.nio.channels.CompletionHandler<Integer, Object> retry = new java.nio.channels.CompletionHandler<>() {
            public void completed(Integer n, Object a) {
                done.completeExceptionally(new AssertionError("a closed file read " + n + " bytes"));
            }

            public void failed(Throwable t, Object a) {
                if (!(t instanceof java.nio.channels.ClosedChannelException)) {
                    done.completeExceptionally(t);
                } else if (tries.incrementAndGet() == 100_000) {
                    done.complete(tries.get());
                } else {
                    f.read(ByteBuffer.allocate(1), 0, null, this);
                }
            }
        };
        f.read(ByteBuffer.allocate(1), 0, null, retry);
        assertEquals(100_000, done.get(30, TimeUnit.SECONDS), "every retry was told");
    }

    /**
     * Reads cancelled at every moment of their life (a hostile probe's case): once a cancel returned true nothing
     * changes in the buffer (a heap buffer gets none of the file's bytes, no buffer's position moves, even once the
     * read has really ended), and one that returned false comes with the whole read. The future was completed before
     * the request was marked, so a read ending at that moment filled the buffer after the caller was told it was
     * cancelled.
     */
    @Test
    void aReadCancelledInTimeLeavesItsBufferAlone() throws Exception {
        byte[] data = pattern(4096, 9);
        Path p = file("cancelled", data);
        io.close();
        io = builder().callerReads(false).build();
        int cancelled = 0;
        int completed = 0;
        try (AsyncFile f = open(p)) {
            for (int i = 0; i < 20_000; i++) {
                boolean heap = i % 2 == 0;
                ByteBuffer b = heap ? ByteBuffer.allocate(4096) : ByteBuffer.allocateDirect(4096);
                CompletableFuture<Integer> r = f.read(b, 0);
                for (int s = 0; s < (i % 300) * 10; s++) {
                    Thread.onSpinWait();
                }
                if (r.cancel(true)) {
                    cancelled++;
                    int at = b.position(); // 0, or 4096 when the read was delivering as the cancel came
                    if (heap) {
                        java.util.Arrays.fill(b.array(), (byte) 7); // the caller's again
                    }
                    assertNothingLeftInFlight(); // the read has really ended by now
                    assertEquals(at, b.position(), "the position of a cancelled read's buffer moved");
                    if (heap) {
                        for (int j = 0; j < 4096; j++) {
                            assertEquals(7, b.get(j), "byte " + j + " of a cancelled read's heap buffer changed");
                        }
                    }
                    assertInstanceOf(CancellationException.class, failure(r));
                } else {
                    completed++;
                    assertEquals(4096, get(r));
                    assertEquals(4096, b.position());
                    for (int j = 0; j < 4096; j++) {
                        assertEquals(data[j], b.get(j), "byte " + j);
                    }
                }
            }
        }
        assertTrue(cancelled > 0 && completed > 0, cancelled + " cancelled, " + completed + " completed");
    }

    /**
     * A file closed under a large write (a hostile probe's case): when {@code close()} returns, the write has ended
     * (normally or with {@code AsynchronousCloseException}) and no descriptor of the file is left, so nothing lands
     * in the file afterwards. On the threads backend the close returned at once, the descriptor stayed open until the
     * write returned, and a write said to have failed landed after a truncation the caller made once close returned.
     */
    @Test
    void closeReturnsOnceTheCallsRunningOnItsFileHaveEnded() throws Exception {
        Path p = dir.resolve("closed-under-write");
        for (int round = 0; round < 5; round++) {
            AsyncFile f = open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            CompletableFuture<Integer> w = f.write(ByteBuffer.allocateDirect(32 << 20), 0);
            while (io.inFlight() == 0 && !w.isDone()) {
                Thread.onSpinWait();
            }
            f.close();
            assertTrue(w.isDone(), "the write is still running after close() returned");
            Throwable t = failure(w);
            assertTrue(t == null || t instanceof AsynchronousCloseException || t instanceof CancellationException,
                    String.valueOf(t));
            assertEquals(0, descriptorsOf(p), "descriptors of the file left open after close() returned: "
                    + TestFiles.fdTargets());
        }
    }

    /**
     * {@code transferTo} racing the close of its source (a hostile probe's case): it copies, or fails as any operation
     * on a closed file does ({@code ClosedChannelException}, {@code AsynchronousCloseException}); once it failed with
     * {@code EBADF} from duplicating the descriptor the close had just closed.
     */
    @Test
    void transferToRacingTheCloseOfItsSourceFailsAsOnAClosedFile() throws Exception {
        Path src = file("race-src", pattern(65536, 4));
        Path dst = file("race-dst", new byte[0]);
        try (AsyncFile out = open(dst, StandardOpenOption.WRITE)) {
            for (int i = 0; i < 3000; i++) {
                AsyncFile in = open(src);
                CompletableFuture<CompletableFuture<Long>> started = CompletableFuture.supplyAsync(
                        () -> in.transferTo(0, 4096, out, 0));
                in.closeAsync();
                Throwable t = failure(started.thenCompose(x -> x));
                while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
                    t = t.getCause();
                }
                assertTrue(t == null || t instanceof java.nio.channels.ClosedChannelException, String.valueOf(t));
            }
        }
        assertNothingLeftInFlight();
    }

    /** A cancelled read of a FIFO takes nothing from it either, and leaves nothing in flight. */
    @Test
    void aCancelledReadOfAFifoLosesNoBytes() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoCancelNoLoss");
        AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        CompletableFuture<Integer> waiting = f.read(ByteBuffer.allocateDirect(8), 0);
        while (io.inFlight() == 0) {
            Thread.sleep(1);
        }
        assertTrue(waiting.cancel(true));
        assertNothingLeftInFlight();
        nextReadGetsWhatIsWrittenNow(f);
        f.closeAsync().get(10, TimeUnit.SECONDS);
    }

    /**
     * Writes of 64 KiB with a timeout into a FIFO nobody reads: once it is full, a write times out, and from then on
     * nothing more of any write enters the FIFO. It holds exactly the bytes the writes reported, in their order (on
     * the threads backend a write once went on blocking on its worker after its timeout, and put its bytes in as soon
     * as a reader made room).
     */
    @Test
    void aTimedOutWriteOfAFullFifoWritesNothingAfterwards() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoWriteFull");
        AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        byte[] reported = fill(f);
        java.io.ByteArrayOutputStream drained = new java.io.ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(64 * 1024);
        while (failure(f.withTimeout(Duration.ofMillis(300)).read(b.clear(), 0)
                .thenAccept(n -> drained.write(b.array(), 0, n))) == null) {
            // reads until the FIFO stays empty for 300 ms
        }
        assertEquals(reported.length, drained.size(), "the FIFO held the bytes the writes reported, no more");
        assertTrue(java.util.Arrays.equals(reported, drained.toByteArray()), "in the writes' order");
        nextReadGetsWhatIsWrittenNow(f);
        assertNothingLeftInFlight();
        f.closeAsync().get(10, TimeUnit.SECONDS);
    }

    /**
     * A write waiting for room in a full FIFO, then its file closed: the write fails with
     * {@code AsynchronousCloseException}, the close returns, and nothing is left in flight.
     */
    @Test
    void closingAFileUnderAWriteWaitingOnAFullFifoEndsTheWrite() throws Exception {
        AsyncFile f = open(TestFiles.fifo(dir, "fifoWriteClose"), StandardOpenOption.READ, StandardOpenOption.WRITE);
        fill(f);
        CompletableFuture<Integer> waiting = f.write(ByteBuffer.wrap(pattern(4096, 7)), 0);
        while (io.inFlight() == 0) {
            Thread.sleep(1);
        }
        f.closeAsync().get(10, TimeUnit.SECONDS);
        assertInstanceOf(AsynchronousCloseException.class, failure(waiting));
        assertNothingLeftInFlight();
    }

    /**
     * Writes 64 KiB with a timeout into the FIFO {@code f}, which nobody reads, until one times out: the bytes the
     * writes reported, in their order.
     */
    private byte[] fill(AsyncFile f) throws Exception {
        java.io.ByteArrayOutputStream reported = new java.io.ByteArrayOutputStream();
        Throwable timedOut = null;
        for (int i = 0; i < 64 && timedOut == null; i++) { // 4 MiB: more than a pipe holds by default (64 KiB-1 MiB)
            byte[] b = pattern(64 * 1024, i);
            timedOut = failure(f.withTimeout(Duration.ofMillis(100)).write(ByteBuffer.wrap(b), 0).thenAccept(n -> {
                assertTrue(n > 0 && n <= b.length, "a write reports 1 to " + b.length + " bytes, not " + n);
                reported.write(b, 0, n);
            }));
        }
        assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class, timedOut,
                "a write into the full FIFO timed out");
        assertNothingLeftInFlight();
        return reported.toByteArray();
    }

    /**
     * A block device: {@code statx} says its size is 0, the device's own size is asked of it ({@code BLKGETSIZE64}),
     * as the JDK's channels do (before: 0); reads anywhere in it get its bytes. Skipped where no loop device can be
     * attached.
     */
    @Test
    void aBlockDeviceHasTheSizeOfTheDevice() throws Exception {
        byte[] content = pattern(3 * 4096 + 17, 42);
        long bytes = 8 << 20;
        Path dev = TestFiles.loopDevice(dir, bytes, content);
        try (AsyncFile f = open(dev, StandardOpenOption.READ)) {
            assertEquals(bytes, get(f.size()));
            ByteBuffer b = ByteBuffer.allocate(4096);
            long at = bytes - 4096;
            assertEquals(4096, get(f.readFully(b, at)));
            for (int i = 0; i < 4096; i++) {
                assertEquals(content[(int) ((at + i) % content.length)], b.get(i), "byte " + (at + i));
            }
        } finally {
            TestFiles.detach(dev);
        }
        assertNothingLeftInFlight();
    }

    /**
     * A file of procfs says it is empty and gives about a page a read: {@code readFile} reads it to its end, as the
     * JDK's {@code Files.readAllBytes} does (before: the first 4,021 of /proc/crypto's 11,460 bytes, as if that were
     * all of it; found by a hostile probe). A small file on disk is read whole as before.
     */
    @Test
    void readFileReadsAProcFileToItsEnd() throws Exception {
        Path proc = Path.of("/proc/crypto");
        byte[] expect = Files.readAllBytes(proc);
        Assumptions.assumeTrue(expect.length > 8192 && Arrays.equals(expect, Files.readAllBytes(proc)),
                "no /proc/crypto of several pages that stays the same here");
        for (ByteBuffer dst : new ByteBuffer[] {ByteBuffer.allocate(1 << 20), ByteBuffer.allocateDirect(1 << 20)}) {
            assertEquals(expect.length, get(AsyncFile.readFile(io, proc, dst)));
            byte[] got = new byte[expect.length];
            dst.flip().get(got);
            assertArrayEquals(expect, got);
        }
        ByteBuffer small = ByteBuffer.allocate(5000);
        assertEquals(5000, get(AsyncFile.readFile(io, proc, small)), "a buffer smaller than the file is filled");
        assertArrayEquals(Arrays.copyOf(expect, 5000), small.array());
        Path onDisk = file("read-whole", pattern(3000, 45));
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        assertEquals(3000, get(AsyncFile.readFile(io, onDisk, b)));
        assertArrayEquals(pattern(3000, 45), Arrays.copyOf(b.array(), 3000));
        assertNothingLeftInFlight();
    }

    /**
     * A path longer than {@code PATH_MAX} fails with {@code ENAMETOOLONG} on both backends, opened or read whole (the
     * io_uring backend said the path had no terminating NUL, as an {@code IllegalArgumentException}: found by a hostile
     * probe).
     */
    @Test
    void aPathLongerThanPathMaxFailsWithNameTooLong() throws Exception {
        Path tooLong = dir.resolve("d".repeat(200)).resolve("z".repeat(4200));
        for (CompletableFuture<?> f : List.of(AsyncFile.open(io, tooLong, StandardOpenOption.READ),
                AsyncFile.readFile(io, tooLong, ByteBuffer.allocate(16)))) {
            FileIOException e = assertInstanceOf(FileIOException.class, failure(f));
            assertEquals(Errno.ENAMETOOLONG, e.errno(), e.getMessage());
        }
        assertNothingLeftInFlight();
    }

    /**
     * A write to a /proc file that takes none ({@code /proc/self/status}) fails with {@code ESPIPE} as the JDK's
     * channel says ("Illegal seek"), on both backends (the threads backend took the offset's refusal for a pipe's,
     * wrote without one and said {@code EINVAL}; found by a hostile probe); the file is still read.
     */
    @Test
    void aWriteToAProcFileThatTakesNoneFailsWithIllegalSeek() throws Exception {
        Path status = Path.of("/proc/self/status");
        Assumptions.assumeTrue(Files.isRegularFile(status), "no /proc here");
        try (AsyncFile f = get(AsyncFile.open(io, status, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            Throwable t = failure(f.write(ByteBuffer.wrap(new byte[] {'x'}), 0));
            FileIOException e = assertInstanceOf(FileIOException.class, t);
            assertEquals(Errno.ESPIPE, e.errno(), e.getMessage());
            assertTrue(get(f.read(ByteBuffer.allocate(64), 0)) > 0);
        }
        assertNothingLeftInFlight();
    }

    /**
     * A symbolic link opened with {@code NOFOLLOW_LINKS} fails with {@code ELOOP}, which is no loop of links: the
     * failure says both (before: a {@code FileSystemLoopException} naming the path alone, where the JDK says "Too many
     * levels of symbolic links (NOFOLLOW_LINKS specified)").
     */
    @Test
    void aSymbolicLinkOpenedWithNoFollowLinksIsNotCalledALoop() throws Exception {
        Path target = file("nofollow-target", pattern(10, 43));
        Path link = Files.createSymbolicLink(dir.resolve("nofollow-link"), target);
        Throwable t = failure(AsyncFile.open(io, link, StandardOpenOption.READ, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertInstanceOf(java.nio.file.FileSystemException.class, t);
        assertFalse(t instanceof java.nio.file.FileSystemLoopException, t.toString());
        assertTrue(t.getMessage().contains("NOFOLLOW_LINKS") && t.getMessage().contains(link.toString()), t.getMessage());
        try (AsyncFile f = open(target, StandardOpenOption.READ, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            assertEquals(10, get(f.size()));
        }
    }

    /**
     * Character devices, which have no end and no offsets that mean anything: {@code /dev/zero} fills a read,
     * {@code /dev/null} takes every write and ends every read at once, and {@code /dev/full}'s writes fail with an
     * exception that says the device is full; nothing is left in flight.
     */
    @Test
    void characterDevicesBehaveAsTheKernelSays() throws Exception {
        try (AsyncFile zero = open(Path.of("/dev/zero"))) {
            ByteBuffer b = ByteBuffer.allocateDirect(64 * 1024);
            b.put(0, (byte) 1).put(b.capacity() - 1, (byte) 1);
            assertEquals(b.capacity(), get(zero.readFully(b, 0)), "/dev/zero fills the buffer");
            assertEquals(0, b.get(0));
            assertEquals(0, b.get(b.capacity() - 1));
        }
        try (AsyncFile nul = open(Path.of("/dev/null"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertEquals(4096, get(nul.write(ByteBuffer.wrap(pattern(4096, 1)), 1L << 40)));
            assertEquals(-1, get(nul.read(ByteBuffer.allocate(16), 0)), "/dev/null ends every read");
            assertInstanceOf(java.io.EOFException.class, failure(nul.readFully(ByteBuffer.allocate(16), 0)));
            // the device takes the write but cannot be synced (EINVAL): the failure says the write went through
            for (ByteBuffer src : new ByteBuffer[] {ByteBuffer.wrap(pattern(4096, 3)), ByteBuffer.allocateDirect(4096)}) {
                Throwable t = failure(nul.writeAndSync(src, 123_456));
                FileIOException e = assertInstanceOf(FileIOException.class, t);
                assertTrue(t.getMessage().contains("FDATASYNC after a WRITE of 4096 bytes")
                        && t.getMessage().contains("/dev/null at 123456"), "says the write moved its bytes, and where: "
                        + t.getMessage());
                assertEquals(123_456, e.offset(), "where the write began");
            }
        }
        try (AsyncFile full = open(Path.of("/dev/full"), StandardOpenOption.WRITE)) {
            Throwable t = failure(full.write(ByteBuffer.wrap(pattern(100, 2)), 0));
            assertInstanceOf(IOException.class, t);
            assertTrue(t.getMessage().contains("/dev/full") && t.getMessage().toLowerCase(java.util.Locale.ROOT)
                    .contains("space"), "says which file, and that it is full: " + t.getMessage());
        }
        assertNothingLeftInFlight();
    }

    /**
     * An open of a FIFO for reading only, with no writer yet, returns at once on both backends (io_uring's first try of
     * an open is non-blocking, and the threads backend opens without blocking so that nothing can hold its worker for
     * ever; a FIFO opened that way for reading needs no writer). Its reads wait instead, as they would after
     * {@code open(2)}: until a writer writes; once the writer is gone, the FIFO ends. The same for
     * {@code readFile}, whose waiting read a cancel ends.
     */
    @Test
    void aReadOnlyOpenOfAFifoOpensAtOnceAndItsReadsWaitForAWriter() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoOpenWaits");
        AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ));
        assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class,
                failure(f.withTimeout(Duration.ofMillis(100)).read(ByteBuffer.allocate(8), 0)), "a read waits for a writer");
        try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
            w.write(ByteBuffer.wrap(new byte[] {7}));
            ByteBuffer b = ByteBuffer.allocate(8);
            assertEquals(1, get(f.read(b, 0)));
            assertEquals(7, b.get(0));
        }
        assertEquals(-1, get(f.read(ByteBuffer.allocate(8), 0)), "the writer gone, the FIFO ends");
        assertNothingLeftInFlight();
        f.close();
        // readFile's open does not wait either: its read does, until cancelled
        CompletableFuture<Integer> whole = AsyncFile.readFile(io, fifo, ByteBuffer.allocateDirect(8));
        while (io.inFlight() == 0 && !whole.isDone()) {
            Thread.sleep(1);
        }
        Thread.sleep(50);
        assertFalse(whole.isDone(), "readFile of a FIFO nobody writes waits: " + whole);
        assertTrue(whole.cancel(true));
        assertInstanceOf(CancellationException.class, failure(whole));
        assertNothingLeftInFlight();
    }

    /**
     * An open of a FIFO for writing only waits, as {@code open(2)} does, until a reader opens it, then writes to it
     * (io_uring's own first try of an open, non-blocking, once failed it at once with {@code ENXIO}); such an open
     * cancelled ends with {@code CancellationException} and leaves nothing in flight, another waiting when the
     * executor closes fails with {@code AsynchronousCloseException}, and no descriptor is left once a reader came. A
     * socket's path still fails with {@code ENXIO}, said in words.
     */
    @Test
    void aWriteOnlyOpenOfAFifoWaitsForItsReader() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoWriterWaits");
        CompletableFuture<AsyncFile> opening = AsyncFile.open(io, fifo, StandardOpenOption.WRITE);
        Thread.sleep(100);
        assertFalse(opening.isDone(), "the open waits for a reader, but ended: " + opening);
        try (FileChannel r = FileChannel.open(fifo, StandardOpenOption.READ)) {
            AsyncFile w = opening.get(20, TimeUnit.SECONDS);
            assertEquals(2, get(w.write(ByteBuffer.wrap(new byte[] {4, 2}), 0)));
            ByteBuffer b = ByteBuffer.allocate(2);
            assertEquals(2, r.read(b));
            assertEquals(4, b.get(0));
            w.close();
        }
        Path socket = dir.resolve("socket");
        try (var server = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            server.bind(java.net.UnixDomainSocketAddress.of(socket));
            Throwable t = failure(AsyncFile.open(io, socket, StandardOpenOption.WRITE));
            assertInstanceOf(IOException.class, t);
            assertTrue(t.getMessage().contains(socket.toString()), t.getMessage());
        }
        CompletableFuture<AsyncFile> cancelled = AsyncFile.open(io, fifo, StandardOpenOption.WRITE);
        Thread.sleep(100);
        assertTrue(cancelled.cancel(true));
        assertInstanceOf(CancellationException.class, failure(cancelled));
        assertNothingLeftInFlight();
        CompletableFuture<AsyncFile> waiting = AsyncFile.open(io, fifo, StandardOpenOption.WRITE);
        Thread.sleep(100);
        assertFalse(waiting.isDone());
        io.close();
        Throwable closed = failure(waiting);
        assertInstanceOf(AsynchronousCloseException.class, closed, String.valueOf(closed));
        // read and write: an open that returns whether a writer waits or not
        try (FileChannel r = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (descriptorsOf(fifo) > 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, descriptorsOf(fifo), "only the reader's descriptor is open: " + TestFiles.fdTargets());
        }
    }

    private static long descriptorsOf(Path p) throws IOException {
        return TestFiles.fdTargets().stream().filter(t -> t.endsWith(" -> " + p)).count();
    }

    /** Writes 5 bytes into the FIFO {@code f} and reads them back: no earlier read of it took them. */
    private void nextReadGetsWhatIsWrittenNow(AsyncFile f) throws Exception {
        assertEquals(5, get(f.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)), 0)));
        ByteBuffer b = ByteBuffer.allocate(8);
        assertEquals(5, get(f.withTimeout(Duration.ofSeconds(20)).read(b, 0)), "the next read gets the bytes");
        assertEquals("hello", new String(b.array(), 0, 5, StandardCharsets.US_ASCII));
    }

    /** Reads of a FIFO that time out, then close of the file and of the executor: both return. */
    @Test
    void closeAfterTimedOutReadsReturns() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoTimeout");
        AsyncFile f = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
        for (int i = 0; i < 3; i++) {
            assertInstanceOf(java.nio.channels.InterruptedByTimeoutException.class,
                    failure(f.withTimeout(Duration.ofMillis(20)).read(ByteBuffer.allocateDirect(1), 0)));
        }
        f.closeAsync().get(10, TimeUnit.SECONDS);
        assertFalse(f.isOpen());
        long t0 = System.nanoTime();
        io.close();
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "executor close returned");
        assertNothingLeftInFlight();
    }

    // ------------------------------------------------------------------------------------------ leaks

    /** Files dropped without close() give their descriptors back once unreachable, as the JDK's channels do. */
    @Test
    void droppedFilesAreClosedWhenUnreachable() throws Exception {
        Path p = file("dropped", pattern(10, 4));
        int before = TestFiles.openFds();
        for (int i = 0; i < 2000; i++) {
            AsyncFile f = open(p);
            assertEquals(10, get(f.read(ByteBuffer.allocate(16), 0)));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (TestFiles.openFds() > before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        // at most as many: an executor another test dropped may be closed meanwhile
        assertTrue(TestFiles.openFds() <= before, "descriptors of dropped files: " + TestFiles.fdTargets().size());
    }

    /**
     * Buffers and segments an operation used are not kept once it ended and the caller dropped them: direct buffers
     * of {@code allocateDirect} (whose segment's scope refers to the buffer) and automatic arenas (whose memory lives as
     * long as their scope is reachable), read into and written from through futures and handlers.
     */
    @Test
    void memoryAnOperationUsedIsNotKeptAfterIt() throws Exception {
        Path p = file("kept", pattern(4096, 5));
        List<java.lang.ref.WeakReference<Object>> used = new ArrayList<>();
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (int i = 0; i < 64; i++) {
                ByteBuffer b = ByteBuffer.allocateDirect(4096);
                assertEquals(4096, get(f.read(b, 0)));
                b.flip();
                assertEquals(4096, get(f.write(b, 0)));
                used.add(new java.lang.ref.WeakReference<>(b));
                Arena auto = Arena.ofAuto();
                MemorySegment s = auto.allocate(4096);
                assertEquals(4096, get(f.read(s, 0)));
                CompletableFuture<Integer> done = new CompletableFuture<>();
                f.read(s.asByteBuffer(), 0, null, TestFiles.into(done));
                assertEquals(4096, get(done));
                used.add(new java.lang.ref.WeakReference<>(auto));
                used.add(new java.lang.ref.WeakReference<>(s));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (used.stream().anyMatch(w -> w.get() != null) && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, used.stream().filter(w -> w.get() != null).count(), "buffers and arenas still reachable");
    }

    /**
     * A copy that never ends by itself ({@code /dev/zero} to {@code /dev/null}, through the library's own buffer):
     * {@code cancel} stops it, and no thread goes on copying (a cancelled copy of a file went on to its end, and wrote
     * over what the caller wrote to the target after the cancel). Closing the files does not stop a copy: it has
     * descriptors of its own ({@code AsyncFileContract.transferToSurvivesClosingBothFilesAndLeaksNoDescriptor}).
     */
    @Test
    void aCancelledCopyStops() throws Exception {
        try (AsyncFile zero = open(Path.of("/dev/zero"), StandardOpenOption.READ);
                AsyncFile sink = open(Path.of("/dev/null"), StandardOpenOption.WRITE)) {
            CompletableFuture<Long> copy = zero.transferTo(0, Long.MAX_VALUE, sink, 0);
            awaitCopying(true);
            assertTrue(copy.cancel(true));
            awaitCopying(false);
            assertTrue(copy.isCancelled());
        }
    }

    /**
     * The same copy, its executor closed: the copy stops and fails with {@code AsynchronousCloseException}, as the
     * executor's other operations that did not finish (it went on, and ended as started, after the close).
     */
    @Test
    void aCopyStopsWhenItsExecutorCloses() throws Exception {
        AsyncFile zero = open(Path.of("/dev/zero"), StandardOpenOption.READ);
        AsyncFile sink = open(Path.of("/dev/null"), StandardOpenOption.WRITE);
        CompletableFuture<Long> copy = zero.transferTo(0, Long.MAX_VALUE, sink, 0);
        awaitCopying(true);
        io.close();
        awaitCopying(false);
        assertInstanceOf(AsynchronousCloseException.class, failure(copy));
    }

    /** Waits until some thread is (or no thread is any more) inside the library's copy. */
    private static void awaitCopying(boolean copying) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean any = Thread.getAllStackTraces().values().stream().anyMatch(st -> java.util.Arrays.stream(st)
                    .anyMatch(f -> f.getClassName().equals("io.github.uring4j.file.Copies")
                            && f.getMethodName().equals("buffered")));
            if (any == copying) {
                return;
            }
            Thread.sleep(5); // polling a condition
        }
        throw new AssertionError(copying ? "the copy did not start" : "the copy went on after it was stopped");
    }

    /**
     * {@code DELETE_ON_CLOSE} as the JDK's channels make it: the name is gone once the open returns (so an exit
     * without {@code close()} leaves no file), the open file still reads and writes, and its close deletes nothing, not
     * even a file created under the same name meanwhile (the library unlinked the path at close, which did both).
     */
    @Test
    void deleteOnCloseUnlinksAtOpenAndTheCloseDeletesNothing() throws Exception {
        for (FileOption extra : new FileOption[] {null, FileOption.REGISTERED}) {
            Path p = dir.resolve("doc" + extra);
            AsyncFile f = extra == null
                    ? open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                            StandardOpenOption.DELETE_ON_CLOSE)
                    : open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                            StandardOpenOption.DELETE_ON_CLOSE, extra);
            assertFalse(Files.exists(p), "the name goes at the open");
            assertEquals(5, get(f.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)), 0)));
            ByteBuffer b = ByteBuffer.allocate(5);
            assertEquals(5, get(f.read(b, 0)));
            assertEquals("hello", new String(b.array(), StandardCharsets.US_ASCII));
            Files.writeString(p, "someone else's");
            f.close();
            assertEquals("someone else's", Files.readString(p), "the close deleted another file");
        }
    }

    /** An operation in flight keeps its file reachable: a file dropped right after starting a read is not closed under it. */
    @Test
    void aFileWithAnOperationInFlightIsNotCollected() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoReach");
        CompletableFuture<Integer> r = open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)
                .read(ByteBuffer.allocateDirect(4), 0);
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertFalse(r.isDone(), "the read is still waiting, not cancelled by a cleaner");
        try (FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
            w.write(ByteBuffer.wrap("data".getBytes()));
        }
        assertEquals(4, get(r));
    }

    /**
     * Executors dropped without {@code close()}, each after an open, a read and a close: once unreachable, their
     * threads end and their rings are closed. One whose file, open or {@code readFile} is still in flight is not
     * closed under it: each completes when the FIFO it waits on is written.
     */
    @Test
    void droppedExecutorsAreClosedWhenUnreachableButNotUnderTheirOperations() throws Exception {
        int threadsBefore = threadsNamed("dropped-");
        droppedExecutorsWithOperationsInFlight(threadsBefore);
        // and those, once their operations ended and nothing holds them
        awaitNoThreadsNamed("dropped-", threadsBefore);
    }

    private void droppedExecutorsWithOperationsInFlight(int threadsBefore) throws Exception {
        Path p = file("droppedExecutor", pattern(10, 6));
        Path readFifo = TestFiles.fifo(dir, "executorReach");
        Path openFifo = TestFiles.fifo(dir, "executorOpen");
        Path readFileFifo = TestFiles.fifo(dir, "executorReadFile");
        // each waits on a FIFO, through an executor only the operation itself holds
        CompletableFuture<Integer> read = get(AsyncFile.open(builder().name("dropped-waiting").build(), readFifo,
                StandardOpenOption.READ, StandardOpenOption.WRITE)).read(ByteBuffer.allocateDirect(4), 0);
        // for writing: an open of a FIFO for reading does not wait on io_uring (it opens without blocking)
        CompletableFuture<AsyncFile> opening = AsyncFile.open(builder().name("dropped-waiting").build(), openFifo,
                StandardOpenOption.WRITE);
        CompletableFuture<Integer> readFile = AsyncFile.readFile(builder().name("dropped-waiting").build(),
                readFileFifo, ByteBuffer.allocateDirect(16));
        int waiting = threadsNamed("dropped-");
        int ringsBefore = TestFiles.fdTargets().stream().filter(t -> t.contains("io_uring")).toList().size();
        for (int i = 0; i < 50; i++) {
            IoExecutor x = builder().name("dropped-" + i).build();
            try (AsyncFile f = get(AsyncFile.open(x, p))) {
                assertEquals(10, get(f.read(ByteBuffer.allocate(16), 0)));
            }
        }
        awaitNoThreadsNamed("dropped-", waiting);
        assertEquals(ringsBefore, TestFiles.fdTargets().stream().filter(t -> t.contains("io_uring")).toList().size(),
                "rings of dropped executors");
        assertFalse(read.isDone() || opening.isDone() || readFile.isDone(),
                "the waiting operations were not cancelled by a cleaner: read " + read + ", open " + opening
                        + ", readFile " + readFile);
        try (FileChannel w = FileChannel.open(readFifo, StandardOpenOption.WRITE)) {
            w.write(ByteBuffer.wrap("data".getBytes()));
        }
        assertEquals(4, get(read));
        try (FileChannel r = FileChannel.open(openFifo, StandardOpenOption.READ);
                AsyncFile opened = get(opening);
                FileChannel w2 = FileChannel.open(readFileFifo, StandardOpenOption.WRITE)) {
            assertTrue(opened.isOpen());
            w2.write(ByteBuffer.wrap("readFile".getBytes()));
            w2.close();
            assertEquals(8, get(readFile));
        }
    }

    /** Collects garbage until at most {@code left} threads are named {@code prefix}...; fails after a minute. */
    private static void awaitNoThreadsNamed(String prefix, int left) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (threadsNamed(prefix) > left && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(left, threadsNamed(prefix), "threads of dropped executors a minute after they were dropped");
    }

    /**
     * Buffer pools (registered with the executor where it can) dropped without {@code close()} after a read into
     * one of their buffers: once unreachable, their memory is freed. One dropped with a buffer still lent out keeps
     * its memory: the buffer stays usable.
     */
    @Test
    void droppedBufferPoolsAreFreedWhenUnreachableUnlessABufferIsStillLent() throws Exception {
        Path p = file("droppedPool", pattern(4096, 7));
        List<MemorySegment.Scope> scopes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            BufferPool pool = BufferPool.builder().bufferSize(64 * 1024).count(4).register(io).build();
            ByteBuffer b = pool.acquireBuffer();
            try (AsyncFile f = open(p)) {
                assertEquals(4096, get(f.read(b, 0)));
            }
            scopes.add(MemorySegment.ofBuffer(b).scope());
            pool.release(b);
        }
        ByteBuffer lent = lentFromADroppedPool();
        MemorySegment.Scope lentScope = MemorySegment.ofBuffer(lent).scope();
        assertFreedWithinAMinute(scopes, "pools of 100 whose memory is not freed a minute after they were dropped");
        assertTrue(lentScope.isAlive(), "a lent buffer keeps its pool's memory");
        lent.put(0, (byte) 42);
        assertEquals(42, lent.get(0));
    }

    /**
     * Pools closed, or dropped, with a buffer still lent out (a segment or a {@code ByteBuffer}) that the program then
     * dropped too: their memory is freed once those buffers are unreachable (before: kept for good, out of sight of the
     * JVM's direct-memory count: 260 MB for 1,000 pools of 4 buffers of 64 KiB in a hostile soak).
     */
    @Test
    void aClosedPoolsMemoryIsFreedOnceItsLentBuffersAreUnreachable() throws Exception {
        List<MemorySegment.Scope> scopes = new ArrayList<>();
        List<BufferPool> stillHeld = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            scopes.add(lendAndLose(i % 2 == 0, i % 4 < 2, i % 8 < 4 ? stillHeld : null));
        }
        assertFreedWithinAMinute(scopes,
                "pools of 40 whose memory is not freed a minute after their lent buffers were dropped");
        assertEquals(10, stillHeld.size(), "closed pools the test still holds");
    }

    /** A buffer given back twice to a closed pool: the second release is refused, as before the close. */
    @Test
    void aSecondReleaseToAClosedPoolIsRefused() {
        BufferPool pool = BufferPool.builder().bufferSize(4096).count(2).build();
        MemorySegment lent = pool.acquire();
        pool.close();
        pool.release(lent);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.release(lent));
        assertTrue(e.getMessage().contains("released twice"), e.getMessage());
        assertTrue(pool.isFreed());
    }

    /** Collects garbage until every scope of {@code scopes} is closed, for at most a minute; {@code what} else. */
    private static void assertFreedWithinAMinute(List<MemorySegment.Scope> scopes, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (scopes.stream().anyMatch(MemorySegment.Scope::isAlive) && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, scopes.stream().filter(MemorySegment.Scope::isAlive).count(), what);
    }

    /**
     * A pool's scope, after the pool lent a buffer (a segment or a ByteBuffer) and was closed or dropped with it;
     * a closed one is kept in {@code held} when it is not null.
     */
    private static MemorySegment.Scope lendAndLose(boolean close, boolean segment, List<BufferPool> held) {
        BufferPool pool = BufferPool.builder().bufferSize(64 * 1024).count(4).build();
        MemorySegment lent = segment ? pool.acquire() : MemorySegment.ofBuffer(pool.acquireBuffer());
        lent.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        if (close) {
            pool.close();
            if (held != null) {
                held.add(pool);
            }
        }
        return lent.scope();
    }

    /**
     * A pool refused because its executor is closed made its memory first and kept it for good (a hostile probe's 50
     * refused pools of 64 MiB: 3.3 GB of RSS): refused now before the memory is made.
     */
    @Test
    void aPoolRefusedByAClosedExecutorHoldsNoMemory() throws Exception {
        IoExecutor closed = builder().build();
        closed.close();
        int before = PinnedRegion.openRegions();
        for (int i = 0; i < 20; i++) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> BufferPool.builder().bufferSize(1 << 20).count(4).register(closed).build());
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
        assertEquals(before, PinnedRegion.openRegions(), "regions left by refused pools");
    }

    /**
     * Two threads closing one executor with 200 files open: each {@code close()} returns once the files are closed
     * (the second caller returned at once, with the files still open, in 19 of 20 rounds of a hostile probe).
     */
    @Test
    void everyCloseReturnsOnceTheExecutorIsClosed() throws Exception {
        Path p = file("twoCloses", pattern(10, 9));
        for (int round = 0; round < 10; round++) {
            IoExecutor x = builder().build();
            List<AsyncFile> files = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                files.add(get(AsyncFile.open(x, p)));
            }
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
            List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
            Runnable closer = () -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                x.close();
                seen.add(Thread.currentThread().getName() + ": " + files.stream().filter(AsyncFile::isOpen).count()
                        + " open");
            };
            Thread a = Thread.ofPlatform().name("a").start(closer);
            Thread b = Thread.ofPlatform().name("b").start(closer);
            a.join(30_000);
            b.join(30_000);
            assertEquals(2, seen.size(), "both closes returned");
            assertTrue(seen.stream().allMatch(s -> s.endsWith(": 0 open")), "round " + round + ": " + seen);
        }
    }

    /**
     * A buffer released through a segment that only has its address ({@code MemorySegment.ofAddress}, as another
     * thread could make of a buffer lent to someone else) was taken, and the buffer lent twice: refused now.
     */
    @Test
    void aBufferIsReleasedOnlyThroughThePoolsOwnMemory() throws Exception {
        try (BufferPool pool = BufferPool.builder().bufferSize(4096).count(2).build()) {
            MemorySegment lent = pool.acquire();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pool.release(MemorySegment.ofAddress(lent.address())));
            assertTrue(e.getMessage().contains("not a buffer of this pool"), e.getMessage());
            assertEquals(1, pool.available(), "the lent buffer is still lent");
            pool.release(lent);
            assertEquals(2, pool.available());
        }
    }

    private ByteBuffer lentFromADroppedPool() {
        BufferPool pool = BufferPool.builder().bufferSize(4096).count(2).build();
        return pool.acquireBuffer();
    }

    private static int threadsNamed(String prefix) {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }

    // ------------------------------------------------------------------------------------------ wrong answers

    /** size() asks the descriptor: after a rename and a new file at the old path it still answers for the open file. */
    @Test
    void sizeFollowsTheOpenFileNotItsPath() throws Exception {
        Path p = file("sized", pattern(1000, 5));
        try (AsyncFile f = open(p, StandardOpenOption.READ, FileOption.REGISTERED)) {
            Files.move(p, dir.resolve("moved"), StandardCopyOption.ATOMIC_MOVE);
            Files.write(p, new byte[5]);
            assertEquals(1000L, get(f.size()));
            Files.delete(p);
            assertEquals(1000L, get(f.size()));
        }
    }

    /**
     * Full transfers that fail after their first pieces moved: {@code writeFully} and {@code writeAndSync} of 8 KiB
     * straddling the largest size the file system allows (the kernel writes the first 4 KiB, then refuses the rest
     * with {@code EFBIG}), through a future and through a waiting {@code join()}; a {@code readFully} of 8 KiB from a
     * file of 5,000 bytes. Heap and direct buffers. Each says how many bytes moved before it failed, and its buffer's
     * position moved past them, with a read's bytes in it, as a loop of single calls would have left it (before, a
     * position of 0 for 4 KiB in the file, and an offset that was not where the transfer began; found by a probe of
     * durability).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFullTransferThatFailsMidwayDeliversWhatMovedAndSaysSo(boolean heap) throws Exception {
        Path p = dir.resolve("edge");
        long limit = largestFileSize(p);
        byte[] data = pattern(8192, 3);
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (int kind = 0; kind < 4; kind++) {
                get(f.truncate(0));
                ByteBuffer src = (heap ? ByteBuffer.allocate(8192) : ByteBuffer.allocateDirect(8192)).put(data).flip();
                long at = limit - 4096;
                CompletableFuture<Integer> w = kind < 2 ? f.writeFully(src, at) : f.writeAndSync(src, at);
                Throwable t = kind % 2 == 0 ? failure(w) : assertThrows(java.util.concurrent.CompletionException.class,
                        w::join).getCause();
                String what = (kind < 2 ? "writeFully" : "writeAndSync") + (kind % 2 == 0 ? " (future)" : " (join)");
                FileIOException e = assertInstanceOf(FileIOException.class, t, what);
                assertEquals(Errno.EFBIG, e.errno(), what);
                assertEquals(at, e.offset(), what + ": the offset the transfer began at");
                assertTrue(e.getMessage().contains("after the first 4096 of its 8192 bytes were written"),
                        what + ": " + e.getMessage());
                assertEquals(kind >= 2, e.getMessage().contains("none of them synced"), what + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("(the ByteBuffer's position moved past them)"), what + ": "
                        + e.getMessage());
                assertEquals(4096, src.position(), what + ": the buffer's position");
                assertEquals(limit, Files.size(p), what);
                ByteBuffer back = ByteBuffer.allocate(4096);
                try (FileChannel c = FileChannel.open(p)) {
                    c.read(back, at);
                }
                assertArrayEquals(Arrays.copyOf(data, 4096), back.array(), what + ": the bytes written");
            }
            // a segment has no position to move: the message does not speak of one
            get(f.truncate(0));
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
                java.lang.foreign.MemorySegment seg = heap ? java.lang.foreign.MemorySegment.ofArray(data.clone())
                        : arena.allocate(8192).copyFrom(java.lang.foreign.MemorySegment.ofArray(data));
                FileIOException e = assertInstanceOf(FileIOException.class, failure(f.writeFully(seg, limit - 4096)));
                assertTrue(e.getMessage().contains("after the first 4096 of its 8192 bytes were written")
                        && !e.getMessage().contains("ByteBuffer"), "a segment's writeFully: " + e.getMessage());
            }
            get(f.truncate(0));
            get(f.write(ByteBuffer.wrap(data, 0, 5000), 0));
            ByteBuffer dst = heap ? ByteBuffer.allocate(8192) : ByteBuffer.allocateDirect(8192);
            Throwable t = failure(f.readFully(dst, 0));
            assertInstanceOf(java.io.EOFException.class, t);
            assertTrue(t.getMessage().contains("after 5000 of 8192 bytes"), t.getMessage());
            assertEquals(5000, dst.position(), "the read buffer's position");
            byte[] got = new byte[5000];
            dst.flip().get(got);
            assertArrayEquals(Arrays.copyOf(data, 5000), got, "the bytes read before the end");
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /**
     * An {@code O_DIRECT} write and read of an aligned 4 KiB buffer at the last aligned offset below
     * {@code Long.MAX_VALUE}, where offset and length overflow the largest file offset: the kernel refuses them with
     * {@code EINVAL}, and the message does not send the caller to look at alignment (before, it said "O_DIRECT needs
     * the buffer address, the file offset and the length aligned"; found by a hostile probe).
     */
    @Test
    void aDirectTransferPastTheLargestOffsetIsNotCalledMisaligned() throws Exception {
        Path p = dir.resolve("direct-overflow");
        AsyncFile f;
        try {
            f = open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE, FileOption.DIRECT);
        } catch (Exception e) {
            org.junit.jupiter.api.Assumptions.abort("no O_DIRECT here: " + e);
            return;
        }
        try (f; java.lang.foreign.Arena a = java.lang.foreign.Arena.ofShared()) {
            ByteBuffer b = a.allocate(4096, 4096).asByteBuffer();
            long at = Long.MAX_VALUE - 4095;
            for (int i = 0; i < 2; i++) {
                CompletableFuture<Integer> op = i == 0 ? f.write(b.clear(), at) : f.readFully(b.clear(), at);
                Throwable t = failure(op);
                if (t == null) {
                    continue; // a file system that takes it
                }
                FileIOException e = assertInstanceOf(FileIOException.class, t, String.valueOf(t));
                assertFalse(e.getMessage().contains("aligned"), e.getMessage());
                assertTrue(e.getMessage().contains(String.valueOf(at)), e.getMessage());
            }
        }
    }

    /**
     * A cancel racing a full transfer's failure after its first pieces moved ({@code writeFully} of 4 MiB whose last
     * 2 MiB lie past the largest file size, a heap buffer), 1,500 rounds with the cancel at random moments around the
     * failure: either the future is cancelled, or it fails with the transfer's error and the buffer's position moved
     * past the bytes written, never the error with the position left (before: 9-23 of 2,000 rounds on io_uring, 0-8 on
     * the threads backend, and a heap read's bytes never reached its buffer; found by a hostile probe).
     */
    @Test
    void aCancelRacingAPartialFailureEitherWinsOrLeavesTheBytesDelivered() throws Exception {
        Path p = dir.resolve("race-edge");
        long limit = largestFileSize(p);
        int len = 4 << 20;
        long at = limit - len / 2;
        try (AsyncFile f = open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long[] took = new long[9];
            for (int i = 0; i < took.length; i++) {
                long t0 = System.nanoTime();
                assertInstanceOf(FileIOException.class, failure(f.writeFully(ByteBuffer.allocate(len), at)));
                took[i] = System.nanoTime() - t0;
            }
            Arrays.sort(took);
            long typical = took[took.length / 2];
            java.util.Random random = new java.util.Random(7);
            int wrong = 0;
            String example = null;
            for (int round = 0; round < 1500; round++) {
                ByteBuffer b = ByteBuffer.allocate(len);
                long spin = (long) (typical * (0.5 + random.nextDouble() * 0.8));
                long t0 = System.nanoTime();
                CompletableFuture<Integer> w = f.writeFully(b, at);
                while (System.nanoTime() - t0 < spin) {
                    Thread.onSpinWait();
                }
                boolean cancelled = w.cancel(true);
                Throwable t = cancelled ? null : failure(w);
                if (!cancelled && !(t instanceof CancellationException) && b.position() != len / 2) {
                    wrong++;
                    example = t + ", position " + b.position();
                }
            }
            assertEquals(0, wrong, "rounds that failed with the transfer's error and left the position; e.g. " + example);
            assertNothingLeftInFlight();
        } finally {
            Files.deleteIfExists(p);
        }
    }

    /**
     * A pool buffer given back while another thread still moves its position (as an operation's end does, when the
     * caller releases the buffer under it), 2,000 times: the pool takes it back every time, and closes holding no
     * memory (before: the pool read the address and the position apart and now and then took its own buffer for a
     * stranger, which it then kept; found when a failed full transfer began to move positions, in the seeded stress).
     */
    @Test
    void aPoolTakesBackABufferWhosePositionMovesUnderTheRelease() throws Exception {
        BufferPool pool = BufferPool.create(4096, 2);
        java.util.concurrent.atomic.AtomicReference<ByteBuffer> current = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread mover = Thread.ofPlatform().start(() -> {
            int i = 0;
            while (!stop.get()) {
                ByteBuffer b = current.get();
                if (b != null) {
                    b.position(i++ & 1023);
                }
            }
        });
        try {
            for (int round = 0; round < 2000; round++) {
                ByteBuffer b = pool.acquireBuffer();
                current.set(b);
                Thread.onSpinWait();
                pool.release(b);
                current.set(null);
            }
        } finally {
            stop.set(true);
            mover.join();
        }
        assertEquals(2, pool.available(), "buffers the pool did not take back");
        pool.close();
        assertTrue(pool.isFreed(), "the pool closed with every buffer given back kept its memory");
    }

    /** The largest size a file of {@code p}'s file system may have, found by writing one byte ever further. */
    static long largestFileSize(Path p) throws IOException {
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long fits = 0;
            long refused = Long.MAX_VALUE;
            while (refused - fits > 1) {
                long mid = fits + (refused - fits) / 2;
                try {
                    c.write(ByteBuffer.allocate(1), mid);
                    fits = mid;
                } catch (IOException e) {
                    refused = mid;
                }
                c.truncate(0);
            }
            return refused;
        }
    }

    // ------------------------------------------------------------------------------------------ bad arguments

    @Test
    void absurdArgumentsGetClearErrors() throws Exception {
        Path p = file("args", pattern(100, 6));
        try (AsyncFile f = open(p)) {
            // a timeout too long to count in nanoseconds waits "forever" instead of overflowing
            assertEquals(100, get(f.withTimeout(Duration.ofDays(365_000)).read(ByteBuffer.allocateDirect(100), 0)));
            assertThrows(IllegalArgumentException.class,
                    () -> f.withTimeout(Duration.ofSeconds(-1)).read(ByteBuffer.allocateDirect(1), 0));
            assertThrows(IllegalArgumentException.class, () -> f.read(ByteBuffer.allocateDirect(1), -1));
            assertThrows(NullPointerException.class, () -> f.read((ByteBuffer) null, 0));
            assertThrows(NullPointerException.class, () -> f.read(ByteBuffer.allocateDirect(1), 0, "a", null));
            // an empty allocation reached fallocate, whose EINVAL named no argument; a null advice was a bare NPE
            IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> f.allocate(0, 0));
            assertTrue(empty.getMessage().contains("0 bytes"), empty.getMessage());
            NullPointerException advice = assertThrows(NullPointerException.class, () -> f.advise(0, 0, null));
            assertEquals("advice", advice.getMessage());
            assertEquals(0, io.inFlight());
        }
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> BufferPool.builder().bufferSize(Integer.MAX_VALUE).count(1).build());
        assertTrue(big.getMessage().contains("2 GiB"), big.getMessage());
        IllegalArgumentException disabled = assertThrows(IllegalArgumentException.class,
                () -> IoExecutor.builder().setupFlags(SetupFlag.R_DISABLED));
        assertTrue(disabled.getMessage().contains("R_DISABLED"), disabled.getMessage());
        // a polled ring cannot open a file (every open failed with EINVAL, named an O_DIRECT problem)
        IllegalArgumentException polled = assertThrows(IllegalArgumentException.class,
                () -> IoExecutor.builder().setupFlags(SetupFlag.IOPOLL | SetupFlag.SINGLE_ISSUER));
        assertTrue(polled.getMessage().contains("IOPOLL"), polled.getMessage());
        // bits the library does not lay out (NO_MMAP: a bare EFAULT from io_uring_setup at build before)
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> IoExecutor.builder().setupFlags(0x4000));
        assertTrue(unknown.getMessage().contains("4000"), unknown.getMessage());
        // a ring of fewer than four entries could never take an operation of three (the loop spun and close hung)
        for (int tooFew : new int[] {-1, 0, 1, 2, 3}) {
            IllegalArgumentException few = assertThrows(IllegalArgumentException.class,
                    () -> IoExecutor.builder().entries(tooFew));
            assertTrue(few.getMessage().contains("4..32768"), few.getMessage());
        }
        try (IoExecutor smallest = builder().entries(4).build();
                AsyncFile f = get(AsyncFile.open(smallest, p, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            assertEquals(100, get(f.read(ByteBuffer.allocateDirect(100), 0)));
            assertEquals(100, get(f.writeAndSync(ByteBuffer.wrap(pattern(100, 6)), 0)));
        }
    }

    static <V> java.nio.channels.CompletionHandler<V, Object> ignoring() {
        return new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(V result, Object attachment) {
            }

            @Override
            public void failed(Throwable exc, Object attachment) {
            }
        };
    }

    /**
     * A handler that leaves its thread interrupted (restoring a flag it caught, say) does not hand the interrupt to
     * the handlers that run on that thread after it: their interruptible calls (a {@code FileChannel} read, which an
     * interrupt closes) work, and they see no interrupt. (On io_uring the next handlers run on the same loop.)
     */
    @Test
    void anInterruptLeftByAHandlerDoesNotReachLaterHandlers() throws Exception {
        Path p = file("interrupting", pattern(8192, 3));
        try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            CompletableFuture<Void> first = new CompletableFuture<>();
            f.read(ByteBuffer.allocateDirect(10), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object a) {
                    Thread.currentThread().interrupt();
                    first.complete(null);
                }

                @Override
                public void failed(Throwable e, Object a) {
                    first.completeExceptionally(e);
                }
            });
            get(first);
            for (int i = 0; i < 3; i++) {
                CompletableFuture<String> later = new CompletableFuture<>();
                f.read(ByteBuffer.allocateDirect(10), 10, null,
                        new java.nio.channels.CompletionHandler<Integer, Object>() {
                            @Override
                            public void completed(Integer n, Object a) {
                                boolean interrupted = Thread.currentThread().isInterrupted();
                                try (FileChannel ch = FileChannel.open(p)) {
                                    ByteBuffer b = ByteBuffer.allocate(100);
                                    later.complete(interrupted + " " + ch.read(b, 0));
                                } catch (Throwable e) {
                                    later.complete(interrupted + " " + e);
                                }
                            }

                            @Override
                            public void failed(Throwable e, Object a) {
                                later.completeExceptionally(e);
                            }
                        });
                assertEquals("false 100", get(later), "a later handler: interrupted?, and its channel read");
            }
        }
    }

    /**
     * Two executors whose handlers close each other (the executor, or a file of it) at the same moment: both closes
     * return and both executors end. On io_uring each loop once waited for the other's for ever.
     */
    @Test
    void twoExecutorsClosingEachOtherFromTheirHandlersDoNotHang() throws Exception {
        Path p = file("crossed", pattern(4096, 5));
        for (boolean executors : new boolean[] {true, false}) {
            IoExecutor a = builder().name("crossed-a").build();
            IoExecutor b = builder().name("crossed-b").build();
            try {
                AsyncFile fa = get(AsyncFile.open(a, p, StandardOpenOption.READ));
                AsyncFile fb = get(AsyncFile.open(b, p, StandardOpenOption.READ));
                java.util.concurrent.CyclicBarrier meet = new java.util.concurrent.CyclicBarrier(2);
                CompletableFuture<String> byA = new CompletableFuture<>();
                CompletableFuture<String> byB = new CompletableFuture<>();
                fa.read(ByteBuffer.allocateDirect(10), 0, null, closing(meet, executors ? b : fb, byA));
                fb.read(ByteBuffer.allocateDirect(10), 0, null, closing(meet, executors ? a : fa, byB));
                assertEquals("closed", get(byA));
                assertEquals("closed", get(byB));
                if (executors) {
                    assertFalse(a.isOpen());
                    assertFalse(b.isOpen());
                } else {
                    assertFalse(fa.isOpen());
                    assertFalse(fb.isOpen());
                }
            } finally {
                a.close();
                b.close();
            }
        }
    }

    private static java.nio.channels.CompletionHandler<Integer, Object> closing(
            java.util.concurrent.CyclicBarrier meet, AutoCloseable other, CompletableFuture<String> told) {
        return new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(Integer n, Object a) {
                try {
                    meet.await(30, TimeUnit.SECONDS); // both handlers run at once
                    other.close();
                    told.complete("closed");
                } catch (Exception e) {
                    told.complete(e.toString());
                }
            }

            @Override
            public void failed(Throwable e, Object a) {
                told.complete(e.toString());
            }
        };
    }
}
