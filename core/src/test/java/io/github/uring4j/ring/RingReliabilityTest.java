package io.github.uring4j.ring;

import static io.github.uring4j.ring.Rings.bytes;
import static io.github.uring4j.ring.Rings.one;
import static io.github.uring4j.ring.Rings.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The ring's cases of docs/reliability.md that run against the real kernel: 4, 5, 9, 15, 16, 20, 26, 27, 28. */
class RingReliabilityTest {
    @TempDir
    Path dir;

    /** Case 4: an 8-entry ring takes exactly 8 SQEs; the 9th reports full, and space returns after a submit. */
    @Test
    void case04_eightEntryRingReportsFull() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertEquals(8, ring.sqSpaceLeft());
            for (int i = 0; i < 8; i++) {
                Sqe sqe = ring.trySqe();
                assertNotNull(sqe, "SQE " + i);
                sqe.nop().userData(i);
            }
            assertEquals(0, ring.sqSpaceLeft());
            assertNull(ring.trySqe(), "9th SQE");
            SubmissionQueueFullException e = assertThrows(SubmissionQueueFullException.class, ring::nextSqe);
            assertTrue(e.getMessage().contains("8"));
            assertEquals(8, ring.sqPending());
            assertEquals(8, ring.submit());
            assertEquals(8, ring.sqSpaceLeft());
            assertEquals(8, Rings.all(ring, 8).size());
        }
    }

    /** Case 5: four times the CQ size submitted without reaping: every user_data completes once, nothing hangs. */
    @Test
    void case05_cqOverflowIsFlushedAndNothingLost() throws Exception {
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).cqEntries(16))) {
            int total = 4 * ring.cqEntries();
            int next = 0;
            while (next < total) {
                for (int i = 0; i < 8 && next < total; i++) {
                    ring.nextSqe().nop().userData(next++);
                }
                ring.submit();
            }
            assertTrue((ring.sqFlags() & Uapi.IORING_SQ_CQ_OVERFLOW) != 0, "the kernel holds overflowed CQEs");
            BitSet seen = new BitSet();
            int[] count = {0};
            while (count[0] < total) {
                int n = ring.reap((ud, res, fl) -> {
                    assertFalse(seen.get((int) ud), "user_data " + ud + " twice");
                    assertEquals(0, res);
                    seen.set((int) ud);
                    count[0]++;
                });
                if (n == 0) {
                    ring.submitAndWait(1);
                }
            }
            assertEquals(total, seen.cardinality());
            assertEquals(0, ring.cqOverflowCount(), "with NODROP nothing is dropped");
            assertEquals(0, ring.cqReady());
        }
    }

    /** Case 9: every use of a closed ring throws IllegalStateException; a second close is a no-op. */
    @Test
    void case09_closedRingThrowsAndClosesOnce() throws Exception {
        IoUring ring = IoUring.open(8);
        Sqe held = ring.nextSqe().nop();
        ring.close();
        ring.close();
        assertFalse(ring.isOpen());
        List<ThrowingRunnable> uses = List.of(ring::nextSqe, ring::trySqe, ring::submit, () -> ring.submitAndWait(1),
                () -> ring.reap((u, r, f) -> { }), ring::probe, ring::features, ring::fd, ring::sqSpaceLeft,
                () -> ring.registerFiles(0), ring::registerRingFd, () -> ring.waitCompletions(1, 1000), ring::cqReady,
                () -> held.userData(1), () -> held.nop());
        for (ThrowingRunnable use : uses) {
            assertThrows(IllegalStateException.class, use::run);
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Case 15: 10,000 rings created and closed leave fds and mappings where they were. */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void case15_tenThousandRingsLeaveNoTrace() throws Exception {
        long fdsBefore = Rings.countFds(null);
        long ringFdsBefore = Rings.countFds("io_uring");
        long ringMapsBefore = Rings.countMaps("io_uring");
        for (int i = 0; i < 10_000; i++) {
            try (IoUring ring = IoUring.open(8)) {
                if (i % 1000 == 0) {
                    ring.nextSqe().nop().userData(i);
                    assertEquals(i, one(ring).userData());
                }
            }
        }
        assertEquals(ringFdsBefore, Rings.countFds("io_uring"));
        assertEquals(ringMapsBefore, Rings.countMaps("io_uring"));
        assertEquals(fdsBefore, Rings.countFds(null));
        try (IoUring ring = IoUring.open(8)) {
            ring.nextSqe().nop().userData(1);
            assertEquals(0, one(ring).res(), "no ENOMEM afterwards");
        }
    }

    /** Case 16: the ring is unmapped with exactly the length it was mapped with; a neighbouring mapping survives. */
    @Test
    void case16_unmapLeavesANeighbourIntact() throws Exception {
        Syscalls sys = Syscalls.system();
        long pageSize = 4096;
        long guard = -1;
        IoUring ring = null;
        // Place a page right after or before one of the ring's mappings. A new ring often fills a hole left by
        // an earlier mapping, with neighbours on both sides: keep the failed attempts open so that the next ring
        // lands elsewhere, until one has a free page beside it.
        List<IoUring> attempts = new ArrayList<>();
        for (int attempt = 0; attempt < 200 && guard < 0; attempt++) {
            IoUring r = IoUring.open(8);
            long[] m = r.mappings();
            long[] candidates = {m[4] + round(m[5], pageSize), m[0] + round(m[1], pageSize), m[4] - pageSize,
                m[0] - pageSize};
            for (long c : candidates) {
                long got = sys.mmap(c, pageSize, Uapi.PROT_READ | Uapi.PROT_WRITE,
                        Uapi.MAP_PRIVATE | Uapi.MAP_ANONYMOUS | Uapi.MAP_FIXED_NOREPLACE, -1, 0);
                if (got == c) {
                    guard = got;
                    break;
                }
                if (got > 0) {
                    sys.munmap(got, pageSize);
                }
            }
            if (guard > 0) {
                ring = r;
            } else {
                attempts.add(r);
            }
        }
        attempts.forEach(IoUring::close);
        assertTrue(guard > 0, "could not place a guard page next to the ring");
        MemorySegment g = MemorySegment.ofAddress(guard).reinterpret(pageSize);
        g.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9ABC_DEF0L);
        ring.close();
        assertEquals(0x1234_5678_9ABC_DEF0L, g.get(ValueLayout.JAVA_LONG, 0), "guard page still mapped and intact");
        long at = guard;
        // The kernel may merge the guard with a neighbouring anonymous mapping: look for a range that covers it.
        assertTrue(Files.readAllLines(Path.of("/proc/self/maps")).stream().anyMatch(l -> {
            String[] range = l.substring(0, l.indexOf(' ')).split("-");
            return Long.parseUnsignedLong(range[0], 16) <= at && at < Long.parseUnsignedLong(range[1], 16);
        }), "guard mapping listed in /proc/self/maps");
        long[] m = ring.mappings();
        for (int i = 0; i < m.length; i += 2) {
            long start = m[i];
            assertFalse(Files.readAllLines(Path.of("/proc/self/maps")).stream()
                    .anyMatch(l -> l.startsWith(Long.toHexString(start) + "-") && l.contains("io_uring")),
                    "ring mapping gone");
        }
        assertEquals(0, sys.munmap(guard, pageSize));
    }

    private static long round(long v, long to) {
        return (v + to - 1) / to * to;
    }

    /** Case 20: another thread gets WrongThreadException from the library itself. */
    @Test
    void case20_wrongThreadIsRefused() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            AtomicReference<List<Throwable>> seen = new AtomicReference<>(new ArrayList<>());
            Thread t = Thread.ofPlatform().start(() -> {
                List<ThrowingRunnable> uses = List.of(ring::nextSqe, ring::submit, () -> ring.submitAndWait(1),
                        () -> ring.reap((u, r, f) -> { }), ring::close, () -> ring.registerFiles(0));
                for (ThrowingRunnable u : uses) {
                    try {
                        u.run();
                        seen.get().add(null);
                    } catch (Throwable e) {
                        seen.get().add(e);
                    }
                }
            });
            t.join();
            assertEquals(6, seen.get().size());
            for (Throwable e : seen.get()) {
                assertTrue(e instanceof WrongThreadException, String.valueOf(e));
            }
            assertTrue(ring.isOpen(), "the owner's ring survives");
            ring.nextSqe().nop().userData(5);
            assertEquals(5, one(ring).userData());
            // Handing the ring to another thread moves ownership, and it can be handed back.
            Thread me = Thread.currentThread();
            CompletableFuture<Integer> res = new CompletableFuture<>();
            java.util.concurrent.CountDownLatch checked = new java.util.concurrent.CountDownLatch(1);
            Thread worker = Thread.ofPlatform().unstarted(() -> {
                try {
                    ring.nextSqe().nop().userData(6);
                    res.complete((int) one(ring).userData());
                    checked.await();
                    ring.handOff(me);
                } catch (Throwable e) {
                    res.completeExceptionally(e);
                }
            });
            ring.handOff(worker);
            assertThrows(WrongThreadException.class, ring::nextSqe);
            worker.start();
            assertEquals(6, res.get(30, TimeUnit.SECONDS));
            checked.countDown();
            worker.join();
            ring.nextSqe().nop().userData(7);
            assertEquals(7, one(ring).userData());
        }
    }

    /** Case 26: one submitter and one reaper thread, 10^7 NOPs: none lost, none twice. */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void case26_submitterAndReaperLoseNothing() throws Exception {
        final int total = Integer.getInteger("uring4j.test.nops", 10_000_000);
        try (IoUring ring = IoUring.open(IoUring.options().entries(1024).cqEntries(8192))) {
            AtomicLong reaped = new AtomicLong();
            BitSet seen = new BitSet(total);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread reaper = Thread.ofPlatform().name("reaper").unstarted(() -> {
                long n = 0;
                try {
                    while (n < total && failure.get() == null) {
                        long[] dup = {-1};
                        int got = ring.reap((ud, res, fl) -> {
                            if (seen.get((int) ud) || res != 0) {
                                dup[0] = ud;
                            }
                            seen.set((int) ud);
                        });
                        if (dup[0] >= 0) {
                            throw new AssertionError("user_data " + dup[0] + " twice or failed");
                        }
                        n += got;
                        reaped.lazySet(n);
                        if (got == 0) {
                            Thread.onSpinWait();
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            ring.bindCompletionsTo(reaper);
            reaper.start();
            int next = 0;
            while (next < total && failure.get() == null) {
                // Keep in flight below the CQ size so the reaper, which never enters the kernel, sees every CQE.
                long inFlight = next - reaped.get();
                int room = (int) Math.min(Math.min(ring.sqSpaceLeft(), 8192 - 1024 - inFlight), total - next);
                for (int i = 0; i < room; i++) {
                    ring.nextSqe().nop().userData(next++);
                }
                ring.submit();
                if (room <= 0) {
                    Thread.onSpinWait();
                }
            }
            reaper.join(240_000);
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(total, reaped.get());
            assertEquals(total, seen.cardinality());
            Thread me = Thread.currentThread();
            ring.bindCompletionsTo(me);
        }
    }

    /** Case 27: a child process inherits no ring descriptor (O_CLOEXEC). */
    @Test
    void case27_childProcessHoldsNoRingFd() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertTrue(Rings.countFds("io_uring") >= 1);
            Process p = new ProcessBuilder("ls", "-l", "/proc/self/fd/").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("/proc/"), "the child listed its descriptors: " + out);
            assertFalse(out.contains("io_uring"), "child inherited a ring fd:\n" + out);
            ring.nextSqe().nop().userData(1);
            one(ring);
        }
    }

    /** Case 28: reads and writes past 2^32 in a sparse file land where asked. */
    @Test
    void case28_offsetsBeyondFourGiB() throws Exception {
        Path f = dir.resolve("big");
        long[] offsets = {(1L << 32) - 2048, (5L << 30) + 123 * 4096L, (1L << 40) + 7};
        int fd = Rings.open(f, Uapi.O_RDWR | Uapi.O_CREAT | Uapi.O_CLOEXEC, 0644);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            int seed = 0;
            for (long off : offsets) {
                byte[] data = pattern(4096, ++seed);
                MemorySegment out = arena.allocate(4096);
                MemorySegment.copy(MemorySegment.ofArray(data), 0, out, 0, 4096);
                ring.nextSqe().write(FileTarget.fd(fd), out, off).userData(seed);
                assertEquals(4096, one(ring).res());
                MemorySegment in = arena.allocate(4096);
                ring.nextSqe().read(FileTarget.fd(fd), in, off).userData(100 + seed);
                assertEquals(4096, one(ring).res());
                assertArrayEquals(data, bytes(in));
            }
        } finally {
            Rings.close(fd);
        }
        assertEquals((1L << 40) + 7 + 4096, Files.size(f));
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            int seed = 0;
            for (long off : offsets) {
                ByteBuffer b = ByteBuffer.allocate(4096);
                while (b.hasRemaining()) {
                    ch.read(b, off + b.position());
                }
                assertArrayEquals(pattern(4096, ++seed), b.array(), "the JDK reads the same bytes at " + off);
            }
        }
    }

    @Test
    void timedWaitReturnsWhenNothingCompletes() throws IOException {
        try (IoUring ring = IoUring.open(8)) {
            long t0 = System.nanoTime();
            assertEquals(0, ring.waitCompletions(1, 20_000_000L));
            assertTrue(System.nanoTime() - t0 >= 10_000_000L, "waited for the timeout");
            ring.nextSqe().nop().userData(3);
            ring.submit();
            assertEquals(1, ring.waitCompletions(1, 5_000_000_000L));
            assertThrows(IllegalStateException.class, () -> ring.reap((u, r, f) -> {
                try {
                    ring.reap((a, b, c) -> { });
                } catch (UringException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }), "reap() from inside a handler");
        }
    }
}
