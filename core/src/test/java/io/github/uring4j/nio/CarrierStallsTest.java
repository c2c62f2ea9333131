package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls of virtual threads that could hold their carrier for long leave it ({@link CarrierStalls}): buffered writes
 * once a write was seen waiting in the kernel, and large copies.
 */
class CarrierStallsTest {
    static final int BLOCK = 4096;
    static final int BLOCKS = 2000;

    @TempDir
    Path tmp;

    @AfterEach
    void forgetStalls() {
        CarrierStalls.baseNanos = CarrierStalls.DEFAULT_BASE_NANOS;
        CarrierStalls.reset();
    }

    /**
     * Skips the test where the temporary directory's file system takes buffered writes with {@code RWF_NOWAIT}
     * (XFS, btrfs): there a write never waits on its carrier (one that would says {@code EAGAIN} and leaves the
     * carrier at once), so there is no stall to see. ext4 refuses the flag.
     */
    void assumeWritesWaitOnTheCarrier() throws Exception {
        Path probe = tmp.resolve("nowait-probe");
        try (FileChannel ch = UringFiles.newFileChannel(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            // a virtual thread's write tries RWF_NOWAIT (a platform thread's write of a regular file does not)
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    ch.write(ByteBuffer.wrap(new byte[] {1}), 0);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.join();
            java.lang.reflect.Field f = UringFileChannel.class.getDeclaredField("nowaitWrites");
            f.setAccessible(true);
            Assumptions.assumeFalse(f.getBoolean(ch), "the file system of " + tmp + " (" + Files.getFileStore(tmp).type()
                    + ") takes buffered writes with RWF_NOWAIT: a write that would wait leaves its carrier at once");
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    static byte[] block(int i) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) (i * 31 + 7));
        return b;
    }

