package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.uring.UringBackend;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Syncs that the platform thread waiting for them with {@code join()} makes itself when no loop has taken them in
 * ({@code HelpedSyncs}): which waits make them, that the bytes are on the file with the result the loop would have
 * given, and that the request ends exactly once whichever of the two, the helper or the loop, comes to it last. The
 * loop is held in a handler that waits for a latch, so that it cannot take the request in before the caller does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HelpedSyncsTest {
    @TempDir
    Path dir;

    private static long helped(IoExecutor io) {
        return ((UringBackend) io.backend).helpedSyncs();
    }

    /** Holds the loop of {@code f}'s executor in a read's handler until the returned handler is released. */
    private static HeldHandler holdLoop(AsyncFile f) throws InterruptedException {
        HeldHandler h = new HeldHandler();
        f.read(ByteBuffer.allocateDirect(16), 0, null, h);
        assertTrue(h.entered.await(30, TimeUnit.SECONDS), "the loop runs the holding handler");
        return h;
    }

    interface Check {
        void run() throws Exception;
    }

    /**
     * With the loop held, a new platform thread joins the operation {@code op} starts: the joiner makes the call itself
     * ({@code helpedAfter} syncs made so far), {@code whileHeld} checks its effect, and the future is still not done
     * until the loop, released, meets the request. Returns the joined result.
     */
    private static Object joinWhileTheLoopIsHeld(IoExecutor io, AsyncFile f,
            Supplier<CompletableFuture<?>> op, long helpedAfter, Check whileHeld) throws Exception {
        HeldHandler loop = holdLoop(f);
        AtomicReference<Object> result = new AtomicReference<>();
        CountDownLatch joined = new CountDownLatch(1);
        Thread joiner = new Thread(() -> {
            try {
                result.set(op.get().join());
            } catch (Throwable e) {
                result.set(e);
            } finally {
                joined.countDown();
            }
        });
        joiner.start();
        try {
            waitUntil(() -> helped(io) == helpedAfter, "the joiner's own sync");
            whileHeld.run();
            assertFalse(joined.await(20, TimeUnit.MILLISECONDS),
                    "the future of a helped request ends when the loop leaves it, not before");
        } finally {
            loop.release();
        }
        joiner.join(30_000);
        assertFalse(joiner.isAlive());
        if (result.get() instanceof Throwable e) {
            throw new AssertionError("the join failed", e);
        }
        return result.get();
    }

    private static ByteBuffer record(byte[] data, int from) {
        return ByteBuffer.allocateDirect(4096).put(0, data, from, 4096);
    }

    private static void waitUntil(BooleanSupplier done, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void aJoinMakesTheSyncWhileTheLoopIsHeldAndTheLoopEndsItWhenItComes() throws Exception {
        byte[] data = new byte[2 * 4096];
        new Random(11).nextBytes(data);
        Path p = dir.resolve("held");
        Files.write(p, new byte[16]);
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.READ))) {
            assertEquals(4096, joinWhileTheLoopIsHeld(io, f, () -> f.writeAndSync(record(data, 0), 0), 1, () -> {
                byte[] onFile = Files.readAllBytes(p);
                assertArrayEquals(Arrays.copyOf(data, 4096), Arrays.copyOf(onFile, 4096));
            }));
            assertNull(joinWhileTheLoopIsHeld(io, f, () -> f.force(true), 2, () -> { }));
            // the file and the loop go on: a handler write, a helped writeAndSync and a read back
            assertEquals(4096, get(f.write(record(data, 4096), 4096)));
            assertEquals(4096, f.writeAndSync(record(data, 4096), 4096).join());
            ByteBuffer back = ByteBuffer.allocate(2 * 4096);
            assertEquals(2 * 4096, get(f.read(back, 0)));
            assertArrayEquals(data, back.array());
        }
    }

    /**
     * A log that writes a record without waiting and then syncs the next one: the sync is left to the loop, after the
     * write, which it must cover (made by the joining thread at once, it could come first).
     */
    @Test
    void aSyncAfterAWriteStillQueuedIsLeftToTheLoop() throws Exception {
        byte[] data = new byte[2 * 4096];
        new Random(12).nextBytes(data);
        Path p = dir.resolve("ordered");
        Files.write(p, new byte[16]);
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.READ))) {
            HeldHandler loop = holdLoop(f);
            CompletableFuture<Integer> first = f.write(record(data, 0), 0);
            AtomicReference<Object> synced = new AtomicReference<>();
            CountDownLatch joined = new CountDownLatch(1);
            Thread joiner = Thread.ofPlatform().start(() -> {
                try {
                    synced.set(f.writeAndSync(record(data, 4096), 4096).join());
                } catch (Throwable e) {
                    synced.set(e);
                } finally {
                    joined.countDown();
                }
            });
            try {
                assertFalse(joined.await(50, TimeUnit.MILLISECONDS), "the sync waits for the held loop");
                assertEquals(0, helped(io));
            } finally {
                loop.release();
            }
            joiner.join(30_000);
            assertEquals(4096, first.join());
            assertEquals(4096, synced.get());
            assertEquals(0, helped(io), "made by the loop, after the write");
            ByteBuffer back = ByteBuffer.allocate(2 * 4096);
            assertEquals(2 * 4096, get(f.read(back, 0)));
            assertArrayEquals(data, back.array());
        }
    }

    @Test
    void virtualThreadsTimedGetsAndGetsLeaveTheSyncToTheLoop() throws Exception {
        Path p = dir.resolve("loop");
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            AtomicReference<Object> fromVirtual = new AtomicReference<>();
            Thread.ofVirtual().start(() -> fromVirtual.set(f.writeAndSync(ByteBuffer.allocateDirect(4096), 0).join()))
                    .join();
            assertEquals(4096, fromVirtual.get());
            assertEquals(4096, f.writeAndSync(ByteBuffer.allocateDirect(4096), 4096).get());
            assertEquals(4096, f.writeAndSync(ByteBuffer.allocateDirect(4096), 8192).get(30, TimeUnit.SECONDS));
            f.force(false).get();
            assertEquals(0, helped(io), "only join() on a platform thread makes a sync itself");
            // a derived stage has no operation of its own to make
            assertEquals(4097, f.writeAndSync(ByteBuffer.allocateDirect(4096), 0).thenApply(n -> n + 1).join());
            assertEquals(3 * 4096, Files.size(p));
        }
    }

    @Test
    void aCancelOfAHelpedSyncEndsItsFutureAndTheLoopStillEndsTheRequest() throws Exception {
        Path p = dir.resolve("cancel");
        Files.write(p, new byte[16]);
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.READ))) {
            HeldHandler loop = holdLoop(f);
            CompletableFuture<Integer> sync = f.writeAndSync(ByteBuffer.allocateDirect(4096), 0);
            AtomicReference<Throwable> joined = new AtomicReference<>();
            Thread joiner = new Thread(() -> {
                try {
                    sync.join();
                } catch (Throwable e) {
                    joined.set(e);
                }
            });
            joiner.start();
            waitUntil(() -> helped(io) == 1, "the joiner's writeAndSync");
            assertTrue(sync.cancel(true));
            joiner.join(30_000);
            assertInstanceOf(CancellationException.class, joined.get());
            loop.release();
            // the request went back to its pool once, when the loop met it: later requests reuse it safely
            for (int i = 0; i < 50; i++) {
                assertEquals(4096, f.writeAndSync(ByteBuffer.allocateDirect(4096), 4096L * i).join());
                assertEquals(4096, get(f.write(ByteBuffer.allocateDirect(4096), 4096L * i)));
            }
            assertEquals(50 * 4096, Files.size(p));
        }
    }

    @Test
    void aFailedHelpedSyncSaysWhatTheLoopWouldHaveSaid() throws Exception {
        Path p = dir.resolve("far");
        long past = Long.MAX_VALUE - 4096; // past the largest file any file system holds: EFBIG or EINVAL
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            CompletionException helpedFailure = assertThrows(CompletionException.class,
                    () -> f.writeAndSync(ByteBuffer.allocateDirect(4096), past).join());
            long helpedCount = helped(io);
            Throwable loopFailure = TestFiles.failure(f.writeAndSync(ByteBuffer.allocateDirect(4096), past));
            assertEquals(loopFailure.getClass(), helpedFailure.getCause().getClass());
            assertEquals(loopFailure.getMessage(), helpedFailure.getCause().getMessage());
            assertTrue(helpedCount <= 1 && helped(io) == helpedCount, "get() left its sync to the loop");
            assertEquals(0, Files.size(p));
        }
    }

    /**
     * Threads joining syncs of one file while others write through handlers and futures, on one loop: the requests
     * race the loop for each claim, both ends of the race happen, and every record is on the file once every future
     * ended; the request pool stays whole (no request is reused while it is still in the loop's queue).
     */
    @Test
    void joinsRacingTheLoopLoseNothing() throws Exception {
        Path p = dir.resolve("race");
        int threads = 4;
        int records = 150;
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.READ))) {
            List<Thread> all = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                int lane = t;
                all.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < records; i++) {
                            long off = ((long) i * threads + lane) * 4096;
                            ByteBuffer b = ByteBuffer.allocate(4096); // a heap buffer: through the bounce pool
                            b.putLong(0, off).putLong(4088, ~off);
                            int n = (lane & 1) == 0 ? f.writeAndSync(b, off).join()
                                    : (get(f.write(b, off)) + (i % 8 == 0 ? sync(f) : 0));
                            assertEquals(4096, n);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : all) {
                t.join(60_000);
                assertFalse(t.isAlive(), "a writer did not finish");
            }
            assertNull(failure.get());
            ByteBuffer b = ByteBuffer.allocate(4096);
            for (long off = 0; off < (long) threads * records * 4096; off += 4096) {
                b.clear();
                assertEquals(4096, get(f.readFully(b, off)));
                assertEquals(off, b.getLong(0), "record at " + off);
                assertEquals(~off, b.getLong(4088), "record at " + off);
            }
        }
    }

    /**
     * A long sync (64 MiB written, then synced) joined at once: every byte is on the file, whoever made it. When the
     * joining thread claims it, the idle loop, woken by the request, usually meets it in its queue while the thread is
     * still making it, and the thread then ends the request itself (the protocol's every order is
     * {@code RequestHelpTest}'s).
     */
    @Test
    void aLongJoinedSyncWritesEveryByte() throws Exception {
        Path p = dir.resolve("long");
        int mib = 64;
        ByteBuffer big = ByteBuffer.allocateDirect(mib << 20);
        for (int i = 0; i < big.capacity(); i += 8) {
            big.putLong(i, i * 31L);
        }
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
            assertEquals(mib << 20, f.writeAndSync(big, 0).join());
        }
        ByteBuffer back = ByteBuffer.wrap(Files.readAllBytes(p));
        assertEquals(mib << 20, back.capacity());
        for (int i = 0; i < back.capacity(); i += 8) {
            if (back.getLong(i) != i * 31L) {
                throw new AssertionError("byte " + i + " of the synced file");
            }
        }
    }

    /** The executor's close, made while a joining thread makes its sync, returns only once that thread's calls end. */
    @Test
    void theExecutorsCloseWaitsForAThreadMakingItsSync() throws Exception {
        Path p = dir.resolve("closing");
        Files.write(p, new byte[16]);
        ByteBuffer big = ByteBuffer.allocateDirect(64 << 20);
        IoExecutor io = UringExecutorTest.uring().build();
        AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.READ));
        HeldHandler loop = holdLoop(f);
        UringBackend b = (UringBackend) io.backend;
        CompletableFuture<Integer> sync = f.writeAndSync(big, 0);
        AtomicReference<Object> result = new AtomicReference<>();
        Thread joiner = Thread.ofPlatform().start(() -> {
            try {
                result.set(sync.join());
            } catch (Throwable e) {
                result.set(e);
            }
        });
        waitUntil(() -> b.helpingNow() == 1 || b.helpedSyncs() == 1, "the joiner's sync");
        loop.release();
        io.close();
        assertEquals(0, b.helpingNow(), "no thread makes a sync after the close returned");
        assertTrue(sync.isDone());
        joiner.join(30_000);
        assertEquals(64 << 20, result.get());
        assertEquals(64 << 20, Files.size(p));
    }

    /**
     * What a sync's future runs when it ends (a dependent stage) closes the executor, on whichever thread ended it (a
     * joining thread that made the sync, whose close then does not wait for itself, or the loop): the join returns the
     * sync's result, and the file's next operation fails.
     */
    @Test
    void aStageOfAHelpedSyncMayCloseTheExecutor() throws Exception {
        Path p = dir.resolve("stage-closes");
        Files.write(p, new byte[16]);
        IoExecutor io = UringExecutorTest.uring().build();
        AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE, StandardOpenOption.READ));
        AtomicReference<Integer> ran = new AtomicReference<>();
        CompletableFuture<Integer> sync = f.writeAndSync(ByteBuffer.allocateDirect(4096), 0);
        sync.thenAccept(n -> {
            ran.set(n);
            io.close();
        });
        assertEquals(4096, sync.join());
        waitUntil(() -> ran.get() != null, "the stage");
        assertEquals(4096, ran.get());
        assertTrue(f.force(false).isCompletedExceptionally() || TestFiles.failure(f.force(false)) != null,
                "the executor is closed");
    }

    /**
     * Platform threads joining syncs, writes and reads (some cancelled, some through a dependent stage) of files that
     * another thread keeps closing and opening again, and whose executor it replaces and closes now and then, for
     * three seconds: every join ends, with a result or with the failure a closed file, a closed executor or a cancel
     * gives, and nothing else.
     */
    @Test
    void joinsOfFilesAndExecutorsClosingAroundThemAllEnd() throws Exception {
        int files = 4;
        AtomicReference<IoExecutor> exec = new AtomicReference<>(UringExecutorTest.uring().loops(2).build());
        AtomicReferenceArray<AsyncFile> open =
                new AtomicReferenceArray<>(files);
        for (int i = 0; i < files; i++) {
            open.set(i, get(AsyncFile.open(exec.get(), dir.resolve("chaos" + i), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.READ)));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        AtomicLong ended = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int seed = t;
            threads.add(Thread.ofPlatform().start(() -> {
                Random r = new Random(seed);
                ByteBuffer direct = ByteBuffer.allocateDirect(4096);
                while (!stop.get()) {
                    AsyncFile f = open.get(r.nextInt(files));
                    try {
                        long off = 4096L * r.nextInt(64);
                        CompletableFuture<?> c = switch (r.nextInt(6)) {
                            case 0, 1 -> f.writeAndSync(direct.clear(), off);
                            case 2 -> f.force(r.nextBoolean());
                            case 3 -> f.writeAndSync(ByteBuffer.wrap(new byte[4096]), off);
                            case 4 -> f.write(direct.clear(), off);
                            default -> f.read(direct.clear(), off);
                        };
                        if (r.nextInt(20) == 0) {
                            c.cancel(true);
                        }
                        (r.nextInt(10) == 0 ? c.thenRun(() -> { }) : c).join();
                    } catch (CancellationException e) {
                        // cancelled
                    } catch (CompletionException e) {
                        Throwable x = e.getCause();
                        if (!(x instanceof ClosedChannelException
                                || x instanceof CancellationException
                                || x instanceof RejectedExecutionException)) {
                            unexpected.compareAndSet(null, x);
                        }
                    } catch (IllegalStateException | RejectedExecutionException e) {
                        // the executor closed under the call
                    } catch (Throwable e) {
                        unexpected.compareAndSet(null, e);
                    }
                    ended.incrementAndGet();
                }
            }));
        }
        Random r = new Random(99);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<IoExecutor> closed = new ArrayList<>();
        long helped = 0;
        while (System.nanoTime() < end) {
            Thread.sleep(r.nextInt(10));
            if (r.nextInt(15) == 0) {
                IoExecutor old = exec.get();
                IoExecutor fresh = UringExecutorTest.uring().loops(2).build();
                exec.set(fresh);
                for (int k = 0; k < files; k++) {
                    open.set(k, get(AsyncFile.open(fresh, dir.resolve("chaos" + k), StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.READ)));
                }
                old.close();
                helped += helped(old);
                closed.add(old);
            } else {
                int i = r.nextInt(files);
                AsyncFile old = open.get(i);
                open.set(i, get(AsyncFile.open(exec.get(), dir.resolve("chaos" + i), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE, StandardOpenOption.READ)));
                old.close();
            }
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), "a thread's join did not end");
        }
        exec.get().close();
        helped += helped(exec.get());
        assertNull(unexpected.get());
        assertTrue(ended.get() > 0);
        for (IoExecutor io : closed) {
            assertEquals(0, io.unfinished(), "a closed executor with work left");
        }
        System.out.println("HelpedSyncsTest chaos: " + ended.get() + " joins, " + helped
                + " syncs made by their joiners");
    }

    private static int sync(AsyncFile f) {
        f.force(false).join();
        return 0;
    }
}
