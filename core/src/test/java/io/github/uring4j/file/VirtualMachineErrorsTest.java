package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.ForwardingSyscalls;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code StackOverflowError} or {@code OutOfMemoryError} in the middle of the library's work: what it interrupted
 * fails, and nothing waits for ever afterwards. Found by a hostile probe: an overflow in the downcall that wakes a
 * sleeping loop left the loop asleep for good (later operations got no answer, {@code close()} never returned); a
 * full heap on a loop's thread ended the loop without telling its operations or ending it (every later operation
 * waited for ever).
 */
class VirtualMachineErrorsTest {
    @TempDir
    Path dir;

    /**
     * The eventfd write that wakes a sleeping loop throws {@code StackOverflowError} (injected: a caller deep in its
     * stack, whose downcall overflowed); the next operation, from an ordinary stack, wakes the loop, and everything
     * completes, the close too.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStackOverflowWhileWakingTheLoopLeavesItWakeable() throws Exception {
        Path p = dir.resolve("f");
        Files.write(p, new byte[8192]);
        AtomicReference<Thread> trap = new AtomicReference<>();
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public long write(int fd, MemorySegment buf, long count) {
                if (count == 8 && trap.compareAndSet(Thread.currentThread(), null)) {
                    throw new StackOverflowError("the test's, in the eventfd write");
                }
                return super.write(fd, buf, count);
            }
        };
        IoExecutor io = IoExecutor.builder().backend(Backend.IO_URING).loops(1).syscalls(sys).build();
        AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE).get(10, TimeUnit.SECONDS);
        List<CompletableFuture<Integer>> earlier = new ArrayList<>();
        boolean overflowed = false;
        for (int round = 0; round < 50 && !overflowed; round++) {
            Thread.sleep(20); // the loop falls asleep in the kernel
            trap.set(Thread.currentThread());
            try {
                earlier.add(f.write(ByteBuffer.wrap(new byte[] {(byte) round}), round));
            } catch (StackOverflowError e) {
                overflowed = true;
            }
            overflowed |= trap.get() == null; // the write went to the eventfd and threw, wherever that surfaced
            trap.set(null);
        }
        assertTrue(overflowed, "the loop was never found asleep: nothing was tested");
        assertEquals(16, f.write(ByteBuffer.allocate(16), 100).get(10, TimeUnit.SECONDS), "a later write completes");
        for (CompletableFuture<Integer> e : earlier) {
            e.handle((n, t) -> null).get(10, TimeUnit.SECONDS); // each earlier write ended, one way or the other
        }
        f.closeAsync().get(10, TimeUnit.SECONDS);
        io.close();
        assertTrue(!io.isOpen());
    }

    /**
     * A child JVM with a 32 MiB heap keeps 64 writes in flight on one loop while another thread fills the heap for
     * two seconds, then lets it go, three times, each on a new executor: every write ends (none waits for ever), a
     * later write and open end within seconds (done, or failed with the loop's failure), the executor closes, and a
     * new executor's write afterwards succeeds. Before, the loop's thread died on a second {@code OutOfMemoryError}
     * while it failed, leaving every operation, later ones included, waiting; and later, 1 of 64 writes waited for
     * ever in about one run of five: the first completion ever made a cache of boxes and failed there after its
     * request went back to its pool (and the cache's class then failed every later use), a request was taken off the
     * loop's queue or out of its slot when the heap filled, before it was put anywhere else or ended.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aFullHeapOnTheLoopLeavesNoOperationWaiting() throws Exception {
        String text = ChildJvm.runMain(FullHeap.class, List.of("-Xmx32m"), 150, dir.toString());
        System.out.println(text);
        assertEveryRound(text, FullHeap.ROUNDS, "PENDING 0\n", "LATER WRITE ENDED", "LATER OPEN ENDED", "CLOSED",
                "IN FLIGHT 0\n");
        assertTrue(text.contains("FRESH WRITE: 4096\n"), text);
    }

    /** Each of {@code lines} was said in each of the child's {@code rounds}, after {@code "ROUND n "}. */
    private static void assertEveryRound(String text, int rounds, String... lines) {
        for (int round = 0; round < rounds; round++) {
            for (String line : lines) {
                assertTrue(text.contains("ROUND " + round + " " + line), text);
            }
        }
    }

