package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.failure;
import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.ForwardingSyscalls;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What only the io_uring backend can show: cancellation in the kernel, closing with work in flight, the loops. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UringExecutorTest {
    @TempDir
    Path dir;

    static IoExecutor.Builder uring() {
        return IoExecutor.builder().backend(Backend.IO_URING).loops(1);
    }

    /**
     * Waits until every operation handed to {@code io} has ended: in flight and queued ones both (a read that timed
     * out may still wait in a queue, and only then run).
     */
    static void waitIdle(IoExecutor io) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (io.unfinished() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(0, io.unfinished(), "operations not yet ended");
        assertEquals(0, io.inFlight(), "operations still in flight");
    }

    /** Case 10: close() with 1000 reads pending on an empty pipe. */
    @Test
    void case10CloseWithThousandPendingPipeReads() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo10");
        int fdsBefore = TestFiles.openFds();
        IoExecutor io = uring().inFlightLimit(1024).build();
        AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
        List<CompletableFuture<Integer>> reads = new ArrayList<>();
        List<ByteBuffer> buffers = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(16);
            buffers.add(b);
            reads.add(f.read(b, 0));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (io.inFlight() < 1000 && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(1000, io.inFlight(), "all reads in the kernel");
        io.close();
        assertEquals(0, io.inFlight(), "every completion awaited before close() returned");
        for (CompletableFuture<Integer> r : reads) {
            assertTrue(r.isDone());
            Throwable t = failure(r);
            assertTrue(t instanceof AsynchronousCloseException || t instanceof CancellationException, String.valueOf(t));
        }
        assertFalse(f.isOpen());
        assertEquals(fdsBefore, TestFiles.openFds(), "ring, eventfd and file closed: " + TestFiles.fdTargets());
        io.close();
    }

    /** Case 13: cancel sends ASYNC_CANCEL; the kernel read really stops (it does not eat later data). */
    @Test
    void case13CancelSendsAsyncCancelAndTheReadNeverConsumes() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo13");
        try (IoExecutor io = uring().build();
                AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            ByteBuffer b = ByteBuffer.allocateDirect(64);
            CompletableFuture<Integer> r = f.read(b, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (io.inFlight() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(r.cancel(true));
            assertTrue(r.isCancelled());
            // the slot is held until the kernel's -ECANCELED arrives, then released
            waitIdle(io);
            assertEquals(0, b.position(), "a cancelled read moves nothing");
            assertEquals(5, get(f.write(ByteBuffer.wrap("hello".getBytes()), 0)));
            ByteBuffer again = ByteBuffer.allocate(64);
            assertEquals(5, get(f.read(again, 0)), "the cancelled read must not have consumed the data");
            assertEquals("hello", new String(again.array(), 0, 5));
        }
    }

    /** Per-operation timeout: LINK_TIMEOUT cancels a read that does not complete in time. */
    @Test
    void linkTimeoutFailsTheReadWithInterruptedByTimeout() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoT");
        try (IoExecutor io = uring().build();
                AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            Throwable t = failure(f.withTimeout(Duration.ofMillis(50)).read(ByteBuffer.allocateDirect(8), 0));
            assertInstanceOf(InterruptedByTimeoutException.class, t);
            waitIdle(io);
            Path p = dir.resolve("regular");
            Files.write(p, new byte[100]);
            try (AsyncFile g = get(AsyncFile.open(io, p))) {
                assertEquals(100, get(g.withTimeout(Duration.ofSeconds(10)).read(ByteBuffer.allocateDirect(200), 0)));
            }
        }
    }

    /** Case 4 at this layer: a tiny ring and in-flight limit hold new work back; nothing fails. */
    @Test
    void backPressureHoldsWorkInTheQueue() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoBP");
        try (IoExecutor io = uring().entries(4).inFlightLimit(4).build();
                AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            List<CompletableFuture<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                reads.add(f.read(ByteBuffer.allocateDirect(1), 0));
            }
            Thread.sleep(50);
            assertTrue(io.inFlight() <= 4, "in flight: " + io.inFlight());
            for (CompletableFuture<Integer> r : reads) {
                assertFalse(r.isDone());
            }
            // The writer must not queue behind the readers it unblocks: it is a plain channel.
            try (var w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                assertEquals(50, w.write(ByteBuffer.wrap(new byte[50])));
            }
            for (CompletableFuture<Integer> r : reads) {
                assertEquals(1, r.get(30, TimeUnit.SECONDS));
            }
        }
    }

    /** Case 19: only each ring's owner thread calls io_uring_enter, whatever thread submits. */
    @Test
    void case19OnlyTheLoopThreadEntersTheKernel() throws Exception {
        Set<Thread> enterers = ConcurrentHashMap.newKeySet();
        ForwardingSyscalls spy = new ForwardingSyscalls() {
            @Override
            public int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, MemorySegment arg,
                    long argSize) {
                enterers.add(Thread.currentThread());
                return super.ioUringEnter(ringFd, toSubmit, minComplete, flags, arg, argSize);
            }
        };
        Path p = dir.resolve("vt19");
        Files.write(p, TestFiles.pattern(4096, 19));
        try (IoExecutor io = uring().loops(2).syscalls(spy).build()) {
            List<AsyncFile> files = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                files.add(get(AsyncFile.open(io, p)));
            }
            AtomicInteger ok = new AtomicInteger();
            try (var ex = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 20_000; i++) {
                    AsyncFile f = files.get(i & 1);
                    ex.submit(() -> {
                        if (f.read(ByteBuffer.allocate(16), 16).join() == 16) {
                            ok.incrementAndGet();
                        }
                    });
                }
            }
            assertEquals(20_000, ok.get());
            for (AsyncFile f : files) {
                f.close();
            }
        }
        assertEquals(2, enterers.size(), "enter callers: " + enterers);
        for (Thread t : enterers) {
            assertTrue(t.getName().startsWith("uring4j-"), t.getName());
            assertFalse(t.isVirtual());
        }
    }

    /** Case 19: 100,000 virtual threads share the default executor. */
    @Test
    void case19DefaultExecutorIsSharedByVirtualThreads() throws Exception {
        Path p = dir.resolve("shared");
        byte[] data = TestFiles.pattern(1 << 16, 20);
        Files.write(p, data);
        AsyncFile f = get(AsyncFile.open(p));
        try {
            assertTrue(f.executor() == IoExecutor.defaultExecutor());
            AtomicInteger ok = new AtomicInteger();
            try (var ex = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 100_000; i++) {
                    int off = (i * 128) & 0xffff;
                    ex.submit(() -> {
                        ByteBuffer b = ByteBuffer.allocateDirect(128);
                        if (f.read(b, off).join() == 128 && b.get(0) == data[off]) {
                            ok.incrementAndGet();
                        }
                    });
                }
            }
            assertEquals(100_000, ok.get());
        } finally {
            f.close();
        }
    }

    /** Case 24: a registered-file slot updated while an operation is in flight. */
    @Test
    void case24SlotUpdateKeepsOldFileForOperationsInFlight() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo24");
        Path regular = dir.resolve("regular24");
        Files.write(regular, "new file".getBytes());
        try (var ring = io.github.uring4j.ring.IoUring.open(8); var arena = java.lang.foreign.Arena.ofConfined();
                var pipe = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            var sys = io.github.uring4j.linux.Syscalls.system();
            int fifoFd = sys.open(arena.allocateFrom(fifo.toString()), io.github.uring4j.linux.Uapi.O_RDWR
                    | io.github.uring4j.linux.Uapi.O_CLOEXEC, 0);
            int fileFd = sys.open(arena.allocateFrom(regular.toString()), io.github.uring4j.linux.Uapi.O_CLOEXEC, 0);
            assertTrue(fifoFd >= 0 && fileFd >= 0);
            try {
                ring.registerFiles(fifoFd);
                MemorySegment oldBuf = arena.allocate(64);
                MemorySegment newBuf = arena.allocate(64);
                var slot = io.github.uring4j.ring.FileTarget.fixed(0);
                ring.nextSqe().read(slot, oldBuf, 0).userData(1);
                ring.submit();
                ring.updateFiles(0, fileFd);
                ring.nextSqe().read(slot, newBuf, 0).userData(2);
                ring.submitAndWait(1);
                int[] res = new int[3];
                ring.reap((ud, r, fl) -> res[(int) ud] = r);
                assertEquals(8, res[2], "the new read uses the new file");
                assertEquals(0, res[1], "the old read is still waiting on the pipe");
                pipe.write(ByteBuffer.wrap("old pipe".getBytes()));
                ring.waitCompletions(1, TimeUnit.SECONDS.toNanos(10));
                ring.reap((ud, r, fl) -> res[(int) ud] = r);
                assertEquals(8, res[1], "the old read completes on the old file");
                byte[] a = new byte[8];
                byte[] b = new byte[8];
                MemorySegment.copy(oldBuf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, a, 0, 8);
                MemorySegment.copy(newBuf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b, 0, 8);
                assertArrayEquals("old pipe".getBytes(), a);
                assertArrayEquals("new file".getBytes(), b);
            } finally {
                sys.close(fifoFd);
                sys.close(fileFd);
            }
        }
    }

    /** Case 24 through AsyncFile: a slot freed by close and reused by the next open serves the new file. */
    @Test
    void case24RegisteredSlotReusedByTheNextFile() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.write(a, "AAAA".getBytes());
        Files.write(b, "BBBB".getBytes());
        try (IoExecutor io = uring().registeredFiles(1).build()) {
            AsyncFile fa = get(AsyncFile.open(io, a, FileOption.REGISTERED));
            assertTrue(fa.isRegistered());
            ByteBuffer x = ByteBuffer.allocate(4);
            get(fa.read(x, 0));
            fa.close();
            AsyncFile fb = get(AsyncFile.open(io, b, FileOption.REGISTERED));
            assertTrue(fb.isRegistered());
            ByteBuffer y = ByteBuffer.allocate(4);
            get(fb.read(y, 0));
            fb.close();
            assertEquals("AAAA", new String(x.array()));
            assertEquals("BBBB", new String(y.array()));
        }
    }

    /** 10,000 executors created and closed leave descriptors and mappings as they were (-During4j.test.executors=N). */
    @Test
    void createAndCloseManyExecutors() throws Exception {
        int n = Integer.getInteger("uring4j.test.executors", 10_000);
        for (int i = 0; i < 50; i++) {
            uring().build().close();
        }
        int fds = TestFiles.openFds();
        long maps = Files.readAllLines(Path.of("/proc/self/maps")).size();
        for (int i = 0; i < n; i++) {
            IoExecutor io = uring().inFlightLimit(64).build();
            io.close();
        }
        assertEquals(fds, TestFiles.openFds());
        long mapsAfter = Files.readAllLines(Path.of("/proc/self/maps")).size();
        assertTrue(mapsAfter <= maps + 64, "mappings before " + maps + ", after " + mapsAfter);
    }

    /** Case 5 at this layer: more completions than the CQ holds at once (timeouts double them); none lost. */
    @Test
    void completionQueueOverflowLosesNothing() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoOV");
        try (IoExecutor io = uring().entries(4).inFlightLimit(32).spinMicros(0).build();
                AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            List<CompletableFuture<Integer>> reads = new ArrayList<>();
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 32; i++) {
                    reads.add(f.withTimeout(Duration.ofMillis(30)).read(ByteBuffer.allocateDirect(1), 0));
                }
            }
            for (CompletableFuture<Integer> r : reads) {
                assertInstanceOf(InterruptedByTimeoutException.class, failure(r));
            }
            waitIdle(io);
            try (var w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap(new byte[1]));
            }
            assertEquals(1, get(f.read(ByteBuffer.allocateDirect(1), 0)));
        }
    }

    /** The handler API allocates (next to) nothing per operation in steady state (issue target: 64 B/op or less). */
    @Test
    void handlerPathAllocatesNothingInSteadyState() throws Exception {
        // Through reflection: the test sources compile inside the core module, which does not read java.management.
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        java.lang.reflect.Method allocated = Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getThreadAllocatedBytes", long.class);
        Path p = dir.resolve("alloc");
        Files.write(p, TestFiles.pattern(1 << 20, 22));
        try (IoExecutor io = uring().build(); AsyncFile f = get(AsyncFile.open(io, p))) {
            ByteBuffer buf = ByteBuffer.allocateDirect(4096);
            long[] loopBytes = new long[2];
            class Chain implements java.nio.channels.CompletionHandler<Integer, Long> {
                final CompletableFuture<Void> done = new CompletableFuture<>();
                final long total;
                long count;

                Chain(long total) {
                    this.total = total;
                }

                @Override
                public void completed(Integer n, Long att) {
                    if (n != 4096) {
                        done.completeExceptionally(new AssertionError("read " + n));
                        return;
                    }
                    if (++count == total) {
                        done.complete(null);
                        return;
                    }
                    buf.clear();
                    f.read(buf, (count * 4096 * 7) & ((1 << 20) - 1), att, this);
                }

                @Override
                public void failed(Throwable exc, Long att) {
                    done.completeExceptionally(exc);
                }
            }
            Chain warm = new Chain(200_000);
            f.read(buf.clear(), 0, 0L, warm);
            warm.done.get(60, TimeUnit.SECONDS);
            long loopId = ((io.github.uring4j.engine.uring.UringBackend) io.backend).threads()[0].threadId();
            int n = 100_000;
            Chain measured = new Chain(n);
            loopBytes[0] = (long) allocated.invoke(mx, loopId);
            f.read(buf.clear(), 0, 0L, measured);
            measured.done.get(60, TimeUnit.SECONDS);
            loopBytes[1] = (long) allocated.invoke(mx, loopId);
            double perOp = (double) (loopBytes[1] - loopBytes[0]) / n;
            System.out.printf("handler API: %.2f bytes allocated per 4 KiB read on the loop thread%n", perOp);
            assertTrue(perOp <= 64, "bytes per op: " + perOp);
        }
    }

    /** Closing a file with reads in flight cancels them (AsynchronousCloseException), then closes it; the executor lives on. */
    @org.junit.jupiter.params.ParameterizedTest(name = "registered={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void fileCloseCancelsItsOperationsInFlight(boolean registered) throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoC");
        try (IoExecutor io = uring().build()) {
            AsyncFile f = registered
                    ? get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE, FileOption.REGISTERED))
                    : get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
            assertEquals(registered, f.isRegistered());
            List<CompletableFuture<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                reads.add(f.read(ByteBuffer.allocateDirect(8), 0));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (io.inFlight() < 20 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            f.close();
            for (CompletableFuture<Integer> r : reads) {
                assertInstanceOf(AsynchronousCloseException.class, failure(r));
            }
            assertFalse(TestFiles.fdTargets().stream().anyMatch(l -> l.endsWith("/fifoC")), "descriptor closed");
            waitIdle(io);
            Path p = dir.resolve("after");
            Files.write(p, new byte[3]);
            try (AsyncFile g = get(AsyncFile.open(io, p))) {
                assertEquals(3, get(g.read(ByteBuffer.allocateDirect(8), 0)));
            }
        }
    }

    /** FileOption.REGISTERED with a full registered-file table falls back to a plain descriptor. */
    @Test
    void registeredOpenFallsBackToADescriptorWhenTheTableIsFull() throws Exception {
        Path p = dir.resolve("full");
        Files.write(p, "x".getBytes());
        try (IoExecutor io = uring().registeredFiles(1).build();
                AsyncFile a = get(AsyncFile.open(io, p, FileOption.REGISTERED));
                AsyncFile b = get(AsyncFile.open(io, p, FileOption.REGISTERED))) {
            assertTrue(a.isRegistered());
            assertFalse(b.isRegistered());
            assertEquals(1, get(b.read(ByteBuffer.allocate(4), 0)));
            assertEquals(1, get(a.read(ByteBuffer.allocate(4), 0)));
        }
    }

    /** join() on the loop thread, inside a continuation, fails that call instead of wedging the loop. */
    @Test
    void joinOnTheLoopThreadFailsInsteadOfWedgingIt() throws Exception {
        Path p = dir.resolve("join");
        Files.write(p, TestFiles.pattern(8192, 30));
        try (IoExecutor io = uring().build(); AsyncFile f = get(AsyncFile.open(io, p))) {
            // A handler always runs on the loop thread (a thenApply may run on the caller's if the read was quick).
            CompletableFuture<Throwable> seen = TestFiles.onLoop(f,
                    () -> f.read(ByteBuffer.allocateDirect(4096), 4096).join());
            Throwable t = get(seen);
            assertInstanceOf(IllegalStateException.class, t);
            assertTrue(t.getMessage().contains("event loop"), t.getMessage());
            // The loop lives on.
            assertEquals(4096, get(f.read(ByteBuffer.allocateDirect(4096), 0)));
            CompletableFuture<Integer> chained = f.read(ByteBuffer.allocateDirect(10), 0)
                    .thenCompose(n -> f.read(ByteBuffer.allocateDirect(10), 4096));
            assertEquals(10, get(chained));
        }
    }

    /**
     * join() on a loop thread of one executor for an operation of another io_uring executor fails at once too (a
     * hostile probe's case: two loops each joining an operation of the other's stopped both for good).
     */
    @Test
    void joinOnALoopForAnotherExecutorsOperationFailsToo() throws Exception {
        Path p = dir.resolve("join-other");
        Files.write(p, TestFiles.pattern(8192, 32));
        try (IoExecutor a = uring().build(); IoExecutor b = uring().build();
                AsyncFile fa = get(AsyncFile.open(a, p));
                AsyncFile fb = get(AsyncFile.open(b, TestFiles.fifo(dir, "join-other-fifo"), StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            CompletableFuture<Integer>[] waiting = new CompletableFuture[1];
            // a read of an empty FIFO: it cannot end before the join
            CompletableFuture<Throwable> seen = TestFiles.onLoop(fa,
                    () -> (waiting[0] = fb.read(ByteBuffer.allocateDirect(4), 0)).join());
            Throwable t = get(seen);
            assertInstanceOf(IllegalStateException.class, t);
            assertTrue(t.getMessage().contains("event loop"), t.getMessage());
            assertEquals(4, get(fb.write(ByteBuffer.wrap(new byte[4]), 0)));
            assertEquals(4, get(waiting[0]));
            assertEquals(4096, get(fa.read(ByteBuffer.allocateDirect(4096), 0)));
        }
    }

    /**
     * A request issued on a loop's thread runs on that loop, even for a file another loop opened; one issued from
     * another thread runs on the file's own loop.
     */
    @Test
    void requestsIssuedOnALoopThreadRunOnThatLoop() throws Exception {
        Path p = dir.resolve("affinity");
        Files.write(p, TestFiles.pattern(4096, 31));
        try (IoExecutor io = uring().loops(2).build()) {
            Thread[] loops = ((io.github.uring4j.engine.uring.UringBackend) io.backend).threads();
            AsyncFile a = get(AsyncFile.open(io, p)); // opens go to the loops in turn
            AsyncFile b = get(AsyncFile.open(io, p));
            CompletableFuture<Thread> aFromOutside = new CompletableFuture<>();
            a.read(ByteBuffer.allocateDirect(16), 0, null, completesOn(aFromOutside));
            CompletableFuture<Thread> bFromOutside = new CompletableFuture<>();
            b.read(ByteBuffer.allocateDirect(16), 0, null, completesOn(bFromOutside));
            Thread homeA = get(aFromOutside);
            Thread homeB = get(bFromOutside);
            assertTrue(homeA != homeB, "the two files live on different loops");
            assertTrue(java.util.List.of(loops).contains(homeA) && java.util.List.of(loops).contains(homeB));
            // From b's completion (on b's loop), read a: it runs where it was issued.
            CompletableFuture<Thread> aFromB = new CompletableFuture<>();
            b.read(ByteBuffer.allocateDirect(16), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object att) {
                    a.read(ByteBuffer.allocateDirect(16), 0, null, completesOn(aFromB));
                }

                @Override
                public void failed(Throwable e, Object att) {
                    aFromB.completeExceptionally(e);
                }
            });
            assertEquals(homeB, get(aFromB));
            a.close();
            b.close();
        }
    }

    /** A handler that completes {@code where} with the thread it ran on. */
    static java.nio.channels.CompletionHandler<Integer, Object> completesOn(CompletableFuture<Thread> where) {
        return new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(Integer n, Object att) {
                where.complete(Thread.currentThread());
            }

            @Override
            public void failed(Throwable e, Object att) {
                where.completeExceptionally(e);
            }
        };
    }

    /**
     * No blocking call goes through the loop's system calls: opens with O_DIRECT and a registered slot, size, truncate
     * (also without IORING_OP_FTRUNCATE, as before Linux 6.9), close and delete-on-close go through the ring, a helper,
     * or the few calls an idle loop makes itself by design (writes, syncs, sizes, opens that create or truncate: see
     * {@code InlineWrites} and {@code LoopPolicyTest}), which never wait for another thread.
     */
    @Test
    void noBlockingSystemCallRunsOnALoopThread() throws Exception {
        Set<String> onLoop = ConcurrentHashMap.newKeySet();
        Set<Thread> loopThreads = ConcurrentHashMap.newKeySet();
        class Spy extends ForwardingSyscalls {
            final boolean hideFtruncate;

            Spy(boolean hideFtruncate) {
                this.hideFtruncate = hideFtruncate;
            }

            void seen(String call) {
                if (loopThreads.contains(Thread.currentThread())) {
                    onLoop.add(call);
                }
            }

            @Override
            public int ioUringRegister(int fd, int opcode, MemorySegment arg, int nrArgs) {
                int r = super.ioUringRegister(fd, opcode, arg, nrArgs);
                if (hideFtruncate && opcode == io.github.uring4j.linux.Uapi.IORING_REGISTER_PROBE && r >= 0) {
                    long base = io.github.uring4j.linux.IoUringProbe.OPS
                            + io.github.uring4j.linux.Uapi.IORING_OP_FTRUNCATE
                            * io.github.uring4j.linux.IoUringProbe.OP_LAYOUT.byteSize();
                    arg.set(java.lang.foreign.ValueLayout.JAVA_SHORT,
                            base + io.github.uring4j.linux.IoUringProbe.OP_FLAGS, (short) 0);
                }
                return r;
            }

            @Override
            public int open(MemorySegment path, int flags, int mode) {
                seen("open");
                return super.open(path, flags, mode);
            }

            @Override
            public int close(int fd) {
                seen("close");
                return super.close(fd);
            }

            @Override
            public int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment buf) {
                seen("statx");
                return super.statx(dirfd, path, flags, mask, buf);
            }

            @Override
            public int ftruncate(int fd, long length) {
                seen("ftruncate");
                return super.ftruncate(fd, length);
            }

            @Override
            public long pread(int fd, MemorySegment buf, long count, long offset) {
                seen("pread");
                return super.pread(fd, buf, count, offset);
            }

            @Override
            public int fdatasync(int fd) {
                seen("fdatasync");
                return super.fdatasync(fd);
            }
        }
        for (boolean hide : new boolean[] {false, true}) {
            IoExecutor io = uring().syscalls(new Spy(hide)).build();
            onLoop.clear();
            loopThreads.clear();
            try {
                loopThreads.addAll(java.util.List.of(((io.github.uring4j.engine.uring.UringBackend) io.backend).threads()));
                Path p = dir.resolve("calls" + hide);
                Files.write(p, new byte[8192]);
                AsyncFile d = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        FileOption.DIRECT, FileOption.REGISTERED, StandardOpenOption.DELETE_ON_CLOSE));
                assertEquals(8192L, get(d.size()));
                get(d.truncate(4096));
                assertEquals(4096L, get(d.size()));
                get(d.force(false));
                d.close();
                assertFalse(Files.exists(p), "deleted on close");
            } catch (FileIOException e) {
                org.junit.jupiter.api.Assumptions.assumeTrue(false, "O_DIRECT not supported here: " + e);
            } finally {
                Set<String> seen = Set.copyOf(onLoop);
                loopThreads.clear(); // the shutdown may close descriptors on the loop: it is the loop's end
                io.close();
                assertTrue(seen.isEmpty(), "blocking calls on a loop thread (hideFtruncate=" + hide + "): " + seen);
            }
        }
    }

    /**
     * Case 6 (injected): the kernel reports dropped completions (a CQ overflow without IORING_FEAT_NODROP). Which
     * requests ended is unknown: the loop stops, every pending operation fails at once with the reason, later ones
     * too, and close() returns.
     */
    @Test
    void case06DroppedCompletionsFailPendingOperationsFast() throws Exception {
        long[] ring = {0, -1};
        ForwardingSyscalls spy = new ForwardingSyscalls() {
            @Override
            public int ioUringSetup(int entries, MemorySegment params) {
                int fd = super.ioUringSetup(entries, params);
                ring[1] = params.get(java.lang.foreign.ValueLayout.JAVA_INT, io.github.uring4j.linux.IoUringParams.CQ_OFF_OVERFLOW);
                return fd;
            }

            @Override
            public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
                long a = super.mmap(addr, length, prot, flags, fd, offset);
                if (offset == 0x8000000L || (offset == 0 && ring[0] == 0)) {
                    ring[0] = a; // the CQ ring (the SQ ring's mapping with IORING_FEAT_SINGLE_MMAP)
                }
                return a;
            }
        };
        Path fifo = TestFiles.fifo(dir, "fifo6");
        Path regular = dir.resolve("regular6");
        Files.write(regular, new byte[10]);
        IoExecutor io = uring().syscalls(spy).build();
        AsyncFile f = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
        AsyncFile g = get(AsyncFile.open(io, regular));
        List<CompletableFuture<Integer>> reads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            reads.add(f.read(ByteBuffer.allocateDirect(8), 0));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (io.inFlight() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        // What a kernel without NODROP does when the CQ is full: count the completions it threw away.
        MemorySegment.ofAddress(ring[0] + ring[1]).reinterpret(4).set(java.lang.foreign.ValueLayout.JAVA_INT, 0, 2);
        Throwable woke = failure(g.size()); // wakes the loop, which sees the counter
        for (CompletableFuture<Integer> r : reads) {
            Throwable t = failure(r);
            assertInstanceOf(java.io.IOException.class, t);
            assertTrue(t.getMessage().contains("dropped 2 completion"), t.getMessage());
        }
        // Later operations learn the reason too: from the dying loop, or from the file it closed on its way out.
        Throwable later = failure(g.read(ByteBuffer.allocateDirect(4), 0));
        assertInstanceOf(java.io.IOException.class, later);
        Throwable why = later instanceof java.nio.channels.ClosedChannelException ? later.getCause() : later;
        assertTrue(why != null && why.getMessage().contains("dropped"), String.valueOf(later));
        assertTrue(woke == null || woke instanceof java.io.IOException, String.valueOf(woke));
        io.close();
    }

    /**
     * Several pools registered with one executor at once: each pool's reads are {@code READ_FIXED} with the right
     * bytes, on every loop; closing one leaves the others registered; a pool the table has no room for works
     * unregistered, and its warning names the table; a closed pool's slots serve the next one.
     */
    @Test
    void severalPoolsAreRegisteredAtOnceAndTheirSlotsReused() throws Exception {
        Path p = dir.resolve("pools");
        byte[] data = randomFile(p, 3);
        try (IoExecutor io = IoExecutor.builder().loops(2).callerReads(false).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
            BufferPool first = BufferPool.builder().bufferSize(4096).count(2).register(io).build();
            BufferPool second = BufferPool.builder().bufferSize(8192).count(3).register(io).build();
            try {
                assertTrue(first.isRegistered(), String.valueOf(first.registrationFailure()));
                assertTrue(second.isRegistered(), String.valueOf(second.registrationFailure()));
                for (int round = 0; round < 4; round++) { // both loops, both pools
                    for (BufferPool pool : List.of(first, second)) {
                        readsFixed(u, f, pool, data);
                    }
                }
                first.close();
                readsFixed(u, f, second, data);
                try (BufferPool third = BufferPool.builder().bufferSize(4096).count(2).register(io).build()) {
                    assertTrue(third.isRegistered(), String.valueOf(third.registrationFailure()));
                    readsFixed(u, f, third, data);
                    readsFixed(u, f, second, data);
                }
            } finally {
                first.close();
                second.close();
            }

            // 16382 + 2 fill the table; 4 more have no room, and work unregistered.
            BufferPool big = BufferPool.builder().bufferSize(512).alignment(512).count(16_382).register(io).build();
            assumeLockedMemory(big);
            assertTrue(big.isRegistered(), String.valueOf(big.registrationFailure()));
            try (BufferPool two = BufferPool.builder().bufferSize(512).alignment(512).count(2).register(io).build();
                    BufferPool four = BufferPool.builder().bufferSize(512).alignment(512).count(4).register(io)
                            .build()) {
                assertTrue(two.isRegistered(), String.valueOf(two.registrationFailure()));
                assertFalse(four.isRegistered());
                String why = four.registrationFailure().orElse("");
                assertTrue(why.contains("16384 slots") && why.contains("4 free slots"), why);
                reads(u, f, four, data, false);
                big.close();
                try (BufferPool again = BufferPool.builder().bufferSize(512).alignment(512).count(4).register(io)
                        .build()) {
                    assertTrue(again.isRegistered(), "the closed pool's slots serve the next: "
                            + again.registrationFailure());
                    readsFixed(u, f, again, data);
                }
            } finally {
                big.close();
            }
        }
    }

    /**
     * Thousands of pools registered with one executor (a hostile probe's case: each registration compared every pair
     * of registered ranges, and each read looked through every pool for its own): every one registers, reads into
     * the first, a middle and the last pool's buffers are {@code READ_FIXED} with the right bytes, and once every
     * other pool is closed, the gaps they leave and the table's end take exactly as many new pools as they have room
     * for, the next one works unregistered, and its message names the taken slots in a few runs.
     */
    @Test
    void thousandsOfPoolsRegisterAndTheirGapsAreFilled() throws Exception {
        Path p = dir.resolve("pools");
        byte[] data = randomFile(p, 7);
        List<BufferPool> pools = new ArrayList<>();
        try (IoExecutor io = uring().callerReads(false).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
            for (int i = 0; i < 4000; i++) {
                BufferPool pool = BufferPool.builder().bufferSize(512).alignment(512).count(2).register(io).build();
                pools.add(pool);
                if (i == 0) {
                    assumeLockedMemory(pool);
                }
                assertTrue(pool.isRegistered(), "pool " + i + ": " + pool.registrationFailure());
            }
            for (int i : new int[] {0, 1234, 3999}) {
                readsFixed(u, f, pools.get(i), data);
            }
            for (int i = 0; i < 4000; i += 2) {
                pools.get(i).close();
            }
            // 2000 gaps of 2 slots, and 16384 - 8000 at the end: 6192 pools of 2
            List<BufferPool> more = new ArrayList<>();
            for (int i = 0; i < 6192; i++) {
                BufferPool pool = BufferPool.builder().bufferSize(512).alignment(512).count(2).register(io).build();
                more.add(pool);
                assertTrue(pool.isRegistered(), "new pool " + i + ": " + pool.registrationFailure());
            }
            pools.addAll(more);
            readsFixed(u, f, more.get(0), data);
            readsFixed(u, f, more.get(6191), data);
            readsFixed(u, f, pools.get(3999), data);
            try (BufferPool none = BufferPool.builder().bufferSize(512).alignment(512).count(1).register(io).build()) {
                assertFalse(none.isRegistered());
                String why = none.registrationFailure().orElse("");
                assertTrue(why.contains("1 free slots") && why.contains("hold 0..16383"), why);
                reads(u, f, none, data, false);
            }
        } finally {
            pools.forEach(BufferPool::close);
        }
    }

    /**
     * Pools registered and closed from four threads at once while reads into their buffers are in flight, some pools
     * closed under a pending read: every read moves the file's bytes (fixed or not), every pool that could register
     * did, and once all are closed the table is empty again (a pool of the whole table registers).
     */
    @Test
    void poolsRegisteredAndClosedConcurrentlyUnderReadsKeepEveryByte() throws Exception {
        Path p = dir.resolve("pools");
        byte[] data = randomFile(p, 5);
        try (IoExecutor io = IoExecutor.builder().loops(2).callerReads(false).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
            long fixedBefore = u.fixedOps();
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int seed = w;
                workers.add(CompletableFuture.runAsync(() -> {
                    java.util.Random rnd = new java.util.Random(seed);
                    try {
                        for (int round = 0; round < 150; round++) {
                            int count = 1 + rnd.nextInt(64);
                            BufferPool pool = BufferPool.builder().bufferSize(4096).count(count).register(io).build();
                            if (!pool.isRegistered()) {
                                throw new AssertionError("not registered: " + pool.registrationFailure());
                            }
                            List<CompletableFuture<Integer>> reads = new ArrayList<>();
                            List<ByteBuffer> bufs = new ArrayList<>();
                            for (int i = 0; i < Math.min(count, 8); i++) {
                                ByteBuffer b = pool.acquireBuffer();
                                int at = rnd.nextInt(4096);
                                b.limit(4096);
                                bufs.add(b);
                                reads.add(f.read(b, at).thenApply(n -> {
                                    for (int j = 0; j < n; j++) {
                                        if (b.get(j) != data[at + j]) {
                                            throw new AssertionError("byte " + j + " of a read at " + at);
                                        }
                                    }
                                    return n;
                                }));
                            }
                            if (rnd.nextBoolean()) {
                                pool.close(); // under the pending reads: their memory stays until they end
                            }
                            for (CompletableFuture<Integer> r : reads) {
                                r.get(30, TimeUnit.SECONDS);
                            }
                            for (ByteBuffer b : bufs) {
                                pool.release(b);
                            }
                            pool.close();
                        }
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                }));
            }
            for (CompletableFuture<Void> w : workers) {
                get(w);
            }
            assertTrue(u.fixedOps() - fixedBefore > 1000, "READ_FIXED reads: " + (u.fixedOps() - fixedBefore));
            try (BufferPool whole = BufferPool.builder().bufferSize(512).alignment(512).count(16_384).register(io)
                    .build()) {
                assumeLockedMemory(whole);
                assertTrue(whole.isRegistered(), "slots left taken: " + whole.registrationFailure());
            }
        }
    }

    /**
     * A registered pool closed, and another built, while a handler holds the only loop: neither waits for the handler
     * for ever (the shared cleaner thread closes dropped pools the same way, and would have stopped every later clean
     * up). The new pool works unregistered and says why; once the handler returns, the closed pool's slots are
     * emptied, the next pool registers, and its reads are right.
     */
    @Test
    void poolsClosedAndBuiltWhileAHandlerHoldsTheLoopDoNotWaitForIt() throws Exception {
        Path p = dir.resolve("pools");
        byte[] data = randomFile(p, 6);
        try (IoExecutor io = uring().callerReads(false).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
            BufferPool first = BufferPool.builder().bufferSize(4096).count(4).register(io).build();
            assertTrue(first.isRegistered(), String.valueOf(first.registrationFailure()));
            HeldHandler held = new HeldHandler();
            f.read(ByteBuffer.allocateDirect(16), 0, null, held);
            assertTrue(held.entered.await(30, TimeUnit.SECONDS));
            BufferPool second;
            try {
                get(CompletableFuture.runAsync(first::close).orTimeout(60, TimeUnit.SECONDS));
                second = get(CompletableFuture.supplyAsync(() -> BufferPool.builder().bufferSize(4096).count(4)
                        .register(io).build()).orTimeout(60, TimeUnit.SECONDS));
            } finally {
                held.release();
            }
            try (second) {
                assertFalse(second.isRegistered());
                String why = second.registrationFailure().orElse("");
                assertTrue(why.contains("could not wait") && why.contains("has not turned"), why);
                reads(u, f, second, data, false);
            }
            try (BufferPool third = BufferPool.builder().bufferSize(512).alignment(512).count(16_384).register(io)
                    .build()) {
                assumeLockedMemory(third);
                assertTrue(third.isRegistered(), "every slot free again: " + third.registrationFailure());
                reads(u, f, third, data, true);
            }
        }
    }

    /**
     * On a kernel without sparse buffer tables (before 5.19; here the kernel's refusal is injected), a ring holds one
     * registered set: a second pool works unregistered and says why ({@code EBUSY}), and once the first closes the
     * next one registers.
     */
    @Test
    void withoutSparseTablesASecondPoolWorksUnregisteredAndSaysWhy() throws Exception {
        Path p = dir.resolve("pools");
        byte[] data = randomFile(p, 4);
        ForwardingSyscalls old = new ForwardingSyscalls() {
            @Override
            public int ioUringRegister(int fd, int opcode, MemorySegment arg, int nrArgs) {
                return opcode == io.github.uring4j.linux.Uapi.IORING_REGISTER_BUFFERS2
                        ? -io.github.uring4j.linux.Errno.EINVAL : super.ioUringRegister(fd, opcode, arg, nrArgs);
            }
        };
        try (IoExecutor io = uring().callerReads(false).syscalls(old).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
            BufferPool first = BufferPool.builder().bufferSize(4096).count(2).register(io).build();
            try (BufferPool second = BufferPool.builder().bufferSize(4096).count(2).register(io).build()) {
                assertTrue(first.isRegistered(), String.valueOf(first.registrationFailure()));
                assertFalse(second.isRegistered());
                assertTrue(second.registrationFailure().orElse("").contains("EBUSY"),
                        String.valueOf(second.registrationFailure()));
                readsFixed(u, f, first, data);
                reads(u, f, second, data, false);
            } finally {
                first.close();
            }
            try (BufferPool third = BufferPool.builder().bufferSize(4096).count(2).register(io).build()) {
                assertTrue(third.isRegistered(), String.valueOf(third.registrationFailure()));
                readsFixed(u, f, third, data);
            }
        }
    }

    /** Skips the rest of a test whose 8 MiB pool the locked-memory limit refused (a user without CAP_IPC_LOCK). */
    private static void assumeLockedMemory(BufferPool pool) {
        String why = pool.registrationFailure().orElse("");
        if (why.contains("ENOMEM")) {
            pool.close();
            org.junit.jupiter.api.Assumptions.abort("the locked-memory limit refused 8 MiB of registered buffers: " + why);
        }
    }

    /** {@code data}, 8 KiB of random bytes, written to {@code p}. */
    private static byte[] randomFile(Path p, long seed) throws java.io.IOException {
        byte[] data = new byte[8192];
        new java.util.Random(seed).nextBytes(data);
        Files.write(p, data);
        return data;
    }

    /** A read into one of {@code pool}'s buffers is one more READ_FIXED, with the file's bytes. */
    private static void readsFixed(io.github.uring4j.engine.uring.UringBackend u, AsyncFile f, BufferPool pool,
            byte[] data) throws Exception {
        reads(u, f, pool, data, true);
    }

    /** A read into one of {@code pool}'s buffers moves the file's bytes, as a READ_FIXED or not. */
    private static void reads(io.github.uring4j.engine.uring.UringBackend u, AsyncFile f, BufferPool pool,
            byte[] data, boolean fixed) throws Exception {
        ByteBuffer b = pool.acquireBuffer();
        int n = Math.min(b.remaining(), 4096);
        b.limit(n);
        long before = u.fixedOps();
        assertEquals(n, get(f.read(b, 4096)));
        assertEquals(before + (fixed ? 1 : 0), u.fixedOps(), fixed ? "READ_FIXED into the pool's buffer"
                : "an unregistered pool's read is a plain READ");
        byte[] got = new byte[n];
        b.flip().get(got);
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 4096, 4096 + n), got);
        pool.release(b);
    }
}
