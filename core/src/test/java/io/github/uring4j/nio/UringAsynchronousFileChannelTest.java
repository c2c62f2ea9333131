package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.await;
import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The AsynchronousFileChannel contract on the channels {@link UringFiles} hands out, and what only they do. */
class UringAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    @Override
    Kind kind() {
        return Kind.URING;
    }

    /**
     * Channels dropped without {@code close()} after a read and a write each: once unreachable, every descriptor
     * comes back. (The JDK's own {@code AsynchronousFileChannel} keeps them: 300 were still open a minute after, on
     * JDK 25; its {@code FileChannel} gives them back, which {@code FileChannelContract} shows for both.)
     */
    @Test
    void channelsDroppedWithoutCloseGiveTheirDescriptorsBackOnceUnreachable() throws Exception {
        Path p = file("f", pattern(4096, 99));
        for (int i = 0; i < 300; i++) {
            AsynchronousFileChannel ch = open(p, READ, WRITE);
            assertEquals(100, await(ch.read(ByteBuffer.allocate(100), 0)));
            assertEquals(1, await(ch.write(ByteBuffer.wrap(new byte[] {pattern(4096, 99)[i]}), i)));
        }
        List<String> open = Conform.fdsUnderAfterCollection(dir);
        assertEquals(0, open.size(), "descriptors of dropped channels a minute after they were dropped: " + open.size());
        assertArrayEquals(pattern(4096, 99), Files.readAllBytes(p));
    }

    /**
     * Futures of reads the page cache holds are made on the caller's thread with the channel's own descriptor: into a
     * direct and a heap buffer, across the end (the short count) and at it (-1), with no ring operation and no copy
     * of the descriptor for a ring (each open, read and close of a channel made one, and closed it through the event
     * loop: 0.60 times the JDK channel's rate, over 3 times since). A read of pages out of the cache still gets its
     * bytes (from the ring, or from the page cache once the kernel's read-ahead, which the first attempt started, is
     * done: which of the two is the device's timing).
     */
    @Test
    void futureReadsOfCachedPagesAreMadeHereWithoutTheRing() throws Exception {
        byte[] data = pattern(20_000, 5);
        Path p = file("cached", data);
        long ring = UringFiles.statistics().ringOperations();
        for (int i = 0; i < 50; i++) {
            try (AsynchronousFileChannel ch = open(p, READ)) {
                ByteBuffer d = ByteBuffer.allocateDirect(8192);
                assertEquals(8192, await(ch.read(d, 100)));
                ByteBuffer h = ByteBuffer.allocate(8192 + 3).position(3);
                assertEquals(20_000 - 15_000, await(ch.read(h, 15_000)));
                assertEquals(-1, await(ch.read(ByteBuffer.allocate(10), 20_000)));
                byte[] got = new byte[8192];
                d.flip().get(got);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, 100, 8292), got);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, 15_000, 20_000),
                        java.util.Arrays.copyOfRange(h.array(), 3, 5003));
                assertEquals(5003, h.position());
                assertEquals(1, Conform.fdsUnder(dir).size(), "descriptors of the file: " + Conform.fdsUnder(dir));
            }
        }
        assertEquals(ring, UringFiles.statistics().ringOperations(), "reads of cached pages went to the ring");
        io.github.uring4j.file.TestFiles.assumeNotInMemory(p, "its pages cannot be dropped from the cache");
        io.github.uring4j.file.TestFiles.evict(p);
        try (AsynchronousFileChannel ch = open(p, READ)) {
            ByteBuffer d = ByteBuffer.allocateDirect(4096);
            assertEquals(4096, await(ch.read(d, 8192)));
            byte[] got = new byte[4096];
            d.flip().get(got);
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 8192, 12_288), got);
        }
    }

    /**
     * A wait for one of the channel's operations on a thread of the event loops that must complete it (code in an
     * {@code AsyncFile} handler, which runs on the loop of the shared default executor the channel uses too) fails at
     * once with {@code IllegalStateException}: the wait would stop the loop for good. The operation goes on and ends
     * with the channel's close.
     */
    @Test
    void waitingForAnOperationOnItsEventLoopFailsAtOnce() throws Exception {
        Path fifo = Conform.fifo(dir, "nobodyWrites");
        Path p = file("f", pattern(4096, 7));
        try (AsynchronousFileChannel ch = open(fifo, READ, WRITE);
                io.github.uring4j.file.AsyncFile f = io.github.uring4j.file.AsyncFile.open(p, READ).join()) {
            List<Future<Integer>> pending = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<Throwable> onLoop = io.github.uring4j.file.TestFiles.onLoop(f, () -> {
                Future<Integer> never = ch.read(ByteBuffer.allocate(1), 0); // a FIFO nobody writes
                pending.add(never);
                never.get();
            });
            Throwable e = await(onLoop);
            assertInstanceOf(IllegalStateException.class, e, "the wait on the loop");
            assertTrue(e.getMessage().contains("event loop"), e.getMessage());
            ch.close();
            ExecutionException closed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> pending.get(0).get());
            assertInstanceOf(AsynchronousCloseException.class, closed.getCause());
        }
    }
}
