package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.failure;
import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AsyncFile#readFile} on io_uring when it never finishes by itself (a FIFO without a writer: the open
 * succeeds, the read waits for data): cancel and close end it, nothing leaks, and the registered slot serves the
 * next file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReadFileUringTest {
    @TempDir
    Path dir;

    @Test
    void aWaitingReadFileIsCancelledItsFileClosedAndTheSlotReused() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo");
        Path plain = Files.write(dir.resolve("plain"), new byte[] {1, 2, 3});
        int fdsBefore = TestFiles.openFds();
        try (IoExecutor io = UringExecutorTest.uring().registeredFiles(1).build()) {
            CompletableFuture<Integer> blocked = AsyncFile.readFile(io, fifo, ByteBuffer.allocateDirect(16));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (io.inFlight() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            Thread.sleep(50);
            assertTrue(!blocked.isDone(), "the read waits for a writer");
            assertTrue(blocked.cancel(true));
            assertTrue(failure(blocked) instanceof CancellationException);
            UringExecutorTest.waitIdle(io);
            // The only registered slot is free again: the next readFile uses it and reads the file.
            ByteBuffer b = ByteBuffer.allocateDirect(8);
            assertEquals(3, get(AsyncFile.readFile(io, plain, b)));
            assertEquals(3, b.get(2));
        }
        assertEquals(fdsBefore, TestFiles.openFds(), "descriptors left: " + TestFiles.fdTargets());
    }

    @Test
    void closingTheExecutorEndsAWaitingReadFile() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo2");
        int fdsBefore = TestFiles.openFds();
        IoExecutor io = UringExecutorTest.uring().build();
        CompletableFuture<Integer> blocked = AsyncFile.readFile(io, fifo, ByteBuffer.allocateDirect(16));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (io.inFlight() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        io.close();
        Throwable t = failure(blocked);
        assertTrue(t instanceof AsynchronousCloseException || t instanceof CancellationException, String.valueOf(t));
        assertEquals(fdsBefore, TestFiles.openFds(), "descriptors left: " + TestFiles.fdTargets());
    }

    /**
     * Into a buffer of a registered pool, the read of a readFile is a READ_FIXED, linked after an open into a
     * registered slot and, with no slot free (none configured), after a plain open; the bytes land where they should,
     * a buffer partly before the pool's region or past it is read the ordinary way, and a file larger than the buffer
     * fills it.
     */
    @Test
    void intoARegisteredPoolsBufferTheReadIsFixedAndTheBytesRight() throws Exception {
        byte[] data = new byte[20_000];
        new java.util.Random(7).nextBytes(data);
        Path p = Files.write(dir.resolve("data"), data);
        for (int slots : new int[] {16, 0}) {
            try (IoExecutor io = UringExecutorTest.uring().registeredFiles(slots).build();
                    BufferPool pool = BufferPool.builder().bufferSize(32768).count(2).register(io).build()) {
                assertTrue(pool.isRegistered(), pool.registrationFailure().toString());
                var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
                ByteBuffer b = pool.acquireBuffer();
                long before = u.fixedOps();
                assertEquals(data.length, get(AsyncFile.readFile(io, p, b)));
                assertEquals(before + 1, u.fixedOps(), "READ_FIXED with " + slots + " registered slots");
                byte[] got = new byte[data.length];
                b.get(0, got);
                org.junit.jupiter.api.Assertions.assertArrayEquals(data, got);

                // Larger than the buffer: the buffer fills, as with any read.
                ByteBuffer small = b.clear().limit(4096).slice();
                assertEquals(4096, get(AsyncFile.readFile(io, p, small)));
                assertEquals(data[4095], small.get(4095));

                // Not in the pool's region: no READ_FIXED, the same bytes.
                ByteBuffer plain = ByteBuffer.allocateDirect(32768);
                long fixedBefore = u.fixedOps();
                assertEquals(data.length, get(AsyncFile.readFile(io, p, plain)));
                assertEquals(fixedBefore, u.fixedOps());
                assertEquals(data[19_999], plain.get(19_999));
                pool.release(b);
            }
        }
    }

    /**
     * A registered pool closed (and so unregistered from the ring) while a readFile's READ_FIXED into one of its
     * buffers waits for a writer: the read still completes into that memory, which the pool frees only after it.
     */
    @Test
    void aRegisteredPoolClosedUnderAWaitingReadFileKeepsItsMemoryUntilTheReadEnds() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoFixed");
        try (IoExecutor io = UringExecutorTest.uring().build()) {
            BufferPool pool = BufferPool.builder().bufferSize(4096).count(1).register(io).build();
            assertTrue(pool.isRegistered(), pool.registrationFailure().toString());
            var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
            long fixedBefore = u.fixedOps();
            ByteBuffer b = pool.acquireBuffer().limit(5);
            CompletableFuture<Integer> read = AsyncFile.readFile(io, fifo, b);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (io.inFlight() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            pool.release(b); // the caller's mistake: given back and closed under the read
            pool.close();
            assertTrue(!pool.isFreed(), "a read still uses the memory");
            try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(fifo,
                    java.nio.file.StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("fixed".getBytes()));
            }
            assertEquals(5, get(read));
            assertEquals(fixedBefore + 1, u.fixedOps(), "the read was a READ_FIXED");
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pool.isFreed() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(pool.isFreed(), "freed once the read completed");
            // The buffer's memory is gone with the pool: reading it now is refused, not a crash.
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> b.get(0));
        }
    }
}
