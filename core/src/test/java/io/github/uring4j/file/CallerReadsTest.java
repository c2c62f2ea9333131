package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.failure;
import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.CallerReads;
import io.github.uring4j.engine.uring.UringBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads made on the caller's own thread first ({@link IoExecutor.Builder#callerReads}): the same bytes, results and
 * buffer positions as the loop's, only where they may be made, and never from a descriptor a close gave away.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallerReadsTest {
    @TempDir
    Path dir;

    private static long callerReads(IoExecutor io) {
        return ((UringBackend) io.backend).callerReads();
    }

    @Test
    void cachedReadsIntoEveryKindOfMemoryAreMadeHereWithTheLoopsResults() throws Exception {
        TestFiles.assumeCallerReads(dir);
        byte[] data = TestFiles.pattern(1 << 20, 11);
        Path p = dir.resolve("data");
        Files.write(p, data); // in the page cache now
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ));
                Arena shared = Arena.ofShared();
                BufferPool pool = BufferPool.builder().bufferSize(4096).count(2).build()) {
            SplittableRandom r = new SplittableRandom(3);
            for (int i = 0; i < 500; i++) {
                int off = r.nextInt(data.length - 4096);
                byte[] want = Arrays.copyOfRange(data, off, off + 4096);
                byte[] got = new byte[4096];
                switch (i % 5) {
                    case 0 -> {
                        ByteBuffer b = ByteBuffer.allocateDirect(4096);
                        assertEquals(4096, get(f.read(b, off)));
                        assertEquals(4096, b.position(), "the buffer advanced by the bytes read");
                        b.flip().get(got);
                    }
                    case 1 -> {
                        ByteBuffer b = ByteBuffer.allocate(4096 + 7).position(7);
                        assertEquals(4096, get(f.read(b, off)));
                        assertEquals(4096 + 7, b.position());
                        System.arraycopy(b.array(), 7, got, 0, 4096);
                    }
                    case 2 -> {
                        MemorySegment s = Arena.ofAuto().allocate(4096);
                        assertEquals(4096, get(f.read(s, off)));
                        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, got, 0, 4096);
                    }
                    case 3 -> {
                        MemorySegment s = shared.allocate(4096);
                        assertEquals(4096, get(f.read(s, off)));
                        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, got, 0, 4096);
                    }
                    default -> {
                        ByteBuffer b = pool.acquireBuffer();
                        try {
                            assertEquals(4096, get(f.read(b, off)));
                            b.flip().get(got);
                        } finally {
                            pool.release(b);
                        }
                    }
                }
                assertArrayEquals(want, got, "read " + i + " at " + off);
            }
            assertEquals(500, callerReads(io), "every read was made on this thread");
            ByteBuffer whole = ByteBuffer.allocateDirect(8192);
            assertEquals(8192, get(f.readFully(whole, 4096)));
            byte[] back = new byte[8192];
            whole.flip().get(back);
            assertArrayEquals(Arrays.copyOfRange(data, 4096, 4096 + 8192), back);
            assertEquals(501, callerReads(io), "a full read the page cache holds");
            // at the end: -1, as the loop says it
            assertEquals(-1, get(f.read(ByteBuffer.allocateDirect(10), data.length)));
            assertEquals(502, callerReads(io));
            // across the end: a part, and a second call finds the end (before, the loop read it all again)
            ByteBuffer tail = ByteBuffer.allocateDirect(100);
            assertEquals(40, get(f.read(tail, data.length - 40)));
            assertEquals(40, tail.position());
            tail.flip();
            for (int i = 0; i < 40; i++) {
                assertEquals(data[data.length - 40 + i], tail.get(i));
            }
            assertEquals(503, callerReads(io));
        }
        // A read whose first page is cached and whose second is not: the second call says EAGAIN, and the loop reads
        // it all (a heap buffer too, whose bytes come through the loop's memory). The first call's miss starts the
        // kernel's readahead of the second page, which now and then is done before the second call asks: then the
        // caller makes the whole read, which is right too. So: every try reads the right bytes, and one of a few tries
        // shows the loop's path.
        TestFiles.assumeNotInMemory(p, "its pages cannot be dropped from the cache");
        int tries = 5;
        boolean loopRead = false;
        for (int t = 0; t < tries && !loopRead; t++) {
            TestFiles.evict(p);
            byte[] first = TestFiles.pattern(4096, 12 + t);
            try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(p, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap(first), 0); // a whole page written: cached without reading the next one
            }
            try (IoExecutor io = UringExecutorTest.uring().build();
                    AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
                ByteBuffer b = ByteBuffer.allocate(8192);
                assertEquals(8192, get(f.read(b, 0)));
                assertArrayEquals(first, Arrays.copyOf(b.array(), 4096), "try " + t);
                assertArrayEquals(Arrays.copyOfRange(data, 4096, 8192), Arrays.copyOfRange(b.array(), 4096, 8192),
                        "try " + t);
                loopRead = callerReads(io) == 0;
            }
        }
        assertTrue(loopRead, "in " + tries + " tries, a read the page cache held a part of was never made by the loop");
    }

    @Test
    void readsThatMustGoToTheLoopGoThere() throws Exception {
        byte[] data = TestFiles.pattern(1 << 20, 12);
        Path p = dir.resolve("data");
        Files.write(p, data);
        try (IoExecutor io = UringExecutorTest.uring().callerReads(false).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            assertEquals(4096, get(f.read(ByteBuffer.allocateDirect(4096), 0)));
            assertEquals(0, callerReads(io), "callerReads(false)");
        }
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ))) {
            ByteBuffer big = ByteBuffer.allocateDirect(CallerReads.MAX + 4096);
            assertEquals(big.capacity(), get(f.read(big, 0)));
            assertEquals(0, callerReads(io), "a read over " + CallerReads.MAX + " bytes");
            // a full read that meets the end of the file: the loop's EOFException
            assertTrue(failure(f.readFully(ByteBuffer.allocateDirect(4096), data.length - 100))
                    instanceof java.io.EOFException);
            assertEquals(0, callerReads(io), "a full read across the end");
            // a read issued by a completion, on the loop: the loop makes it
            CompletableFuture<Integer> onLoop = new CompletableFuture<>();
            f.read(ByteBuffer.allocateDirect(16), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object a) {
                    f.read(ByteBuffer.allocateDirect(16), 16).whenComplete((m, e) -> {
                        if (e != null) {
                            onLoop.completeExceptionally(e);
                        } else {
                            onLoop.complete(m);
                        }
                    });
                }

                @Override
                public void failed(Throwable e, Object a) {
                    onLoop.completeExceptionally(e);
                }
            });
            assertEquals(16, get(onLoop));
            assertEquals(0, callerReads(io), "a read issued on the loop thread");
        }
        Path fifo = TestFiles.fifo(dir, "fifo");
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile q = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            ByteBuffer b = ByteBuffer.allocateDirect(3);
            CompletableFuture<Integer> r = q.read(b, 0);
            assertFalse(r.isDone(), "a FIFO's read waits in the loop, in order with the others");
            try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("abc".getBytes()));
            }
            assertEquals(3, get(r));
            assertEquals(0, callerReads(io), "not a regular file");
        }
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile d = get(AsyncFile.open(io, p, StandardOpenOption.READ, FileOption.DIRECT))) {
            MemorySegment s = Arena.ofAuto().allocate(4096, 4096);
            assertEquals(4096, get(d.read(s, 0)));
            assertEquals(0, callerReads(io), "O_DIRECT");
        } catch (FileIOException e) {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "O_DIRECT not supported here: " + e);
        }
    }

    /**
     * Reader threads (platform and virtual) read the file another thread keeps closing and replacing with a file of
     * other bytes, so that the next open is likely given the descriptor number just closed. Every read that succeeds
     * holds the bytes of the file it was asked of; the others fail as reads of a closed file do.
     */
    @Test
    void aCloseRacingCallerReadsNeverHandsThemAnotherFilesDescriptor() throws Exception {
        TestFiles.assumeCallerReads(dir);
        int files = 4;
        Path[] paths = new Path[files];
        byte[][] contents = new byte[files][];
        for (int i = 0; i < files; i++) {
            paths[i] = dir.resolve("f" + i);
            contents[i] = TestFiles.pattern(64 * 1024, 100 + i);
            Files.write(paths[i], contents[i]);
        }
        record Open(AsyncFile file, int id) {
        }
        try (IoExecutor io = UringExecutorTest.uring().build()) {
            AtomicReference<Open> current = new AtomicReference<>(new Open(get(AsyncFile.open(io, paths[0],
                    StandardOpenOption.READ)), 0));
            AtomicReference<Throwable> wrong = new AtomicReference<>();
            AtomicLong good = new AtomicLong();
            AtomicLong closed = new AtomicLong();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Runnable reader = () -> {
                SplittableRandom r = new SplittableRandom(Thread.currentThread().threadId());
                ByteBuffer b = ByteBuffer.allocateDirect(4096);
                byte[] got = new byte[4096];
                while (!stop.get() && wrong.get() == null) {
                    Open o = current.get();
                    int off = r.nextInt(64 * 1024 - 4096);
                    b.clear();
                    try {
                        int n = o.file().read(b, off).join();
                        b.flip().get(got);
                        if (n != 4096 || !Arrays.equals(got, 0, 4096, contents[o.id()], off, off + 4096)) {
                            wrong.compareAndSet(null, new AssertionError("read of file " + o.id() + " at " + off
                                    + " returned " + n + " bytes that are not its own"));
                        }
                        good.incrementAndGet();
                    } catch (CompletionException e) {
                        if (e.getCause() instanceof ClosedChannelException
                                || e.getCause() instanceof AsynchronousCloseException) {
                            closed.incrementAndGet();
                        } else {
                            wrong.compareAndSet(null, e);
                        }
                    } catch (Throwable e) {
                        wrong.compareAndSet(null, e);
                    }
                }
            };
            Thread[] readers = {new Thread(reader), new Thread(reader), Thread.ofVirtual().start(reader)};
            readers[0].start();
            readers[1].start();
            for (int cycle = 1; cycle <= 3000 && wrong.get() == null; cycle++) {
                int id = cycle % files;
                Open next = new Open(get(AsyncFile.open(io, paths[id], StandardOpenOption.READ)), id);
                Open old = current.getAndSet(next);
                old.file().close();
            }
            stop.set(true);
            for (Thread t : readers) {
                t.join();
            }
            current.get().file().close();
            if (wrong.get() != null) {
                throw new AssertionError(wrong.get());
            }
            assertTrue(good.get() > 0, "reads succeeded: " + good.get() + ", closed under them: " + closed.get());
            assertTrue(callerReads(io) > 0, "reads made on the readers' threads");
            assertTrue(failure(current.get().file().read(ByteBuffer.allocateDirect(1), 0))
                    instanceof ClosedChannelException);
        }
    }
    /**
     * uring4j's {@code AsynchronousFileChannel} makes the reads of its futures the same way: the right bytes, -1 at
     * the end, and a channel closed and replaced under its readers never hands them another file's bytes.
     */
    @Test
    void theDropInAsynchronousChannelsFutureReadsToo() throws Exception {
        byte[][] contents = {TestFiles.pattern(64 * 1024, 7), TestFiles.pattern(64 * 1024, 8)};
        Path[] paths = {dir.resolve("a0"), dir.resolve("a1")};
        for (int i = 0; i < 2; i++) {
            Files.write(paths[i], contents[i]);
        }
        record Open(java.nio.channels.AsynchronousFileChannel ch, int id) {
        }
        AtomicReference<Open> current = new AtomicReference<>(new Open(
                io.github.uring4j.nio.UringFiles.newAsynchronousFileChannel(paths[0], StandardOpenOption.READ), 0));
        ByteBuffer end = ByteBuffer.allocate(8);
        long bytesBefore = io.github.uring4j.nio.UringFiles.statistics().bytesRead();
        assertEquals(-1, current.get().ch().read(end, 64 * 1024).get());
        assertEquals(bytesBefore, io.github.uring4j.nio.UringFiles.statistics().bytesRead(),
                "a read at the end counts no bytes (it once counted -1)");
        ByteBuffer some = ByteBuffer.allocate(100);
        assertEquals(100, current.get().ch().read(some, 0).get());
        assertEquals(bytesBefore + 100, io.github.uring4j.nio.UringFiles.statistics().bytesRead());
        AtomicReference<Throwable> wrong = new AtomicReference<>();
        AtomicLong good = new AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable reader = () -> {
            SplittableRandom r = new SplittableRandom(Thread.currentThread().threadId());
            ByteBuffer b = ByteBuffer.allocate(4096);
            while (!stop.get() && wrong.get() == null) {
                Open o = current.get();
                int off = r.nextInt(64 * 1024 - 4096);
                b.clear();
                try {
                    int n = o.ch().read(b, off).get();
                    if (n != 4096 || !Arrays.equals(b.array(), 0, 4096, contents[o.id()], off, off + 4096)) {
                        wrong.compareAndSet(null, new AssertionError("read of file " + o.id() + " at " + off
                                + " returned " + n + " bytes that are not its own"));
                    }
                    good.incrementAndGet();
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof ClosedChannelException)) {
                        wrong.compareAndSet(null, e);
                    }
                } catch (Throwable e) {
                    wrong.compareAndSet(null, e);
                }
            }
        };
        long before = io.github.uring4j.nio.UringFiles.statistics().callerCalls();
        Thread[] readers = {new Thread(reader), Thread.ofVirtual().start(reader)};
        readers[0].start();
        for (int cycle = 1; cycle <= 2000 && wrong.get() == null; cycle++) {
            int id = cycle % 2;
            Open old = current.getAndSet(new Open(io.github.uring4j.nio.UringFiles.newAsynchronousFileChannel(paths[id],
                    StandardOpenOption.READ), id));
            old.ch().close();
        }
        stop.set(true);
        for (Thread t : readers) {
            t.join();
        }
        current.get().ch().close();
        if (wrong.get() != null) {
            throw new AssertionError(wrong.get());
        }
        assertTrue(good.get() > 0, "reads succeeded: " + good.get());
        assertTrue(io.github.uring4j.nio.UringFiles.statistics().callerCalls() > before, "reads made by the readers");
    }
}
