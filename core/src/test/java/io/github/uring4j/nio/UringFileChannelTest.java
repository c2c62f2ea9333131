package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The FileChannel contract on the channels {@link UringFiles} hands out. */
class UringFileChannelTest extends FileChannelContract {
    @Override
    Kind kind() {
        return Kind.URING;
    }

    /** uring4j parks a virtual reader and wakes it; while UringFiles still hands out the JDK's channel, the JDK's. */
    @Override
    boolean virtualReadersWaitForTheirRead(FileChannel ch) {
        return Conform.isJdkChannel(ch);
    }

    /**
     * uring4j's readers park on a ring read instead of pinning their carrier: 10,000 of them need no more carriers
     * than the scheduler starts for the processors (the JDK's channel grows to as many as 256 for O_DIRECT reads).
     */
    @Override
    void checkCarriers(int carriers, boolean direct) {
        if (io.github.uring4j.file.IoExecutor.defaultExecutor().backend() == io.github.uring4j.file.Backend.IO_URING) {
            int cores = Runtime.getRuntime().availableProcessors();
            assertTrue(carriers <= cores, carriers + " carrier threads for " + cores + " processors");
        }
    }

    /**
     * A transfer between a drop-in channel and a JDK {@code FileChannel}, which the JDK's channel of the same file makes:
     * its bytes count in the drop-in statistics (they were missing: 1 MiB copied added nothing).
     */
    @Test
    void transfersWithAJdkChannelCountInTheStatistics() throws Exception {
        Path p = file("stats-src", pattern(1 << 20, 60));
        Path q = file("stats-dst", new byte[0]);
        try (FileChannel ours = open(p, READ, WRITE); FileChannel jdk = FileChannel.open(q, READ, WRITE)) {
            long read = UringFiles.statistics().bytesRead();
            assertEquals(1 << 20, ours.transferTo(0, 1 << 20, jdk));
            assertTrue(UringFiles.statistics().bytesRead() - read >= 1 << 20, "bytes read not counted");
            jdk.position(0);
            long written = UringFiles.statistics().bytesWritten();
            assertEquals(1 << 20, ours.transferFrom(jdk, 1 << 20, 1 << 20));
            assertTrue(UringFiles.statistics().bytesWritten() - written >= 1 << 20, "bytes written not counted");
        }
    }

    /**
     * A transfer from a channel that is not ours reads before it writes; when the write fails, a {@code FileChannel}
     * source gets back what was read and not written (the JDK's channel keeps its 8 KiB buffer's worth consumed).
     */
    @Test
    void aFailedTransferFromGivesTheSourceBackWhatItDidNotWrite() throws Exception {
        Path p = file("f", pattern(10, 58));
        Path q = file("g", pattern(50_000, 59));
        io.github.uring4j.file.TestFiles.assumeRefusesPosition(p.getParent(), Long.MAX_VALUE - 1000);
        try (FileChannel ours = open(p, READ, WRITE); FileChannel jdk = FileChannel.open(q, READ)) {
            jdk.position(100);
            IOException e = assertThrows(IOException.class, () -> ours.transferFrom(jdk, Long.MAX_VALUE - 1000, 40_000));
            assertEquals(100, jdk.position(), "the source's position after " + e);
            assertEquals(10, ours.size());
        }
    }

    /**
     * A blocking read of a FIFO through the drop-in, made by code on an event loop of the executor the channel uses
     * (an {@code AsyncFile} handler of the shared default executor): {@code IllegalStateException} at once, as a
     * {@code join()} there fails, instead of a loop waiting for itself for ever (the read goes to the ring, which that
     * loop serves). The channel stays usable from other threads.
     */
    @Test
    void aBlockingReadOfAFifoOnAnEventLoopFailsAtOnce() throws Exception {
        Path fifo = Conform.fifo(dir, "loopFifo");
        Path p = dir.resolve("f");
        java.nio.file.Files.write(p, pattern(100, 3));
        try (FileChannel ch = open(fifo, READ, WRITE);
                io.github.uring4j.file.AsyncFile f = io.github.uring4j.file.AsyncFile.open(p, READ).join()) {
            java.util.concurrent.CompletableFuture<Throwable> onLoop = io.github.uring4j.file.TestFiles.onLoop(f,
                    () -> ch.read(java.nio.ByteBuffer.allocate(1)));
            Throwable e = Conform.await(onLoop);
            assertTrue(e instanceof IllegalStateException && e.getMessage().contains("event loop"), String.valueOf(e));
            assertEquals(1, ch.write(java.nio.ByteBuffer.wrap(new byte[] {42})));
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            assertEquals(1, ch.read(b));
            assertEquals(42, b.get(0));
        }
    }

