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

    /** An executor whose {@code execute} throws {@code thrown}, or first waits for {@code release}, then runs. */
    private static java.util.concurrent.ExecutorService executorThat(Throwable thrown,
            java.util.concurrent.CountDownLatch release) {
        return new java.util.concurrent.AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                if (thrown instanceof RuntimeException e) {
                    throw e;
                }
                if (thrown instanceof Error e) {
                    throw e;
                }
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new java.util.concurrent.RejectedExecutionException(e);
                }
                Thread.ofPlatform().start(command);
            }

            @Override
            public void shutdown() {
            }

            @Override
            public List<Runnable> shutdownNow() {
                return List.of();
            }

            @Override
            public boolean isShutdown() {
                return false;
            }

            @Override
            public boolean isTerminated() {
                return false;
            }

            @Override
            public boolean awaitTermination(long timeout, java.util.concurrent.TimeUnit unit) {
                return false;
            }
        };
    }

    /**
     * The executor named at open is the user's: an {@code execute} that throws (an {@code Error}, as a pool out of
     * native threads throws {@code OutOfMemoryError}; an {@code IllegalStateException}) or waits leaves the channels
     * of the same event loops working, and the handler still runs, on the library's pool when {@code execute} threw
     * (before: the {@code Error} ended the loop, and every operation of the other channels failed with
     * {@code AsynchronousCloseException} from then on; the {@code IllegalStateException} lost the handler; a waiting
     * {@code execute} held the loop; found by a hostile probe). The JDK's channel throws from the call instead, a
     * call that has returned here before the result is known.
     */
    @Test
    void anExecutorThatThrowsOrWaitsInExecuteStopsNoOtherChannel() throws Exception {
        Path p = file("f", pattern(4096, 80));
        List<AsynchronousFileChannel> others = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                others.add(open(p, READ, WRITE)); // on every loop of the default executor
            }
            for (Throwable thrown : new Throwable[] {new OutOfMemoryError("unable to create native thread (a test)"),
                    new IllegalStateException("a test")}) {
                try (AsynchronousFileChannel ch = kind().openAsync(p, java.util.Set.of(READ, WRITE),
                        executorThat(thrown, null))) {
                    for (int i = 0; i < 4; i++) {
                        CompletableFuture<Integer> handled = new CompletableFuture<>();
                        ch.write(ByteBuffer.wrap(pattern(100, 81)), 0, null, io.github.uring4j.file.TestFiles.into(handled));
                        assertEquals(100, handled.get(10, java.util.concurrent.TimeUnit.SECONDS), thrown.toString());
                    }
                    for (AsynchronousFileChannel o : others) {
                        assertEquals(1, await(o.write(ByteBuffer.wrap(new byte[] {7}), 200)), thrown.toString());
                    }
                }
            }
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            try (AsynchronousFileChannel ch = kind().openAsync(p, java.util.Set.of(READ, WRITE),
                    executorThat(null, release))) {
                List<CompletableFuture<Integer>> handled = new java.util.ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    CompletableFuture<Integer> h = new CompletableFuture<>();
                    handled.add(h);
                    Thread.ofPlatform().start(() -> ch.write(ByteBuffer.wrap(pattern(100, 82)), 300, null,
                            io.github.uring4j.file.TestFiles.into(h)));
                }
                for (int round = 0; round < 5; round++) {
                    for (AsynchronousFileChannel o : others) {
                        assertEquals(1, await(o.write(ByteBuffer.wrap(new byte[] {8}), 400)),
                                "the loops turn while the executor's execute() waits");
                    }
                }
                release.countDown();
                for (CompletableFuture<Integer> h : handled) {
                    assertEquals(100, h.get(10, java.util.concurrent.TimeUnit.SECONDS));
                }
            }
        } finally {
            for (AsynchronousFileChannel o : others) {
                o.close();
            }
        }
    }

    /**
     * A lock that waits for another process while the executor named at open is shut down with {@code shutdownNow()}
     * (its threads interrupted): the channel's other lock stays held and valid, the waiting lock is taken once the
     * other process lets go, and later locks work (before: the wait ran on a thread of that executor, in the JDK's
     * channel behind this one, which the interrupt closed: every lock of the file went, and later locks failed with
     * {@code ClosedChannelException} on a channel still open; found by a hostile probe).
     */
    @Test
    void shuttingDownTheExecutorWhileALockWaitsKeepsTheOtherLocks() throws Exception {
        Path p = file("f", pattern(2000, 83));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (SecondProcess other = SecondProcess.start();
                AsynchronousFileChannel ch = kind().openAsync(p, java.util.Set.of(READ, WRITE), pool)) {
            java.nio.channels.FileLock held = await(ch.lock(1000, 10, false));
            assertEquals("HOLDING", other.ask("hold " + p + " 0 100"));
            CompletableFuture<java.nio.channels.FileLock> waiting = new CompletableFuture<>();
            ch.lock(0, 10, false, null, io.github.uring4j.file.TestFiles.into(waiting));
            Conform.awaitLockWait();
            pool.shutdownNow();
            assertTrue(held.isValid());
            assertEquals("BUSY", other.ask("try " + p + " 1000 10 false"), "still held by this process");
            assertEquals("RELEASED", other.ask("release"));
            java.nio.channels.FileLock taken = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(taken.isValid() && held.isValid());
            java.nio.channels.FileLock later = ch.tryLock(1500, 10, true);
            assertTrue(later != null && later.isValid());
        } finally {
            pool.shutdownNow();
        }
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
     * A channel whose writes and sync went through the ring holds one descriptor of its file, as the JDK's does (the
     * ring had a copy of its own: two for every channel, which ran a program with many channels out of descriptors
     * where the JDK's did not), and none once closed.
     */
    @Test
    void aChannelThatUsedTheRingHoldsOneDescriptor() throws Exception {
        Path p = file("one", new byte[0]);
        long ring = UringFiles.statistics().ringOperations();
        for (int i = 0; i < 20; i++) {
            try (AsynchronousFileChannel ch = open(p, READ, WRITE)) {
                assertEquals(4096, await(ch.write(ByteBuffer.wrap(pattern(4096, i)), 0)));
                ch.force(false);
                assertEquals(1, Conform.fdsUnder(dir).size(), "descriptors of the file: " + Conform.fdsUnder(dir));
            }
            assertEquals(0, Conform.fdsUnder(dir).size(), "after close: " + Conform.fdsUnder(dir));
            assertArrayEquals(pattern(4096, i), Files.readAllBytes(p));
        }
        assertTrue(UringFiles.statistics().ringOperations() >= ring + 20, "the writes did not go to the ring");
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