    /** A thread (not started) that fills the heap until {@code OutOfMemoryError}, holds it two seconds, lets it go. */
    static Thread heapFiller() {
        return new Thread(() -> {
            List<byte[]> hog = new ArrayList<>();
            try {
                while (true) {
                    hog.add(new byte[8192]);
                }
            } catch (OutOfMemoryError e) {
                // full: hold it a while
            }
            try {
                Thread.sleep(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            hog.clear();
        });
    }

    /** Says what a write of 4 KiB to {@code p} through a new executor of {@code backend} did, then ends the JVM. */
    static void freshWriteThenHalt(Backend backend, Path p) throws Exception {
        try (IoExecutor fresh = IoExecutor.builder().backend(backend).build();
                AsyncFile f = AsyncFile.open(fresh, p, StandardOpenOption.WRITE).get(10, TimeUnit.SECONDS)) {
            System.out.println("FRESH WRITE: " + f.write(ByteBuffer.allocateDirect(4096), 0).get(10,
                    TimeUnit.SECONDS));
        } catch (ExecutionException | TimeoutException e) {
            System.out.println("FRESH WRITE: " + e);
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    /**
     * A handler whose end, success or failure, is {@code end} of its attachment: it allocates nothing, so that what it
     * records on a full heap is the library's doing.
     */
    static java.nio.channels.CompletionHandler<Integer, Integer> endedWith(java.util.function.IntConsumer end) {
        return new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(Integer n, Integer id) {
                end.accept(id);
            }

            @Override
            public void failed(Throwable t, Integer id) {
                end.accept(id);
            }
        };
    }

    /** The child of {@link #aFullHeapOnTheLoopLeavesNoOperationWaiting}. */
    public static final class FullHeap {
        static final int ROUNDS = 3;

        public static void main(String[] args) throws Exception {
            Path p = Path.of(args[0]).resolve("heap");
            Files.write(p, new byte[1 << 18]);
            for (int round = 0; round < ROUNDS; round++) {
                round(p, "ROUND " + round + " ");
            }
            freshWriteThenHalt(Backend.IO_URING, p);
        }

        private static void round(Path p, String round) throws Exception {
            IoExecutor ex = IoExecutor.builder().backend(Backend.IO_URING).loops(1).build();
            AsyncFile f = AsyncFile.open(ex, p, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    .get(10, TimeUnit.SECONDS);
            ByteBuffer[] bufs = new ByteBuffer[64];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = ByteBuffer.allocateDirect(4096);
            }
            @SuppressWarnings("unchecked")
            CompletableFuture<Integer>[] fs = new CompletableFuture[bufs.length];
            Thread filler = heapFiller();
            filler.start();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() - end < 0) {
                for (int i = 0; i < bufs.length; i++) {
                    try {
                        if (fs[i] == null || fs[i].isDone()) {
                            bufs[i].clear();
                            fs[i] = f.write(bufs[i], i * 4096L);
                        }
                    } catch (Throwable t) {
                        // this thread's own OutOfMemoryError: go on
                    }
                }
            }
            filler.join();
            System.gc();
            long wait = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int pending;
            do {
                pending = 0;
                for (CompletableFuture<Integer> x : fs) {
                    pending += x != null && !x.isDone() ? 1 : 0;
                }
                if (pending > 0) {
                    Thread.sleep(50);
                }
            } while (pending > 0 && System.nanoTime() - wait < 0);
            System.out.println(round + "PENDING " + pending);
            try {
                f.write(ByteBuffer.allocateDirect(4096), 0).get(5, TimeUnit.SECONDS);
                System.out.println(round + "LATER WRITE ENDED: done");
            } catch (ExecutionException e) {
                System.out.println(round + "LATER WRITE ENDED: " + e.getCause());
            } catch (TimeoutException e) {
                System.out.println(round + "LATER WRITE WAITS");
            }
            try {
                // the close awaited too: one still in flight was counted below
                AsyncFile.open(ex, p, StandardOpenOption.READ).get(5, TimeUnit.SECONDS).closeAsync()
                        .get(5, TimeUnit.SECONDS);
                System.out.println(round + "LATER OPEN ENDED: done");
            } catch (ExecutionException e) {
                System.out.println(round + "LATER OPEN ENDED: " + e.getCause());
            } catch (TimeoutException e) {
                System.out.println(round + "LATER OPEN WAITS");
            }
            System.out.println(round + "IN FLIGHT " + ex.inFlight());
            Thread closer = Thread.ofPlatform().daemon().start(ex::close);
            closer.join(10_000);
            System.out.println(round + (closer.isAlive() ? "CLOSE WAITS" : "CLOSED"));
        }
    }

    /**
     * The threads backend, handlers: a child JVM with a 32 MiB heap keeps 48 writes in flight on four files while
     * another thread fills the heap for two seconds, then lets it go, three times on one executor: every handler is
     * called, none twice, a later write of each file ends, the executor closes, the descriptors are those before it, and a
     * new executor's write succeeds. Before (found by a hostile probe): a pool that queued a call and then threw (no
     * worker could be made) had it run twice, the handler told twice; workers died before they ran the call handed to
     * them, whose file then waited behind it for ever; the holder class of {@code pwrite}, first linked on the full
     * heap, failed every later write for the life of the JVM; 4 to 7 descriptors were left open.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aFullHeapUnderTheThreadsBackendLeavesNoFileStuckAndNoHandlerToldTwice() throws Exception {
        String text = ChildJvm.runMain(FullHeapThreads.class, List.of("-Xmx32m"), 150, dir.toString());
        System.out.println(text);
        assertTrue(text.contains("WAITING 0\n"), text);
        assertTrue(text.contains("TOLD TWICE 0\n"), text);
        assertTrue(text.contains("LATER WRITES 4 of 4\n"), text);
        assertTrue(text.contains("CLOSED\n"), text);
        assertTrue(text.contains("DESCRIPTORS AS BEFORE\n"), text);
        assertTrue(text.contains("FRESH WRITE: 4096\n"), text);
    }

    /** The child of {@link #aFullHeapUnderTheThreadsBackendLeavesNoFileStuckAndNoHandlerToldTwice}. */
    public static final class FullHeapThreads {
        static final int SLOTS = 48;

        public static void main(String[] args) throws Exception {
            Path d = Path.of(args[0]);
            // a round of everything first: the class path's jars are opened as their classes load
            try (IoExecutor warm = IoExecutor.builder().backend(Backend.THREADS).build();
                    AsyncFile f = AsyncFile.open(warm, d.resolve("warm"), StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE).get(10, TimeUnit.SECONDS)) {
                f.write(ByteBuffer.allocateDirect(4096), 0).get(10, TimeUnit.SECONDS);
                CompletableFuture<Integer> viaHandler = new CompletableFuture<>();
                f.write(ByteBuffer.allocateDirect(4096), 0, null, TestFiles.into(viaHandler));
                viaHandler.get(10, TimeUnit.SECONDS);
            }
            int before = descriptors();
            IoExecutor ex = IoExecutor.builder().backend(Backend.THREADS).build();
            AsyncFile[] files = new AsyncFile[4];
            for (int i = 0; i < files.length; i++) {
                Path p = d.resolve("threads-" + i);
                Files.write(p, new byte[1 << 18]);
                files[i] = AsyncFile.open(ex, p, StandardOpenOption.WRITE).get(10, TimeUnit.SECONDS);
            }
            java.util.concurrent.atomic.AtomicIntegerArray told = new java.util.concurrent.atomic.AtomicIntegerArray(
                    SLOTS);
            java.util.concurrent.atomic.AtomicInteger twice = new java.util.concurrent.atomic.AtomicInteger();
            int[] issued = new int[SLOTS];
            ByteBuffer[] bufs = new ByteBuffer[SLOTS];
            for (int i = 0; i < SLOTS; i++) {
                bufs[i] = ByteBuffer.allocateDirect(4096);
            }
            java.nio.channels.CompletionHandler<Integer, Integer> h = endedWith(slot -> {
                if (told.incrementAndGet(slot) > issued[slot]) {
                    twice.incrementAndGet();
                }
            });
            for (int round = 0; round < 3; round++) {
                Thread filler = heapFiller();
                filler.start();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() - end < 0) {
                    for (int i = 0; i < SLOTS; i++) {
                        try {
                            if (told.get(i) == issued[i]) {
                                issued[i]++;
                                bufs[i].clear();
                                try {
                                    files[i % files.length].write(bufs[i], (i / files.length) * 4096L, i, h);
                                } catch (Throwable refused) {
                                    issued[i]--; // thrown at the call: no handler comes
                                }
                            }
                        } catch (Throwable t) {
                            // this thread's own OutOfMemoryError: go on
                        }
                    }
                }
                filler.join();
            }
            System.gc();
            Thread.sleep(5000);
            int waiting = 0;
            for (int i = 0; i < SLOTS; i++) {
                waiting += issued[i] - told.get(i);
            }
            System.out.println("WAITING " + waiting);
            int later = 0;
            for (AsyncFile f : files) {
                try {
                    later += f.write(ByteBuffer.allocateDirect(4096), 1 << 17).get(20, TimeUnit.SECONDS) == 4096 ? 1 : 0;
                } catch (ExecutionException | TimeoutException e) {
                    System.out.println("LATER WRITE: " + e);
                }
            }
            System.out.println("LATER WRITES " + later + " of " + files.length);
            for (AsyncFile f : files) {
                f.closeAsync().get(20, TimeUnit.SECONDS);
            }
            Thread closer = Thread.ofPlatform().daemon().start(ex::close);
            closer.join(20_000);
            System.out.println(closer.isAlive() ? "CLOSE WAITS" : "CLOSED");
            System.out.println("TOLD TWICE " + twice.get());
            int after = descriptors();
            System.out.println(after == before ? "DESCRIPTORS AS BEFORE" : "DESCRIPTORS " + before + " THEN " + after);
            freshWriteThenHalt(Backend.THREADS, d.resolve("threads-0"));
        }

        private static int descriptors() {
            String[] fds = new java.io.File("/proc/self/fd").list();
            return fds == null ? -1 : fds.length;
        }
    }

    /**
     * uring4j's {@code AsynchronousFileChannel}, opened with an executor for its handlers (a fixed pool of two): two
     * threads keep up to 32 reads and writes with handlers in flight while another fills a 32 MiB heap and holds it
     * full for 1.5 s, twice: every handler is called, none twice, and a later handler read and {@code Future} read of
     * the channel return. Before (found by a hostile probe, in 6 of 18 runs): the thread that hands handlers to the
     * executor died on the full heap with the dispatch still marked busy, and every later handler of the channel
     * waited for ever; an operation's end that met the full heap after it marked the operation done, or on the thread
     * that makes an operation again after its executor failed, never called the handler.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aFullHeapLosesNoHandlerOfTheAsynchronousChannel() throws Exception {
        String text = ChildJvm.runMain(FullHeapHandlers.class, List.of("-Xmx32m"), 150, dir.toString());
        System.out.println(text);
        assertEveryRound(text, FullHeapHandlers.ROUNDS, "MISSING 0\n", "TWICE 0\n", "LATER HANDLER READ 4096\n",
                "LATER FUTURE READ 4096\n");
    }

    /** The child of {@link #aFullHeapLosesNoHandlerOfTheAsynchronousChannel}; records with atomics only. */
    public static final class FullHeapHandlers {
        static final int ROUNDS = 2;
        static final int OPS = 1 << 16;
        static final int BUFFERS = 256;

        public static void main(String[] args) throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                round(Path.of(args[0]).resolve("handlers-" + round), "ROUND " + round + " ");
            }
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }

