package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link IoExecutor.Builder#futureExecutor}: where futures complete, and so where plain chained stages run. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FutureExecutorTest {
    @TempDir
    Path dir;

    private static Thread[] loops(IoExecutor io) {
        return ((io.github.uring4j.engine.uring.UringBackend) io.backend).threads();
    }

    private static boolean onLoop(IoExecutor io, Thread t) {
        for (Thread l : loops(io)) {
            if (l == t) {
                return true;
            }
        }
        return false;
    }

    /**
     * A read of an empty pipe, with a stage recording its thread attached before the write that completes it (a
     * stage attached to a future already complete would run on the caller instead).
     */
    private static Thread completingThread(AsyncFile fifo) throws Exception {
        CompletableFuture<Thread> t = fifo.read(ByteBuffer.allocateDirect(4), 0).thenApply(n -> Thread.currentThread());
        assertEquals(4, get(fifo.write(ByteBuffer.wrap(new byte[4]), 0)));
        return get(t);
    }

    @Test
    void futuresCompleteOnTheNamedExecutorAndHandlersOnTheLoop() throws Exception {
        Path p = TestFiles.fifo(dir, "fifo");
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "named-completer"));
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(pool).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            assertEquals("named-completer", completingThread(f).getName());
            CompletableFuture<Thread> handlerThread = new CompletableFuture<>();
            f.read(ByteBuffer.allocateDirect(4), 0, null, UringExecutorTest.completesOn(handlerThread));
            assertEquals(4, get(f.write(ByteBuffer.wrap(new byte[4]), 0)));
            assertTrue(onLoop(io, get(handlerThread)), "handlers stay on the loop");
            // The executor refuses work once shut down: the future still completes, on the loop.
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            Thread after = completingThread(f);
            assertTrue(onLoop(io, after), "a refused hand-off completes on the loop: " + after);
            assertEquals(null, get(f.closeAsync()));
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code n} one-byte reads of the empty pipe {@code fifo}, each with {@code stage} attached; then the write. */
    private static List<CompletableFuture<Integer>> burst(AsyncFile fifo, int n, Runnable stage) throws Exception {
        List<CompletableFuture<Integer>> staged = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            staged.add(fifo.read(ByteBuffer.allocateDirect(1), 0).thenApply(r -> {
                stage.run();
                return r;
            }));
        }
        assertEquals(n, get(fifo.write(ByteBuffer.wrap(new byte[n]), 0)));
        return staged;
    }

    @Test
    void aStageThatBlocksHoldsBackNoOtherCompletion() throws Exception {
        // Every stage waits until all have started: they complete only if each runs on a thread of its own, as they
        // would with a task per completion; a stage that blocks must not keep the ones queued behind it waiting.
        int n = 20;
        CountDownLatch all = new CountDownLatch(n);
        AtomicInteger timedOut = new AtomicInteger();
        ExecutorService pool = Executors.newCachedThreadPool();
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(pool).build();
                AsyncFile f = get(AsyncFile.open(io, TestFiles.fifo(dir, "blocking"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            for (CompletableFuture<Integer> c : burst(f, n, () -> {
                all.countDown();
                try {
                    if (!all.await(20, TimeUnit.SECONDS)) {
                        timedOut.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            })) {
                assertEquals(1, get(c));
            }
            assertEquals(0, timedOut.get(), "stages that waited in vain for the others to start");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBurstOfCompletionsIsHandedOverInFewerTasks() throws Exception {
        // One thread, and stages slower than the loop hands them over: the completions queue behind the running
        // task instead of costing the executor a task (and its worker a wake-up) each.
        int n = 50;
        AtomicInteger tasks = new AtomicInteger();
        ExecutorService one = Executors.newSingleThreadExecutor();
        Executor counting = r -> {
            tasks.incrementAndGet();
            one.execute(r);
        };
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(counting).build();
                AsyncFile f = get(AsyncFile.open(io, TestFiles.fifo(dir, "burst"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            for (CompletableFuture<Integer> c : burst(f, n, () -> LockSupport.parkNanos(2_000_000))) {
                assertEquals(1, get(c));
            }
            assertTrue(tasks.get() <= n / 2, tasks.get() + " tasks for " + n + " completions");
        } finally {
            one.shutdownNow();
        }
    }

    @Test
    void anExecutorThatThrowsStillSeesEveryFutureCompleted() throws Exception {
        Executor broken = r -> {
            throw new IllegalStateException("this executor takes no work");
        };
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(broken).build();
                AsyncFile f = get(AsyncFile.open(io, TestFiles.fifo(dir, "broken"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            for (int round = 0; round < 3; round++) {
                Thread t = completingThread(f);
                assertTrue(onLoop(io, t), "completed on the loop instead: " + t);
            }
        }
    }

    /**
     * An executor whose {@code execute} throws an {@code Error} now and then (a {@code ThreadPoolExecutor} out of
     * threads throws {@code OutOfMemoryError}): taken as a refusal, on both backends. Before, the Error killed the
     * io_uring loop (every later operation failed or waited) and left the hand-off waiting for a drain task that
     * never came: those futures never completed.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void anExecutorThrowingAnErrorStrandsNoFutureAndKillsNoLoop(Backend backend) throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        Executor sometimes = r -> {
            if (calls.getAndIncrement() % 2 == 0) {
                throw new OutOfMemoryError("unable to create native thread (the test's)");
            }
            r.run();
        };
        Path p = dir.resolve("erroring");
        java.nio.file.Files.write(p, new byte[100]);
        try (IoExecutor io = IoExecutor.builder().backend(backend).loops(1).futureExecutor(sometimes)
                .callerReads(false).build()) {
            for (int i = 0; i < 10; i++) {
                try (AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).get(10, TimeUnit.SECONDS)) {
                    assertEquals(100, f.read(ByteBuffer.allocateDirect(100), 0).get(10, TimeUnit.SECONDS));
                }
            }
            assertTrue(calls.get() >= 10, "the executor was asked: " + calls.get());
        }
    }

    /**
     * Keeps the executor's one thread busy until {@code shutdownNow} interrupts it: hand-off tasks wait in its queue.
     */
    private static void occupy(ThreadPoolExecutor one) throws InterruptedException {
        CountDownLatch busy = new CountDownLatch(1);
        one.execute(() -> {
            busy.countDown();
            LockSupport.parkNanos(60_000_000_000L);
        });
        assertTrue(busy.await(10, TimeUnit.SECONDS));
    }

    /** Waits until a hand-off task waits in the executor's queue, then drops it with {@code shutdownNow}. */
    private static void dropWaitingHandOff(ThreadPoolExecutor one) throws InterruptedException {
        for (int i = 0; i < 1000 && one.getQueue().isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertEquals(1, one.shutdownNow().size(), "the waiting hand-off task was dropped");
    }

    @Test
    void aHandOffDroppedByShutdownNowStrandsNoLaterCompletion() throws Exception {
        ThreadPoolExecutor one = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(one).build();
                AsyncFile f = get(AsyncFile.open(io, TestFiles.fifo(dir, "dropped"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            // The executor's one thread is busy, so the hand-off task of the next completions waits in its queue,
            // and shutdownNow drops it.
            occupy(one);
            CompletableFuture<Integer> read = f.read(ByteBuffer.allocateDirect(1), 0);
            CompletableFuture<Integer> write = f.write(ByteBuffer.wrap(new byte[1]), 0);
            dropWaitingHandOff(one);
            Thread after = completingThread(f);
            assertTrue(onLoop(io, after), "completed on the loop: " + after);
            assertEquals(1, get(read), "the completions queued behind the dropped task");
            assertEquals(1, get(write));
        } finally {
            one.shutdownNow();
        }
    }

    @Test
    void aHandOffDroppedByShutdownNowStrandsNoCompletionEvenWithoutALaterOne() throws Exception {
        ThreadPoolExecutor one = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(one).build();
                AsyncFile f = get(AsyncFile.open(io, TestFiles.fifo(dir, "stranded"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            occupy(one);
            CompletableFuture<String> read = f.read(ByteBuffer.allocateDirect(1), 0)
                    .thenApply(n -> n + " on " + Thread.currentThread().getName());
            CompletableFuture<Integer> write = f.write(ByteBuffer.wrap(new byte[1]), 0);
            dropWaitingHandOff(one);
            // No operation follows whose hand-off would find the executor shut down: the two complete anyway.
            assertEquals("1 on uring4j-handover", read.get(10, TimeUnit.SECONDS));
            assertEquals(1, write.get(10, TimeUnit.SECONDS));
        } finally {
            one.shutdownNow();
        }
    }

    /**
     * A future executor whose saturation policy drops the oldest waiting task (a hostile probe's case): the drop of
     * the waiting hand-off task strands no completion, that one's or any later one's, and they complete on the
     * executor (every later future of the executor waited for ever).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aHandOffDiscardedByASaturatedExecutorStrandsNoCompletion(Backend backend) throws Exception {
        ThreadPoolExecutor one = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
                r -> new Thread(r, "discarding"), new ThreadPoolExecutor.DiscardOldestPolicy());
        Path p = dir.resolve("discarded");
        java.nio.file.Files.write(p, new byte[100]);
        try (IoExecutor io = IoExecutor.builder().backend(backend).futureExecutor(one).callerReads(false).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch busy = new CountDownLatch(1);
            one.execute(() -> {
                busy.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(busy.await(10, TimeUnit.SECONDS));
            CompletableFuture<String> first = f.read(ByteBuffer.allocateDirect(100), 0)
                    .thenApply(n -> n + " on " + Thread.currentThread().getName());
            for (int i = 0; i < 1000 && one.getQueue().isEmpty(); i++) {
                Thread.sleep(10); // until the hand-off task waits in the queue
            }
            one.execute(() -> { }); // the queue is full: the policy drops the waiting hand-off task
            release.countDown();
            assertEquals("100 on discarding", first.get(10, TimeUnit.SECONDS));
            // (a stage added after a quick completion would run here: only the value is checked)
            assertEquals(100, f.read(ByteBuffer.allocateDirect(100), 0).get(10, TimeUnit.SECONDS));
        } finally {
            one.shutdownNow();
        }
    }

    @Test
    void aStageOnAOneThreadExecutorMayCloseAFile() throws Exception {
        // close() waits for the close itself: the future's completion, queued for this very thread, cannot come first.
        ExecutorService one = Executors.newSingleThreadExecutor();
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(one).build();
                AsyncFile fifo = get(AsyncFile.open(io, TestFiles.fifo(dir, "closer"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            AsyncFile other = get(AsyncFile.open(io, dir.resolve("closed-by-a-stage"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE));
            CompletableFuture<Integer> staged = fifo.read(ByteBuffer.allocateDirect(1), 0).thenApply(n -> {
                try {
                    other.close();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return n;
            });
            assertEquals(1, get(fifo.write(ByteBuffer.wrap(new byte[1]), 0)));
            assertEquals(1, get(staged)); // the stage returned: close() did not wait for its own thread
            assertEquals(null, get(other.closeAsync()));
        } finally {
            one.shutdownNow();
        }
    }

    @Test
    void withoutAnExecutorFuturesCompleteOnTheLoop() throws Exception {
        Path p = TestFiles.fifo(dir, "fifo2");
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            Thread t = completingThread(f);
            assertTrue(onLoop(io, t), String.valueOf(t));
        }
    }
}