    /**
     * Runs {@link OneCarrier} in a JVM whose virtual threads share one carrier, which the JDK may not add to; returns
     * the numbers it prints.
     */
    long[] oneCarrier(Path file, boolean everyWriteStalls) throws Exception {
        Conform.Child child = Conform.runJava(List.of("-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1"), OneCarrier.class, file.toString(),
                String.valueOf(everyWriteStalls));
        String text = child.output();
        assertTrue(child.ended(), "child still running after 60 s: " + text);
        assertEquals(0, child.exit(), text);
        String last = text.lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("seen "), text);
        String[] f = last.split(" ");
        byte[] written = Files.readAllBytes(file);
        assertEquals(BLOCKS * BLOCK, written.length);
        for (int i = 0; i < BLOCKS; i++) {
            byte[] got = Arrays.copyOfRange(written, i * BLOCK, (i + 1) * BLOCK);
            assertArrayEquals(block(i), got, "block " + i);
        }
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[3])};
    }

    /**
     * A virtual thread writes blocks, another counts the turns it gets while the writer is inside {@code write}: with
     * one carrier, it gets none unless the write leaves the carrier (the writer parks nowhere else).
     */
    public static final class OneCarrier {
        public static void main(String[] args) throws Exception {
            // every write a virtual thread makes on its carrier counts as a stall, or none does (a 4 KiB write
            // preempted for 10 ms on a loaded machine is a stall too, and made this test fail in a CI run)
            CarrierStalls.baseNanos = Boolean.parseBoolean(args[1]) ? -1 : Long.MAX_VALUE / 4;
            AtomicBoolean writing = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong seen = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread counter = Thread.ofVirtual().start(() -> {
                while (!stop.get()) {
                    if (writing.get()) {
                        seen.incrementAndGet();
                    }
                    // A timed park, not Thread.yield(): with one carrier, a yielding virtual thread was run again
                    // and again while the writer, started from the main thread, waited for ever in the pool's queue.
                    LockSupport.parkNanos(20_000);
                }
            });
            Thread writer = Thread.ofVirtual().start(() -> {
                try (FileChannel ch = UringFiles.newFileChannel(Path.of(args[0]), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE)) {
                    for (int i = 0; i < BLOCKS; i++) {
                        ByteBuffer b = ByteBuffer.allocateDirect(BLOCK).put(block(i)).flip();
                        writing.set(true);
                        while (b.hasRemaining()) {
                            ch.write(b, (long) i * BLOCK + b.position());
                        }
                        writing.set(false);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            writer.join();
            stop.set(true);
            counter.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            System.out.println("seen " + seen.get() + " offCarrier " + UringFiles.statistics().offCarrierCalls());
        }
    }

    @Test
    void afterAStallTheWritesOfVirtualThreadsLeaveTheirCarrier() throws Exception {
        assumeWritesWaitOnTheCarrier();
        long[] r = oneCarrier(tmp.resolve("stalled"), true);
        assertTrue(r[1] > 0, "no write left the carrier");
        assertTrue(r[0] > 0, "the other virtual thread never ran while a write was made");
    }

    @Test
    void withoutAStallWritesStayOnTheCarrier() throws Exception {
        assumeWritesWaitOnTheCarrier(); // elsewhere a write the page cache cannot take at once leaves (EAGAIN)
        long[] r = oneCarrier(tmp.resolve("plain"), false);
        assertEquals(0, r[1], "writes left the carrier");
        assertEquals(0, r[0], "the other virtual thread ran while a write was made on the only carrier");
    }

    /**
     * A real wait in the kernel: a platform thread's 256 MiB writes hold the file's inode lock, so a virtual thread's
     * small write to the same file waits for it. That is seen as a stall, and the virtual thread's next write leaves
     * its carrier; platform threads' writes never do.
     */
    @Test
    void aWriteWaitingForAnotherWritersInodeLockIsAStall() throws Exception {
        assumeWritesWaitOnTheCarrier();
        Path file = Files.createFile(tmp.resolve("locked"));
        long stallsBefore = CarrierStalls.stalls();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread big = Thread.ofPlatform().start(() -> {
            try (FileChannel ch = UringFiles.newFileChannel(file, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocateDirect(256 << 20);
                while (!stop.get()) {
                    ch.write(b.clear(), 0);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        try {
            Thread v = Thread.ofVirtual().start(() -> {
                try (FileChannel ch = UringFiles.newFileChannel(file, StandardOpenOption.WRITE)) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!CarrierStalls.active() && System.nanoTime() < deadline) {
                        ch.write(ByteBuffer.wrap(block(1)), 4096);
                    }
                    long off = UringFiles.statistics().offCarrierCalls();
                    assertEquals(BLOCK, ch.write(ByteBuffer.wrap(block(2)), 8192));
                    assertTrue(UringFiles.statistics().offCarrierCalls() > off, "the write after a stall stayed");
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            v.join();
        } finally {
            stop.set(true);
            big.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(CarrierStalls.stalls() >= stallsBefore + 2, "no two stalls in 30 s of writes behind 256 MiB writes");
        long second = System.nanoTime();
        CarrierStalls.reset(); // then two more stalls: a period starts anew
        CarrierStalls.ended(second - TimeUnit.SECONDS.toNanos(1), 0, false);
        CarrierStalls.ended(second - TimeUnit.SECONDS.toNanos(1), 0, false);
        long off = UringFiles.statistics().offCarrierCalls();
        try (FileChannel ch = UringFiles.newFileChannel(file, StandardOpenOption.WRITE)) {
            assertTrue(CarrierStalls.active());
            ch.write(ByteBuffer.wrap(block(3)), 0);
        }
        assertEquals(off, UringFiles.statistics().offCarrierCalls(), "a platform thread's write left its thread");
    }

    /**
     * One stall alone starts nothing; two within a second start a period; after it one write probes while the
     * others leave; a probe that waited starts a longer period, one that did not ends the episode.
     */
    @Test
    void twoStallsStartAPeriodAndOneProbeAtATimeEndsIt() throws Exception {
        long slow = TimeUnit.SECONDS.toNanos(1);
        assertEquals(CarrierStalls.INLINE, CarrierStalls.route());
        CarrierStalls.ended(System.nanoTime() - slow, 0, false);
        assertEquals(CarrierStalls.INLINE, CarrierStalls.route(), "one stall started a period");
        CarrierStalls.ended(System.nanoTime() - slow, 0, false);
        assertEquals(CarrierStalls.OFF, CarrierStalls.route());
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(CarrierStalls.FIRST_BACKOFF_NANOS) + 50);
        assertEquals(CarrierStalls.PROBE, CarrierStalls.route());
        assertEquals(CarrierStalls.OFF, CarrierStalls.route(), "a second probe while the first is out");
        CarrierStalls.ended(System.nanoTime() - slow, 0, true); // the probe waited: a period twice as long
        assertEquals(2 * CarrierStalls.FIRST_BACKOFF_NANOS, CarrierStalls.period());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int route;
        while ((route = CarrierStalls.route()) == CarrierStalls.OFF && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(CarrierStalls.PROBE, route, "no probe after the second period");
        CarrierStalls.ended(System.nanoTime(), 0, true); // the probe passed at once
        assertEquals(CarrierStalls.INLINE, CarrierStalls.route());
        assertEquals(CarrierStalls.INLINE, CarrierStalls.route());
    }

    /** Off the carrier, relative writes move the position and appends land at the end, heap buffers too. */
    @Test
    void relativeWritesAndAppendsOffTheCarrierKeepTheirSemantics() throws Exception {
        assumeWritesWaitOnTheCarrier();
        Path rel = tmp.resolve("relative");
        Path app = Files.write(tmp.resolve("append"), new byte[] {1, 2, 3});
        CarrierStalls.baseNanos = -1;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long off = UringFiles.statistics().offCarrierCalls();
        Thread.ofVirtual().start(() -> {
            try (FileChannel r = UringFiles.newFileChannel(rel, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileChannel a = UringFiles.newFileChannel(app, StandardOpenOption.APPEND)) {
                for (int i = 0; i < 10; i++) {
                    ByteBuffer b = i % 2 == 0 ? ByteBuffer.wrap(block(i))
                            : ByteBuffer.allocateDirect(BLOCK).put(block(i)).flip();
                    assertEquals(BLOCK, r.write(b));
                    assertEquals((long) (i + 1) * BLOCK, r.position());
                    assertEquals(BLOCK, a.write(ByteBuffer.wrap(block(i))));
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }).join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(UringFiles.statistics().offCarrierCalls() - off >= 16, "writes stayed on the carrier");
        byte[] r = Files.readAllBytes(rel);
        byte[] a = Files.readAllBytes(app);
        assertEquals(10 * BLOCK, r.length);
        assertEquals(3 + 10 * BLOCK, a.length);
        assertArrayEquals(new byte[] {1, 2, 3}, Arrays.copyOf(a, 3));
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(block(i), Arrays.copyOfRange(r, i * BLOCK, (i + 1) * BLOCK), "relative block " + i);
            assertArrayEquals(block(i), Arrays.copyOfRange(a, 3 + i * BLOCK, 3 + (i + 1) * BLOCK), "appended " + i);
        }
    }

    /**
     * A virtual thread's copy of 1 MiB of cached pages is made on its carrier, as the JDK's channel makes it (the
     * hand-off to a platform thread cost a 64 KiB copy nine tenths of its rate); once the source's pages are out of
     * the cache, so that the copy reads the device, a platform thread makes it while the carrier runs others.
     */
    @Test
    void aLargeCopyOfAVirtualThreadLeavesItsCarrierWhenItReadsTheDevice() throws Exception {
        Path from = tmp.resolve("from");
        byte[] data = new byte[1 << 20];
        new java.util.Random(5).nextBytes(data);
        Files.write(from, data);
        long off = UringFiles.statistics().offCarrierCalls();
        copyOnAVirtualThread(from, tmp.resolve("cached"), data);
        Assumptions.assumeTrue(cachestatWorks(from), "no cachestat (Linux 6.5): every large copy leaves its carrier");
        assertEquals(off, UringFiles.statistics().offCarrierCalls(), "the copy of cached pages left its carrier");
        io.github.uring4j.file.TestFiles.assumeNotInMemory(from, "its pages cannot be dropped from the cache");
        io.github.uring4j.file.TestFiles.evict(from);
        copyOnAVirtualThread(from, tmp.resolve("uncached"), data);
        assertTrue(UringFiles.statistics().offCarrierCalls() > off, "the copy from the device stayed on the carrier");
    }

    private static void copyOnAVirtualThread(Path from, Path to, byte[] data) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try (FileChannel in = UringFiles.newFileChannel(from, StandardOpenOption.READ);
                    FileChannel out = UringFiles.newFileChannel(to, StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE)) {
                long done = 0;
                while (done < data.length) {
                    done += in.transferTo(done, data.length - done, out);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }).join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertArrayEquals(data, Files.readAllBytes(to));
    }

    /** Whether the kernel answers {@code cachestat} for {@code p}. */
    private static boolean cachestatWorks(Path p) throws Exception {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment capture = io.github.uring4j.linux.LeanCalls.allocateCapture(a);
            int fd = io.github.uring4j.linux.LeanCalls.open(capture, a.allocateFrom(p.toString()),
                    io.github.uring4j.linux.Uapi.O_RDONLY | io.github.uring4j.linux.Uapi.O_CLOEXEC, 0);
            try {
                return io.github.uring4j.linux.LeanCalls.cachestat(capture, fd, a.allocate(16, 8),
                        a.allocate(io.github.uring4j.linux.LeanCalls.CACHESTAT_SIZE, 8)) == 0;
            } finally {
                io.github.uring4j.linux.LeanCalls.close(capture, fd);
            }
        }
    }
}