        private static void round(Path p, String round) throws Exception {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r);
                t.setDaemon(true);
                return t;
            });
            java.nio.channels.AsynchronousFileChannel ch = io.github.uring4j.nio.UringFiles.newAsynchronousFileChannel(p,
                    java.util.Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE), pool);
            ch.write(ByteBuffer.allocateDirect(BUFFERS * 4096), 0).get(10, TimeUnit.SECONDS);
            java.util.concurrent.atomic.AtomicIntegerArray calls = new java.util.concurrent.atomic.AtomicIntegerArray(OPS);
            java.util.concurrent.atomic.AtomicIntegerArray busy = new java.util.concurrent.atomic.AtomicIntegerArray(
                    BUFFERS);
            java.util.concurrent.atomic.AtomicInteger issued = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger ended = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger twice = new java.util.concurrent.atomic.AtomicInteger();
            ByteBuffer[] bufs = new ByteBuffer[BUFFERS];
            for (int i = 0; i < BUFFERS; i++) {
                bufs[i] = ByteBuffer.allocateDirect(4096);
            }
            Integer[] ids = new Integer[OPS];
            for (int i = 0; i < OPS; i++) {
                ids[i] = i;
            }
            java.nio.channels.CompletionHandler<Integer, Integer> h = endedWith(id -> {
                if (calls.incrementAndGet(id) > 1) {
                    twice.incrementAndGet();
                }
                busy.set(id % BUFFERS, 0);
                ended.incrementAndGet();
            });
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread filler = new Thread(() -> {
                List<Object> hog = new ArrayList<>(100_000);
                try {
                    Thread.sleep(300);
                    try {
                        while (true) {
                            hog.add(new byte[16 * 1024]);
                        }
                    } catch (OutOfMemoryError e) {
                        // then the crumbs
                    }
                    long end = System.nanoTime() + 1_500_000_000L;
                    while (System.nanoTime() - end < 0) {
                        try {
                            hog.add(new byte[64]);
                        } catch (OutOfMemoryError e) {
                            // full: keep it so
                        }
                    }
                } catch (Throwable t) {
                    // the filler's own: it lets go below all the same
                }
                hog = null;
                stop.set(true);
            });
            filler.start();
            Thread[] issuers = new Thread[2];
            for (int w = 0; w < issuers.length; w++) {
                issuers[w] = new Thread(() -> {
                    while (!stop.get()) {
                        int id = issued.getAndIncrement();
                        if (id >= OPS) {
                            issued.decrementAndGet();
                            return;
                        }
                        while (!busy.compareAndSet(id % BUFFERS, 0, 1)) {
                            Thread.onSpinWait();
                        }
                        try {
                            ByteBuffer b = bufs[id % BUFFERS];
                            b.clear();
                            if ((id & 1) == 0) {
                                ch.read(b, (id % BUFFERS) * 4096L, ids[id], h);
                            } else {
                                ch.write(b, (id % BUFFERS) * 4096L, ids[id], h);
                            }
                        } catch (Throwable t) {
                            calls.set(id, -1); // thrown at the call: no handler comes
                            busy.set(id % BUFFERS, 0);
                            ended.incrementAndGet();
                        }
                        while (issued.get() - ended.get() > 32 && !stop.get()) {
                            Thread.onSpinWait();
                        }
                    }
                });
                issuers[w].start();
            }
            filler.join();
            for (Thread t : issuers) {
                t.join();
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (ended.get() < issued.get() && System.nanoTime() - until < 0) {
                Thread.sleep(50);
            }
            int missing = 0;
            for (int i = 0; i < issued.get(); i++) {
                missing += calls.get(i) == 0 ? 1 : 0;
            }
            System.out.println(round + "MISSING " + missing);
            System.out.println(round + "TWICE " + twice.get());
            CompletableFuture<Integer> later = new CompletableFuture<>();
            ch.read(ByteBuffer.allocateDirect(4096), 0, null, TestFiles.into(later));
            try {
                System.out.println(round + "LATER HANDLER READ " + later.get(10, TimeUnit.SECONDS));
            } catch (ExecutionException | TimeoutException e) {
                System.out.println(round + "LATER HANDLER READ " + e);
            }
            try {
                System.out.println(round + "LATER FUTURE READ " + ch.read(ByteBuffer.allocateDirect(4096), 4096)
                        .get(10, TimeUnit.SECONDS));
            } catch (ExecutionException | TimeoutException e) {
                System.out.println(round + "LATER FUTURE READ " + e);
            }
            ch.close();
            pool.shutdown();
        }
    }

    /**
     * io_uring: an {@code OutOfMemoryError} on the loop's thread (injected where a write's completion is handled) while
     * a file's other writes wait for their turn behind its in-flight limit of 1: the write in flight and the three
     * waiting each fail, saying the loop failed (before, only the requests in the loop's slots were told: the waiting
     * writes waited for ever; a full heap left 1 of 64 so once in CI).
     */
    @Test
    @Timeout(60)
    void aLoopThatFailsTellsTheRequestsWaitingForTheirTurn() throws Exception {
        Path p = dir.resolve("queued");
        java.util.concurrent.atomic.AtomicBoolean thrown = new java.util.concurrent.atomic.AtomicBoolean();
        IoExecutor.Builder b = IoExecutor.builder().backend(Backend.IO_URING).loops(1).inFlightLimit(1)
                .inlineWriteMax(0).resultFilter((kind, sub, res, requested) -> {
                    if (kind == io.github.uring4j.engine.Request.WRITE && thrown.compareAndSet(false, true)) {
                        throw new OutOfMemoryError("injected: the heap is full as a completion is handled");
                    }
                    return res;
                });
        IoExecutor io = b.build();
        try {
            AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
                    .get(10, TimeUnit.SECONDS);
            assertEquals(java.util.Optional.empty(), io.failure());
            List<CompletableFuture<Integer>> writes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                writes.add(f.write(ByteBuffer.allocateDirect(4096), i * 4096L));
            }
            for (CompletableFuture<Integer> w : writes) {
                try {
                    w.get(10, TimeUnit.SECONDS);
                    throw new AssertionError("a write ended well on a loop that failed");
                } catch (ExecutionException e) {
                    // in the loop when it failed: its error says so; made after (the loop was quick, the test's
                    // thread slow): ClosedChannelException, whose cause says why the file was closed
                    Throwable c = e.getCause();
                    String said = String.valueOf(c) + " / " + (c == null ? null : c.getCause());
                    assertTrue(said.contains("failed"), said);
                }
            }
            // the executor says why, so that its owner can replace it
            String why = io.failure().orElseThrow();
            assertTrue(why.contains("failed") && why.contains("injected: the heap is full"), why);
        } finally {
            Thread.ofPlatform().daemon().start(io::close).join(10_000);
        }
    }
}
