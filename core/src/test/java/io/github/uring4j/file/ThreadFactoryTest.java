package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Thread factories ({@code IoExecutor.Builder.threadFactory}) that break the contract: {@code build()} fails at once
 * (or, for a thread that never runs what it is given, after 10 s) with a message that says what the factory did,
 * instead of a {@code NullPointerException}, a hang, or loops and rings left running; a factory that stops giving
 * threads after the first leaves the threads backend working on that one. Loops on virtual threads work.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreadFactoryTest {
    @TempDir
    Path dir;

    private IoExecutor build(Backend backend, int loops, ThreadFactory f) throws Exception {
        return IoExecutor.builder().backend(backend).loops(loops).threadFactory(f).build();
    }

    /** Descriptors of io_uring instances this process has open. */
    private static long rings() throws Exception {
        return TestFiles.fdTargets().stream().filter(t -> t.contains("io_uring")).count();
    }

    private void assertRefused(Backend backend, int loops, ThreadFactory f, String says) throws Exception {
        long before = rings();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> build(backend, loops, f));
        assertTrue(e.getMessage().contains(says), e.getMessage());
        assertEquals(before, rings(), "no ring left open");
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    void factoriesThatBreakTheContractFailTheBuildAndSaySo(Backend backend) throws Exception {
        assertRefused(backend, 2, r -> null, "returned null");
        assertRefused(backend, 2, r -> {
            Thread t = new Thread(() -> { });
            t.start();
            return t;
        }, "already started");
        // one that starts the thread it returns, running what it is given: that loop (or worker) is running when the
        // build refuses it, and must end (before, each refused build left a ring and a live thread behind)
        List<Thread> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        assertRefused(backend, 2, r -> {
            Thread t = new Thread(r);
            t.start();
            started.add(t);
            try {
                Thread.sleep(100); // long enough for what it runs to be waiting for work
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return t;
        }, "already started");
        for (Thread t : started) {
            t.join(5_000);
            assertTrue(!t.isAlive(), t + " still runs after the refused build");
        }
        assertRefused(backend, 2, r -> {
            throw new IllegalStateException("no threads today");
        }, "no threads today");
        // one that starts a thread running what it is given, then throws: that thread ends too (it ran the loop, or
        // waited for ever to be accepted as a worker; found by a hostile probe)
        // (the build returns as soon as it has told the loop to end: its ring is closed once that thread has ended)
        started.clear();
        long before = rings();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> build(backend, 2, r -> {
            Thread t = new Thread(r);
            t.start();
            started.add(t);
            throw new IllegalStateException("started, then failed");
        }));
        assertEquals("started, then failed", e.getMessage());
        for (Thread t : started) {
            t.join(5_000);
            assertTrue(!t.isAlive(), t + " still runs after the factory threw");
        }
        assertEquals(before, rings(), "no ring left open");
        // a thread that runs something else: the build waits 10 s for it, then gives up
        assertRefused(backend, 1, r -> new Thread(() -> { }), "did not run");
    }

    /**
     * A factory that returns a new thread for what it is given and also runs it on a thread of its own: the loop (or
     * worker) runs on the thread it returned, and the other thread's run is refused (on io_uring with an
     * {@code IllegalStateException} that says so) and ends. Before, io_uring's loop ran on both, each with a ring: the
     * executor's {@code close()} waited for ever; the threads backend's pool worker ran on two threads, one of them
     * still running after the close.
     */
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // close hung
    void aFactoryThatAlsoRunsWhatItIsGivenElsewhereGetsItRunOnTheThreadItReturned(Backend backend) throws Exception {
        Path p = dir.resolve("twice");
        byte[] data = TestFiles.pattern(8192, 11);
        Files.write(p, data);
        List<Thread> extras = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Throwable> refusals = new java.util.concurrent.CopyOnWriteArrayList<>();
        long before = rings();
        try (IoExecutor io = build(backend, 2, r -> {
            Thread extra = new Thread(r);
            extra.setUncaughtExceptionHandler((t, e) -> refusals.add(e));
            extra.start();
            extras.add(extra);
            return new Thread(r);
        })) {
            for (int round = 0; round < 3; round++) {
                try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
                    List<java.util.concurrent.CompletableFuture<Integer>> reads = new java.util.ArrayList<>();
                    List<ByteBuffer> into = new java.util.ArrayList<>();
                    for (int i = 0; i < 32; i++) {
                        ByteBuffer b = ByteBuffer.allocateDirect(100);
                        into.add(b);
                        reads.add(f.read(b, 100L * i));
                    }
                    for (int i = 0; i < 32; i++) {
                        assertEquals(100, get(reads.get(i)));
                        for (int k = 0; k < 100; k++) {
                            assertEquals(data[100 * i + k], into.get(i).get(k), "read " + i + ", byte " + k);
                        }
                    }
                }
            }
        }
        assertTrue(!extras.isEmpty());
        for (Thread t : extras) {
            t.join(5_000);
            assertTrue(!t.isAlive(), t + " still runs");
        }
        assertEquals(before, rings(), "no ring left open");
        if (backend == Backend.IO_URING) {
            assertEquals(extras.size(), refusals.size(), "each other thread's run refused: " + refusals);
            for (Throwable e : refusals) {
                assertTrue(e instanceof IllegalStateException && e.getMessage().contains("runs once"), e.toString());
            }
        } else {
            assertEquals(List.of(), refusals);
        }
    }

    @Test
    void theSameThreadForTwoLoopsIsRefused() throws Exception {
        Thread[] one = new Thread[1];
        assertRefused(Backend.IO_URING, 2, r -> one[0] == null ? (one[0] = new Thread(r)) : one[0], "again");
    }

    @Test
    void aFactoryThatFailsAfterTheFirstThreadLeavesTheThreadsBackendWorkingOnIt() throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, TestFiles.pattern(8192, 5));
        AtomicInteger made = new AtomicInteger();
        try (IoExecutor io = build(Backend.THREADS, 1, r -> {
            if (made.incrementAndGet() > 1) {
                throw new IllegalStateException("one thread only");
            }
            return new Thread(r);
        })) {
            for (int i = 0; i < 20; i++) {
                try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
                    ByteBuffer b = ByteBuffer.allocateDirect(100);
                    assertEquals(100, get(f.read(b, 100L * i)));
                    for (int k = 0; k < 100; k++) {
                        assertEquals(TestFiles.pattern(8192, 5)[100 * i + k], b.get(k));
                    }
                }
            }
        }
    }

    /**
     * A factory that gives the threads backend its first worker, then starts a thread and throws each time the pool
     * grows: every such thread ends, and the reads are done by the worker there is (63 such threads waited for ever
     * after 64 reads in a hostile probe).
     */
    @Test
    void threadsAFactoryStartedBeforeThrowingEndWhenThePoolGrows() throws Exception {
        Path p = dir.resolve("g");
        Files.write(p, TestFiles.pattern(8192, 7));
        List<Thread> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger made = new AtomicInteger();
        try (IoExecutor io = build(Backend.THREADS, 1, r -> {
            Thread t = new Thread(r);
            if (made.incrementAndGet() == 1) {
                return t;
            }
            t.start();
            started.add(t);
            throw new IllegalStateException("started, then failed");
        })) {
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
                List<java.util.concurrent.CompletableFuture<Integer>> reads = new java.util.ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    reads.add(f.read(ByteBuffer.allocateDirect(100), 100L * i));
                }
                for (var r : reads) {
                    assertEquals(100, get(r));
                }
            }
        }
        assertTrue(!started.isEmpty(), "the pool never grew");
        for (Thread t : started) {
            t.join(5_000);
            assertTrue(!t.isAlive(), t + " still runs");
        }
    }

    @Test
    void loopsOnVirtualThreadsWork() throws Exception {
        Path p = dir.resolve("v");
        Files.write(p, TestFiles.pattern(4096, 9));
        long before = rings();
        try (IoExecutor io = build(Backend.IO_URING, 2, Thread.ofVirtual().factory())) {
            List<Thread> loops = List.of(io.backend instanceof io.github.uring4j.engine.uring.UringBackend u
                    ? u.threads() : new Thread[0]);
            assertEquals(2, loops.size());
            assertTrue(loops.stream().allMatch(Thread::isVirtual));
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
                ByteBuffer b = ByteBuffer.allocateDirect(4096);
                assertEquals(4096, get(f.readFully(b, 0)));
                b.flip();
                byte[] got = new byte[4096];
                b.get(got);
                assertEquals(java.util.Arrays.toString(TestFiles.pattern(4096, 9)), java.util.Arrays.toString(got));
            }
        }
        assertEquals(before, rings(), "the loops' rings closed");
    }
}
