package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paths a {@link UringFileChannel} operation can take (a call on the caller's thread, a ring operation the
 * caller parks on, staging for heap memory) each move the right bytes, and the counters say which ran.
 */
class DropInPathsTest {
    @TempDir
    Path dir;

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private Path file(int size) throws IOException {
        Path p = dir.resolve("f" + size);
        Files.write(p, pattern(size, size));
        return p;
    }

    @Test
    void isOursAndReadsHeapDirectAndSegmentBuffers() throws Exception {
        Path p = file(1 << 20);
        byte[] want = Files.readAllBytes(p);
        try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ)) {
            assertInstanceOf(UringFileChannel.class, ch);
            ByteBuffer heap = ByteBuffer.allocate(5000);
            assertEquals(5000, ch.read(heap, 123));
            assertArrayEquals(java.util.Arrays.copyOfRange(want, 123, 5123), heap.array());
            ByteBuffer d = ByteBuffer.allocateDirect(4096);
            assertEquals(4096, ch.read(d));
            assertEquals(4096, ch.position());
            byte[] got = new byte[4096];
            d.flip().get(got);
            assertArrayEquals(java.util.Arrays.copyOfRange(want, 0, 4096), got);
            try (Arena a = Arena.ofShared()) {
                ByteBuffer shared = a.allocate(3000).asByteBuffer();
                assertEquals(3000, ch.read(shared, 10));
                assertEquals(3000, shared.position());
                assertArrayEquals(java.util.Arrays.copyOfRange(want, 10, 3010),
                        MemorySegment.ofBuffer(shared.flip()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
            // larger than the staging memory: in pieces
            ByteBuffer big = ByteBuffer.allocate(700_000);
            assertEquals(700_000, ch.read(big, 1000));
            assertArrayEquals(java.util.Arrays.copyOfRange(want, 1000, 701_000), big.array());
            assertEquals(-1, ch.read(ByteBuffer.allocate(10), 1 << 20));
        }
    }

    /** A channel of {@code p} for reading and writing, opened while {@code uring4j.mappedReads} is set. */
    private static FileChannel mappedReadsChannel(Path p) throws IOException {
        System.setProperty(MappedReads.PROPERTY, "true");
        try {
            return UringFiles.newFileChannel(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } finally {
            System.clearProperty(MappedReads.PROPERTY);
        }
    }

    /**
     * With {@code uring4j.mappedReads} set, a channel that reads at positions often maps its file, and those reads
     * see writes of another channel at once.
     */
    @Test
    void mappedReadsWhenAskedForSeeWritesAtOnce() throws Exception {
        Path p = file(1 << 20);
        byte[] want = Files.readAllBytes(p);
        long before = UringFiles.statistics().mappedReads();
        FileChannel ch = mappedReadsChannel(p);
        try (ch) {
            ByteBuffer b = ByteBuffer.allocate(4096);
            for (int i = 0; i < 100; i++) {
                b.clear();
                assertEquals(4096, ch.read(b, i * 4096L));
                assertArrayEquals(java.util.Arrays.copyOfRange(want, i * 4096, i * 4096 + 4096), b.array());
            }
            assertTrue(UringFiles.statistics().mappedReads() - before > 50, "reads came from the mapping");
            try (FileChannel other = FileChannel.open(p, StandardOpenOption.WRITE)) {
                other.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 5000);
                b.clear();
                ch.read(b, 4096);
                assertEquals(1, b.get(5000 - 4096));
                assertEquals(3, b.get(5002 - 4096));
            }
        }
    }

    /**
     * With {@code uring4j.mappedReads} set, six platform threads read at positions while a seventh appends to the
     * file, so the mapping is replaced at the file's new size again and again (a hostile probe's case): every read
     * gets its bytes, no thread finds its interrupt status set and the channel stays open. The old mapping's shared
     * arena was closed under readers' copies, and the JVM, throwing into those threads, set their interrupt status:
     * their next system call closed the channel with {@code ClosedByInterruptException}.
     */
    @Test
    void mappedReadsOfAGrowingFileInterruptNobody() throws Exception {
        Path p = file(1 << 20);
        byte[] want = Files.readAllBytes(p);
        FileChannel ch = mappedReadsChannel(p);
        long before = UringFiles.statistics().mappedReads();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ch) {
            List<Thread> threads = new java.util.ArrayList<>();
            for (int t = 0; t < 6; t++) {
                int seed = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    java.util.Random r = new java.util.Random(seed);
                    ByteBuffer b = ByteBuffer.allocate(4096);
                    try {
                        while (!stop.get()) {
                            int at = r.nextInt((1 << 20) - 4096);
                            assertEquals(4096, ch.read(b.clear(), at));
                            assertEquals(want[at], b.get(0));
                            assertEquals(want[at + 4095], b.get(4095));
                            if (Thread.currentThread().isInterrupted()) {
                                throw new AssertionError("a reader's interrupt status is set");
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            threads.add(Thread.ofPlatform().start(() -> {
                ByteBuffer b = ByteBuffer.allocate(64 * 1024);
                try {
                    for (int i = 0; i < 300 && !stop.get(); i++) {
                        ch.write(b.clear(), ch.size()); // the file grows
                        ByteBuffer r = ByteBuffer.allocate(4096);
                        for (int j = 0; j < 64; j++) {
                            ch.read(r.clear(), ch.size() - 4096); // reads beyond the mapping make it again
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    stop.set(true);
                }
            }));
            for (Thread t : threads) {
                t.join(60_000);
            }
            assertNull(failure.get(), String.valueOf(failure.get()));
            assertTrue(ch.isOpen());
            assertTrue(UringFiles.statistics().mappedReads() - before > 100, "reads came from the mapping");
        }
    }

    /**
     * Positional reads, many of them (so that the JIT compiles the path), then another channel truncates the file to
     * 100 bytes, not a page boundary: reads end at the new end, as the JDK's do. When channels mapped their file for
     * such reads by default, the read at 0 returned a whole page (zeros past the end), and one that crossed into a
     * page past the end threw {@code InternalError} (the mapped page's fault), caught or not depending on the JIT.
     */
    @Test
    void readsAfterAnotherChannelTruncatedTheFileEndAtItsNewEnd() throws Exception {
        Path p = dir.resolve("shrinks.bin");
        for (int round = 0; round < 300; round++) {
            Files.write(p, new byte[65536]);
            try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ);
                    FileChannel other = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ByteBuffer heap = ByteBuffer.allocate(4096);
                ByteBuffer direct = ByteBuffer.allocateDirect(4096);
                for (int i = 0; i < 40; i++) {
                    assertEquals(4096, ch.read(heap.clear(), 4096L * (i % 16)));
                    assertEquals(4096, ch.read(direct.clear(), 4096L * ((i + 5) % 16)));
                }
                other.truncate(100);
                String at = "round " + round;
                assertEquals(100, ch.read(heap.clear(), 0), at);
                assertEquals(50, ch.read(direct.clear(), 50), at);
                assertEquals(-1, ch.read(heap.clear(), 8192), at);
                assertEquals(60, ch.read(direct.clear(), 40), at);
            }
        }
    }

    /**
     * Relative heap reads through the staging memory up to a short last read: the file's type is looked up there
     * (the read came back short), which must not touch the staged bytes.
     */
    @Test
    void stagedReadsStayIntactWhenTheLastReadIsShort() throws Exception {
        Path p = file(292_724);
        byte[] want = Files.readAllBytes(p);
        try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ)) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(8190);
            int n;
            while ((n = ch.read(b.clear())) > 0) {
                out.write(b.array(), 0, n);
            }
            assertArrayEquals(want, out.toByteArray());
        }
    }

    @Test
    void writesLandWhereTheyShould() throws Exception {
        Path p = dir.resolve("w");
        byte[] a = pattern(10_000, 1);
        try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ)) {
            assertEquals(10_000, ch.write(ByteBuffer.wrap(a)));
            ByteBuffer d = ByteBuffer.allocateDirect(100);
            d.put(pattern(100, 2)).flip();
            assertEquals(100, ch.write(d, 20_000));
            assertEquals(20_100, ch.size());
            assertEquals(10_000, ch.position());
        }
        byte[] got = Files.readAllBytes(p);
        assertArrayEquals(a, java.util.Arrays.copyOfRange(got, 0, 10_000));
        assertArrayEquals(new byte[10_000], java.util.Arrays.copyOfRange(got, 10_000, 20_000));
        assertArrayEquals(pattern(100, 2), java.util.Arrays.copyOfRange(got, 20_000, 20_100));
    }

    /**
     * A virtual thread's read across the end of a cached file, at a position and at the file position, into direct
     * and heap buffers: the bytes up to the end, made on the thread without the ring (a second {@code RWF_NOWAIT}
     * call finds the end; before, every such read made a round trip through the event loop, which cost a mix of
     * positional reads of 200 virtual threads nearly half its rate). A read whose first page is cached and whose
     * second is not still gets both: the rest from the ring.
     */
    @Test
    void aVirtualThreadsReadAcrossTheEndStaysOffTheRingAndOneAcrossAMissingPageGetsItAll() throws Exception {
        Path p = file(10_000);
        byte[] want = Files.readAllBytes(p);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long before = UringFiles.statistics().ringOperations();
        Thread.ofVirtual().start(() -> {
            try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ)) {
                for (ByteBuffer b : new ByteBuffer[] {ByteBuffer.allocateDirect(8192), ByteBuffer.allocate(8192)}) {
                    assertEquals(5000, ch.read(b.clear(), 5000));
                    assertArrayEquals(java.util.Arrays.copyOfRange(want, 5000, 10_000), bytes(b));
                    ch.position(4000);
                    assertEquals(6000, ch.read(b.clear()));
                    assertEquals(10_000, ch.position());
                    assertArrayEquals(java.util.Arrays.copyOfRange(want, 4000, 10_000), bytes(b));
                    assertEquals(-1, ch.read(b.clear()));
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }).join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(before, UringFiles.statistics().ringOperations(), "a read across the end went to the ring");

        io.github.uring4j.file.TestFiles.assumeNotInMemory(p, "its pages cannot be dropped from the cache");
        // The first read's miss starts the kernel's readahead of the second page, which now and then is done before
        // the second read asks; then no ring read is needed, which is right too. Every try reads the right bytes, and
        // one of a few shows the ring's path.
        int tries = 5;
        boolean ringRead = false;
        for (int t = 0; t < tries && !ringRead; t++) {
            long ringBefore = UringFiles.statistics().ringOperations();
            io.github.uring4j.file.TestFiles.evict(p);
            byte[] first = pattern(4096, 77 + t);
            try (FileChannel w = FileChannel.open(p, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap(first), 0); // a whole page written: cached without reading the next one
            }
            Thread.ofVirtual().start(() -> {
                try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ)) {
                    ByteBuffer b = ByteBuffer.allocateDirect(8192);
                    assertEquals(8192, ch.read(b, 0));
                    byte[] got = bytes(b);
                    assertArrayEquals(first, java.util.Arrays.copyOf(got, 4096));
                    assertArrayEquals(java.util.Arrays.copyOfRange(want, 4096, 8192),
                            java.util.Arrays.copyOfRange(got, 4096, 8192));
                } catch (Throwable e) {
                    failure.set(e);
                }
            }).join();
            if (failure.get() != null) {
                throw new AssertionError("try " + t, failure.get());
            }
            ringRead = UringFiles.statistics().ringOperations() > ringBefore;
        }
        assertTrue(ringRead, "in " + tries + " tries, the page out of the cache never came from the ring");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] got = new byte[b.flip().remaining()];
        b.get(got);
        return got;
    }

    /** O_DIRECT reads from virtual threads go through the ring; the bytes are right. */
    @Test
    void virtualThreadsReadDirectFilesThroughTheRing() throws Exception {
        Path p = file(4 << 20);
        byte[] want = Files.readAllBytes(p);
        long before = UringFiles.statistics().ringOperations();
        try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ, directOption());
                var ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int block = i % 1024;
                all.add(CompletableFuture.runAsync(() -> {
                    try (Arena a = Arena.ofConfined()) {
                        ByteBuffer b = a.allocate(4096, 4096).asByteBuffer();
                        int n = ch.read(b, block * 4096L);
                        assertEquals(4096, n);
                        byte[] got = new byte[4096];
                        b.flip().get(got);
                        assertArrayEquals(java.util.Arrays.copyOfRange(want, block * 4096, block * 4096 + 4096), got);
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                }, ex));
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        }
        assertTrue(UringFiles.statistics().ringOperations() - before >= 200, "ring operations counted");
    }

    private static java.nio.file.OpenOption directOption() {
        return io.github.uring4j.file.JdkOptions.DIRECT;
    }

    /** A read waiting on an empty FIFO ends with AsynchronousCloseException when another thread closes. */
    @Test
    @SuppressWarnings("try") // the close inside the block is what is tested
    void closeEndsAReadWaitingOnAFifo() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        // a writer that keeps the FIFO open without writing, so the open for reading returns and the read waits
        Process holder = new ProcessBuilder("sh", "-c", "exec 3>" + fifo + "; sleep 60").start();
        try (FileChannel ch = UringFiles.newFileChannel(fifo, StandardOpenOption.READ)) {
            AtomicReference<Throwable> seen = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    ch.read(ByteBuffer.allocate(10));
                } catch (Throwable e) {
                    seen.set(e);
                }
            });
            t.start();
            started.await();
            while (t.getState() != Thread.State.WAITING) {
                Thread.sleep(5);
            }
            ch.close();
            t.join(10_000);
            assertInstanceOf(AsynchronousCloseException.class, seen.get());
        } finally {
            holder.destroyForcibly();
        }
    }

    /** Interrupting a thread that waits on a FIFO read closes the channel and ends the read, as the JDK does. */
    @Test
    void interruptEndsAReadWaitingOnAFifo() throws Exception {
        Path fifo = dir.resolve("fifo2");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Process holder = new ProcessBuilder("sh", "-c", "exec 3>" + fifo + "; sleep 60").start();
        try (FileChannel ch = UringFiles.newFileChannel(fifo, StandardOpenOption.READ)) {
            AtomicReference<Throwable> seen = new AtomicReference<>();
            AtomicReference<Boolean> flag = new AtomicReference<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    ch.read(ByteBuffer.allocate(10));
                } catch (Throwable e) {
                    seen.set(e);
                    flag.set(Thread.currentThread().isInterrupted());
                }
            });
            while (t.getState() != Thread.State.WAITING) {
                Thread.sleep(5);
            }
            t.interrupt();
            t.join(10_000);
            assertInstanceOf(ClosedByInterruptException.class, seen.get());
            assertTrue(flag.get(), "the interrupt status stays set");
            assertTrue(!ch.isOpen());
        } finally {
            holder.destroyForcibly();
        }
    }

    /** The asynchronous channel: Futures and handlers, handlers on the executor named at open, close ends a pending read. */
    @Test
    @SuppressWarnings("try") // the close inside the block is what is tested
    void asynchronousChannelReadsWritesAndFailsPendingOnClose() throws Exception {
        Path p = dir.resolve("afc");
        var pool = Executors.newFixedThreadPool(1, r -> new Thread(r, "handler-pool"));
        try (var ch = UringFiles.newAsynchronousFileChannel(p, java.util.Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE), pool)) {
            assertInstanceOf(UringAsynchronousFileChannel.class, ch);
            assertEquals(5, ch.write(ByteBuffer.wrap("hello".getBytes()), 10).get(10, TimeUnit.SECONDS));
            ByteBuffer b = ByteBuffer.allocate(20);
            assertEquals(15, ch.read(b, 0).get(10, TimeUnit.SECONDS));
            assertEquals("hello", new String(b.array(), 10, 5));
            CompletableFuture<String> where = new CompletableFuture<>();
            ch.read(ByteBuffer.allocate(4), 100, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object a) {
                    where.complete(n + " on " + Thread.currentThread().getName());
                }

                @Override
                public void failed(Throwable t, Object a) {
                    where.completeExceptionally(t);
                }
            });
            assertEquals("-1 on handler-pool", where.get(10, TimeUnit.SECONDS));
        } finally {
            pool.shutdown();
        }
        Path fifo = dir.resolve("afifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Process holder = new ProcessBuilder("sh", "-c", "exec 3>" + fifo + "; sleep 60").start();
        try (var ch = UringFiles.newAsynchronousFileChannel(fifo, StandardOpenOption.READ)) {
            var pending = ch.read(ByteBuffer.allocate(10), 0);
            Thread.sleep(50);
            assertTrue(!pending.isDone());
            ch.close();
            var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
            assertInstanceOf(AsynchronousCloseException.class, e.getCause());
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void transferBetweenOurChannelsCopiesInTheKernel() throws Exception {
        Path src = file(3 << 20);
        Path dst = dir.resolve("copy");
        long before = UringFiles.statistics().kernelCopies();
        try (FileChannel in = UringFiles.newFileChannel(src, StandardOpenOption.READ);
                FileChannel out = UringFiles.newFileChannel(dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertEquals(3 << 20, in.transferTo(0, Long.MAX_VALUE, out));
            assertEquals(3 << 20, out.position());
        }
        assertArrayEquals(Files.readAllBytes(src), Files.readAllBytes(dst));
        assertTrue(UringFiles.statistics().kernelCopies() > before);
    }

    @Test
    void mapAndLocksAreTheJdksOnTheSameFile() throws Exception {
        Path p = file(8192);
        try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            var m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192);
            m.put(0, (byte) 42);
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, 0);
            assertEquals(42, b.get(0));
            var lock = ch.lock();
            assertTrue(lock.channel() == ch);
            assertThrows(java.nio.channels.OverlappingFileLockException.class, () -> ch.tryLock());
            lock.release();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192, a);
                assertEquals(42, s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            }
        }
    }

    /**
     * A path of another file system (a zip file's) goes to its own provider, as {@code FileChannel.open} and
     * {@code AsynchronousFileChannel.open} send it: the entry is read and written, never the local file of the same
     * name, and what the zip provider cannot do fails as it does on the JDK.
     */
    @Test
    void aPathOfAnotherFileSystemIsItsProvidersToOpen() throws Exception {
        Path zip = dir.resolve("t.zip");
        try (java.nio.file.FileSystem z = java.nio.file.FileSystems.newFileSystem(zip,
                java.util.Map.of("create", "true"))) {
            Path entry = z.getPath(dir.resolve("same-name").toString());
            Files.createDirectories(entry.getParent());
            Files.writeString(entry, "inside the zip");
            Files.writeString(dir.resolve("same-name"), "the local file");
            try (FileChannel ch = UringFiles.newFileChannel(entry, StandardOpenOption.READ)) {
                ByteBuffer b = ByteBuffer.allocate(100);
                ch.read(b);
                assertEquals("inside the zip", new String(b.array(), 0, b.position(),
                        java.nio.charset.StandardCharsets.UTF_8));
            }
            try (FileChannel ch = UringFiles.newFileChannel(entry, java.util.Set.of(StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING))) {
                ch.write(ByteBuffer.wrap("rewritten".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            assertEquals("rewritten", Files.readString(entry));
            assertEquals("the local file", Files.readString(dir.resolve("same-name")));
            Class<? extends Throwable> jdk = assertThrows(Throwable.class,
                    () -> java.nio.channels.AsynchronousFileChannel.open(entry, StandardOpenOption.READ)).getClass();
            assertEquals(jdk, assertThrows(Throwable.class,
                    () -> UringFiles.newAsynchronousFileChannel(entry, StandardOpenOption.READ)).getClass());
        }
    }
}