    /**
     * A buffer still lent by a {@code BufferPool} the program closed reads and writes through a drop-in channel as
     * through the JDK's (it was refused, "its memory is freed", while the memory was alive: a hostile probe); once it
     * is given back and the memory freed, the transfer fails with {@code IllegalStateException}, as the JDK's does for
     * a buffer of a closed arena, and the kernel never sees the memory.
     */
    @Test
    void aBufferStillLentByAClosedPoolTransfersAsTheJdksChannelLetsIt() throws Exception {
        byte[] data = pattern(8192, 17);
        Path p = file("lentByClosed", data);
        io.github.uring4j.file.BufferPool pool = io.github.uring4j.file.BufferPool.create(4096, 1);
        java.nio.ByteBuffer b = pool.acquireBuffer();
        pool.close();
        try (FileChannel ch = open(p, READ, WRITE)) {
            assertEquals(4096, ch.read(b, 4096));
            for (int i = 0; i < 4096; i++) {
                assertEquals(data[4096 + i], b.get(i), "byte " + i);
            }
            b.flip();
            assertEquals(4096, ch.write(b, 0));
            assertEquals(data[4096], java.nio.file.Files.readAllBytes(p)[0]);
            pool.release(b);
            java.nio.ByteBuffer freed = b.clear();
            assertThrows(IllegalStateException.class, () -> ch.read(freed, 0));
            assertThrows(IllegalStateException.class, () -> ch.write(freed, 0));
        }
    }

    /**
     * A drop-in channel whose reads went through the ring closes even while a completion handler of the user's keeps
     * the shared executor's loop from its work: after about two seconds without progress there, with a warning,
     * instead of waiting for the handler for ever. The descriptor, which the ring uses too, stays open until the ring
     * is done with it (closed at once, its number could be another file's before the ring's calls on it ended), and
     * goes once the handler returns.
     */
    @Test
    void closingWhileAHandlerHoldsTheLoopReturns() throws Exception {
        Path fifo = Conform.fifo(dir, "heldFifo");
        Path p = dir.resolve("held");
        java.nio.file.Files.write(p, pattern(100, 4));
        FileChannel ch = open(fifo, READ, WRITE);
        // a read of the empty FIFO waits in the ring: the ring now has a handle of the channel's descriptor
        java.util.concurrent.CompletableFuture<Integer> waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return ch.read(java.nio.ByteBuffer.allocate(1));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Thread.sleep(100);
        // written through a descriptor of its own: the waiting relative read holds the channel's position lock
        try (FileChannel writer = FileChannel.open(fifo, WRITE)) {
            assertEquals(1, writer.write(java.nio.ByteBuffer.wrap(new byte[] {7})));
        }
        assertEquals(1, Conform.await(waiting));
        io.github.uring4j.file.HeldHandler held = new io.github.uring4j.file.HeldHandler();
        try (io.github.uring4j.file.AsyncFile f = io.github.uring4j.file.AsyncFile.open(p, READ).join()) {
            f.read(java.nio.ByteBuffer.allocateDirect(10), 0, null, held);
            assertTrue(held.entered.await(30, java.util.concurrent.TimeUnit.SECONDS));
            try {
                java.util.concurrent.CompletableFuture<Void> close = java.util.concurrent.CompletableFuture.runAsync(() -> {
                    try {
                        ch.close();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                Conform.await(close.orTimeout(60, java.util.concurrent.TimeUnit.SECONDS)); // it used to wait for the handler
                assertFalse(ch.isOpen());
                assertTrue(openOn(fifo), "the descriptor closed while the ring may still use it");
            } finally {
                held.release();
            }
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (openOn(fifo) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(openOn(fifo), "a descriptor of the FIFO is left");
    }

    private static boolean openOn(Path file) throws java.io.IOException {
        try (var fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return java.nio.file.Files.readSymbolicLink(fd).equals(file);
                } catch (java.io.IOException e) {
                    return false; // closed meanwhile (the listing's own descriptor among them)
                }
            });
        }
    }
}
