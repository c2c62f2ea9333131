package io.github.uring4j.ring;

import static io.github.uring4j.ring.Rings.one;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.LeanCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arguments of the expert API that would have the kernel touch memory or descriptors the caller did not name, found
 * by a hostile probe: each is refused before the kernel sees it, and a refused argument never drops an entry that
 * was already encoded.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingArgumentsTest {
    @TempDir
    Path dir;

    /**
     * {@code madvise} acts on whole pages: a 16-byte region's {@code MADV_DONTNEED} zeroed the allocations beside it
     * and the JVM aborted in {@code free}. Only whole, page-aligned regions are taken.
     */
    @Test
    void madviseTakesWholePagesOnly() throws Exception {
        long page = LeanCalls.pageSize();
        try (IoUring ring = IoUring.open(4); Arena arena = Arena.ofConfined()) {
            MemorySegment pages = arena.allocate(2 * page, page);
            MemorySegment neighbour = pages.asSlice(page, 16);
            neighbour.fill((byte) 7);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().madvise(pages.asSlice(0, 16), 4 /* MADV_DONTNEED */));
            assertTrue(e.getMessage().contains("whole pages"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().madvise(pages.asSlice(16, page), 4));
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().madvise(pages.asSlice(0, 0), 4));
            assertEquals(0, ring.sqPending(), "nothing claimed");
            ring.nextSqe().madvise(pages.asSlice(0, page), 4).userData(1);
            assertEquals(0, one(ring).res());
            assertEquals(7, neighbour.get(ValueLayout.JAVA_BYTE, 15), "the next page is untouched");
        }
    }

    /** {@code closeFixed(-1)} wrote file index 0, which the kernel reads as "no slot": it closed descriptor 0. */
    @Test
    void registeredSlotsOutOfRangeAreRefused() throws Exception {
        try (IoUring ring = IoUring.open(4); Arena arena = Arena.ofConfined()) {
            for (int slot : new int[] {-1, -2, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> ring.nextSqe().closeFixed(slot));
                assertTrue(e.getMessage().contains(String.valueOf(slot)), e.getMessage());
            }
            MemorySegment path = arena.allocateFrom(dir.resolve("x").toString());
            for (int slot : new int[] {-2, -5, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                assertThrows(IllegalArgumentException.class,
                        () -> ring.nextSqe().openatDirect(-100, path, OpenFlag.RDONLY, 0, slot));
            }
            assertEquals(0, ring.sqPending());
        }
    }

    /**
     * A second encoder call on an entry already encoded, or another thread's call, is refused as such, whatever its
     * argument: a refused argument had given the first entry back, and the NOP was never submitted.
     */
    @Test
    void aRefusedArgumentNeverDropsAnEncodedEntry() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            Arena closed = Arena.ofConfined();
            MemorySegment gone = closed.allocate(16);
            closed.close();
            Sqe s = ring.nextSqe();
            s.nop().userData(42);
            IllegalStateException second = assertThrows(IllegalStateException.class,
                    () -> s.read(FileTarget.fd(0), gone, 0));
            assertTrue(second.getMessage().contains("already encoded"), second.getMessage());
            assertThrows(IllegalStateException.class, () -> s.read(FileTarget.fd(0), MemorySegment.ofArray(new byte[4]), 0));
            assertEquals(1, ring.sqPending(), "the NOP stays claimed");
            AtomicReference<Throwable> other = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    s.read(FileTarget.fd(0), gone, 0);
                } catch (Throwable e) {
                    other.set(e);
                }
            });
            t.join();
            assertTrue(other.get() instanceof WrongThreadException, String.valueOf(other.get()));
            assertEquals(1, ring.sqPending(), "another thread's call took nothing away");
            assertEquals(42, one(ring).userData());
        }
    }

    /** Read-only segments are not written: reads, vectored reads, statx and registered buffers refuse them. */
    @Test
    void readOnlySegmentsAreNotWrittenInto() throws Exception {
        Path p = dir.resolve("ro");
        Files.write(p, "0123456789abcdef".getBytes());
        int fd = Rings.open(p, OpenFlag.RDONLY | OpenFlag.CLOEXEC, 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(16);
            MemorySegment ro = buf.asReadOnly();
            FileTarget t = FileTarget.fd(fd);
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().read(t, ro, 0)).getMessage()
                    .contains("read-only"));
            IoVecArray iov = IoVecArray.allocate(arena, 2).set(0, arena.allocate(4)).set(1, ro);
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().readv(t, iov, 2, 0));
            MemorySegment empty = arena.allocateFrom("");
            assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().statx(fd, empty, 0x1000, 0x7ff, arena.allocate(256).asReadOnly()));
            assertThrows(IllegalArgumentException.class, () -> ring.registerBuffers(ro));
            assertEquals(0, ring.sqPending());
            assertArrayEquals(new byte[16], Rings.bytes(buf), "nothing was written");
            ring.nextSqe().readv(t, iov, 1, 0).userData(1); // the writable entry alone
            assertEquals(4, one(ring).res());
            ring.nextSqe().write(FileTarget.fd(fd), ro, 0).userData(2); // a write only reads it: taken (EBADF here)
            assertTrue(one(ring).res() < 0);
        } finally {
            Rings.close(fd);
        }
    }

    /**
     * A ring dropped unclosed after {@code registerRingFd()}: its index is in the kernel's table of its thread, which
     * the cleaner cannot change, and the thread's 17th registration said {@code EBUSY}. The thread's next
     * registration gives the indexes of its cleaned rings back.
     */
    @Test
    void droppedRegisteredRingsGiveTheirIndexesBackToTheirThread() throws Exception {
        long fds = Rings.countFds("io_uring");
        for (int i = 0; i < 40; i++) {
            IoUring ring = IoUring.open(4);
            for (int tries = 0;; tries++) {
                try {
                    ring.registerRingFd();
                    break;
                } catch (UringException e) {
                    if (tries == 500) {
                        ring.close();
                        throw new AssertionError("ring " + i + ": registration still refused", e);
                    }
                    System.gc(); // the dropped rings' cleaners run, and the next try gives their indexes back
                    Thread.sleep(10);
                }
            }
            ring.nextSqe().nop().userData(i);
            assertEquals(i, one(ring).userData());
            // dropped without close()
        }
        for (int i = 0; i < 500 && Rings.countFds("io_uring") > fds; i++) {
            System.gc(); // leave no ring behind for the next test to count
            Thread.sleep(10);
        }
        assertEquals(fds, Rings.countFds("io_uring"), "descriptors of the dropped rings");
    }

    /** A path the kernel would read past the end of (no NUL inside the segment) is refused. */
    @Test
    void aPathWithoutItsNulIsRefused() throws Exception {
        try (IoUring ring = IoUring.open(4); Arena arena = Arena.ofConfined()) {
            MemorySegment path = arena.allocate(8).fill((byte) 'a');
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().openat(-100, path, OpenFlag.RDONLY, 0));
            assertTrue(e.getMessage().contains("NUL"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().openat(-100, arena.allocate(0), 0, 0));
            assertEquals(0, ring.sqPending());
            ring.nextSqe().openat(-100, arena.allocateFrom(dir.resolve("absent").toString()), OpenFlag.RDONLY, 0)
                    .userData(3);
            assertEquals(-2, one(ring).res(), "ENOENT: a path with its NUL is taken");
        }
    }

    /**
     * A path segment longer than {@code PATH_MAX} is the kernel's to judge (it never reads more than that): a long
     * name with its NUL fails there with {@code ENAMETOOLONG}, as the same call of the C library does (it was refused
     * as having no NUL, found by a hostile probe).
     */
    @Test
    void aPathLongerThanPathMaxFailsInTheKernelWithNameTooLong() throws Exception {
        try (IoUring ring = IoUring.open(4); Arena arena = Arena.ofConfined()) {
            String longName = dir + "/" + "d".repeat(200) + "/" + "z".repeat(4800);
            ring.nextSqe().openat(-100, arena.allocateFrom(longName), OpenFlag.RDONLY, 0).userData(4);
            assertEquals(-36, one(ring).res(), "ENAMETOOLONG");
            ring.nextSqe().openat(-100, arena.allocate(5000).fill((byte) 'a'), OpenFlag.RDONLY, 0).userData(5);
            assertEquals(-36, one(ring).res(), "ENAMETOOLONG: no NUL within PATH_MAX bytes, none read past them");
        }
    }

    /**
     * Lengths the kernel takes as unsigned (a negative one is a huge range) or refuses are refused before anything
     * is claimed (a hostile probe's {@code syncFileRange} and {@code fadvise} of length -1 succeeded over 4 GiB).
     */
    @Test
    void negativeLengthsAndSizesAreRefused() throws Exception {
        try (IoUring ring = IoUring.open(4); Arena arena = Arena.ofConfined()) {
            FileTarget f = FileTarget.fd(0);
            java.util.List<org.junit.jupiter.api.function.Executable> calls = java.util.List.of(
                    () -> ring.nextSqe().syncFileRange(f, 0, -1, 0),
                    () -> ring.nextSqe().fadvise(f, 0, -1, 0),
                    () -> ring.nextSqe().fallocate(f, 0, 0, -1),
                    () -> ring.nextSqe().ftruncate(f, -1),
                    () -> ring.nextSqe().splice(f, -1, FileTarget.fd(1), -1, -1, 0));
            for (org.junit.jupiter.api.function.Executable c : calls) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, c);
                assertTrue(e.getMessage().startsWith("negative "), e.getMessage());
            }
            assertEquals(0, ring.sqPending(), "nothing claimed");
            IoVecArray iov = IoVecArray.allocate(arena, 2);
            assertThrows(IllegalArgumentException.class, () -> iov.set(0, arena.allocate(8).address(), -1));
            assertThrows(IllegalArgumentException.class, () -> iov.set(0, 0, 4096));
            iov.set(1, 0, 0); // nothing at no address: taken
        }
    }

    /**
     * {@code reap(null)} took the first ready completion with it (the head moved on before the handler was called);
     * a negative maximum was taken as none.
     */
    @Test
    void aNullHandlerOrANegativeMaximumTakesNoCompletion() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            ring.nextSqe().nop().userData(7);
            ring.submitAndWait(1);
            assertThrows(NullPointerException.class, () -> ring.reap(null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ring.reap((u, r, f) -> { }, -1));
            assertTrue(e.getMessage().contains("-1"), e.getMessage());
            assertEquals(1, ring.cqReady(), "the completion is still there");
            assertEquals(7, one(ring).userData());
        }
    }

    /** A timespec of any duration a {@code Duration} holds (toNanos() overflowed past 292 years); negative refused. */
    @Test
    void timespecsTakeEveryDuration() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ts = Timespec.allocate(arena, java.time.Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
            assertEquals(Long.MAX_VALUE, ts.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(999_999_999L, ts.get(ValueLayout.JAVA_LONG, 8));
            assertThrows(IllegalArgumentException.class, () -> Timespec.allocate(arena, java.time.Duration.ofNanos(-1)));
        }
    }

    /** Setup flags whose ring layout this library does not read (CQE_MIXED posted completions read as two) are refused. */
    @Test
    void setupFlagsTheLibraryDoesNotKnowAreRefused() {
        for (int bit : new int[] {1 << 14, 1 << 15, 1 << 17, 1 << 18, 1 << 31}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> IoUring.options().flags(bit));
            assertTrue(e.getMessage().contains(Integer.toHexString(bit)), e.getMessage());
        }
        IoUring.options().flags(SetupFlag.SINGLE_ISSUER | SetupFlag.NO_SQARRAY | SetupFlag.CQE32); // known ones
    }

    /**
     * The kernel ties a ring's registered descriptor and a SINGLE_ISSUER ring to an OS thread: a virtual thread,
     * which moves between carriers, got EBADF and EEXIST, and a SINGLE_ISSUER ring handed to another thread EEXIST;
     * a DEFER_TASKRUN ring's waiting completions never reached another reaper. All refused with the reason.
     */
    @Test
    void whatTheKernelTiesToOneThreadIsRefusedElsewhere() throws Exception {
        AtomicReference<Throwable> reg = new AtomicReference<>();
        AtomicReference<Throwable> single = new AtomicReference<>();
        AtomicReference<Integer> plain = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try (IoUring ring = IoUring.open(4)) {
                try {
                    ring.registerRingFd();
                } catch (Throwable e) {
                    reg.set(e);
                }
                ring.nextSqe().nop().userData(5);
                plain.set((int) one(ring).userData());
            } catch (Throwable e) {
                reg.compareAndSet(null, e);
            }
            try (IoUring ring = IoUring.open(IoUring.options().entries(4).flags(SetupFlag.SINGLE_ISSUER))) {
                single.set(new AssertionError("opened"));
            } catch (Throwable e) {
                single.set(e);
            }
        }).join();
        assertTrue(reg.get() instanceof IllegalStateException && reg.get().getMessage().contains("virtual thread"),
                String.valueOf(reg.get()));
        assertEquals(5, plain.get(), "the ring itself works on a virtual thread");
        assertTrue(single.get() instanceof IllegalStateException && single.get().getMessage().contains("SINGLE_ISSUER"),
                String.valueOf(single.get()));
        Thread other = Thread.ofPlatform().unstarted(() -> { });
        try (IoUring ring = IoUring.open(IoUring.options().entries(4).flags(SetupFlag.SINGLE_ISSUER))) {
            assertThrows(IllegalStateException.class, () -> ring.handOff(other));
            ring.nextSqe().nop().userData(6);
            assertEquals(6, one(ring).userData(), "still the owner's");
        }
        try (IoUring ring = IoUring.open(IoUring.options().entries(4)
                .flags(SetupFlag.SINGLE_ISSUER | SetupFlag.DEFER_TASKRUN))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ring.bindCompletionsTo(other));
            assertTrue(e.getMessage().contains("DEFER_TASKRUN"), e.getMessage());
        }
        try (IoUring ring = IoUring.open(4)) {
            ring.handOff(other); // a plain ring may go to another thread
        }
    }
}
