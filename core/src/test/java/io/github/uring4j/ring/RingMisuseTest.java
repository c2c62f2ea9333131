package io.github.uring4j.ring;

import static io.github.uring4j.ring.Rings.one;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The expert API under misuse: what the ring can check is refused before the kernel sees it, an entry whose
 * encoder did not finish is never submitted, and a ring is released whoever ends up holding it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingMisuseTest {
    @TempDir
    Path dir;

    private static MemorySegment failingBuffer() {
        throw new IllegalStateException("the caller's code failed while computing an argument");
    }

    /** An entry whose argument threw while it was being built: the next submit must not run the slot's old contents. */
    @Test
    void anEntryWhoseArgumentThrewIsNeverSubmitted() throws Exception {
        Path p = dir.resolve("stale");
        int fd = Rings.open(p, OpenFlag.RDWR | OpenFlag.CREAT | OpenFlag.CLOEXEC, 0644);
        try (IoUring ring = IoUring.open(1); Arena arena = Arena.ofConfined()) {
            assertEquals(1, ring.sqEntries());
            FileTarget t = FileTarget.fd(fd);
            MemorySegment old = arena.allocateFrom("OLD CONTENTS");
            ring.nextSqe().write(t, old.asSlice(0, 12), 0).userData(1);
            assertEquals(12, one(ring).res());
            Files.write(p, new byte[0]); // truncated behind the ring's back
            assertThrows(IllegalStateException.class, () -> ring.nextSqe().write(t, failingBuffer(), 100));
            assertEquals(0, ring.sqPending(), "nothing was claimed");
            assertEquals(0, ring.submit(), "nothing is submitted");
            assertEquals(0, ring.cqReady());
            assertEquals(0, Files.size(p), "the slot's previous write must not run again");
        } finally {
            Rings.close(fd);
        }
    }

    /** Refused arguments (closed arena, negative raw length, null address) leave nothing claimed. */
    @Test
    void refusedArgumentsClaimNothing() throws Exception {
        Path p = dir.resolve("refused");
        Files.write(p, new byte[8192]);
        int fd = Rings.open(p, OpenFlag.RDONLY | OpenFlag.CLOEXEC, 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            FileTarget t = FileTarget.fd(fd);
            MemorySegment freed;
            try (Arena shortLived = Arena.ofShared()) {
                freed = shortLived.allocate(4096);
            }
            IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> ring.nextSqe().read(t, freed, 0));
            assertTrue(closed.getMessage().contains("closed arena"), closed.getMessage());
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().read(t, arena.allocate(16).address(), -1, 0));
            assertTrue(negative.getMessage().contains("negative length"), negative.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().write(t, 0L, 4096, 0));
            MemorySegment oversized = arena.allocate(8).reinterpret(1L << 33); // never touched: refused first
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().read(t, oversized, 0));
            assertEquals(0, ring.sqPending());
            assertEquals(0, ring.submit());
            // The ring still works.
            ring.nextSqe().read(t, arena.allocate(4096), 0).userData(7);
            assertEquals(4096, one(ring).res());
        } finally {
            Rings.close(fd);
        }
    }

    /** A fixed-buffer transfer must lie inside the registered buffer it names. */
    @Test
    void fixedTransfersOutsideTheRegisteredBufferAreRefused() throws Exception {
        Path p = dir.resolve("fixed");
        Files.write(p, Rings.pattern(8192, 3));
        int fd = Rings.open(p, OpenFlag.RDONLY | OpenFlag.CLOEXEC, 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofShared()) {
            FileTarget t = FileTarget.fd(fd);
            MemorySegment reg = arena.allocate(4096, 4096);
            MemorySegment other = arena.allocate(4096, 4096);
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().readFixed(t, reg, 0, 0),
                    "no buffers registered yet");
            ring.registerBuffers(reg);
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().readFixed(t, other, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().readFixed(t, reg, 0, 1));
            assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().readFixed(t, reg.address() + 1024, 4096, 0, 0));
            assertEquals(0, ring.sqPending());
            ring.nextSqe().readFixed(t, reg.address() + 1024, 1024, 0, 0).userData(1);
            assertEquals(1024, one(ring).res());
            assertEquals(Rings.pattern(8192, 3)[0], reg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1024));
        } finally {
            Rings.close(fd);
        }
    }

    /** Modifiers adjust the entry just encoded; an encoder runs once per nextSqe(). */
    @Test
    void modifiersAndEncodersNeedTheirEntry() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            Sqe s = ring.nextSqe();
            assertThrows(IllegalStateException.class, () -> s.userData(1), "nothing encoded yet");
            s.nop().userData(1);
            assertThrows(IllegalStateException.class, s::nop, "one encoder per nextSqe()");
            assertThrows(IllegalArgumentException.class, () -> s.flags(1 /* IOSQE_FIXED_FILE */));
            assertEquals(0, ring.sqPending(), "a refused modifier gives the entry back");
            ring.nextSqe().nop().userData(2);
            assertEquals(2L, one(ring).userData());
            assertThrows(IllegalStateException.class, () -> s.userData(3), "submitted: the entry is the kernel's");
        }
    }

    /**
     * A ring is not handed to a thread that has ended, nor its completions bound to one (nothing but close() could
     * use it after that); it stays with its owner, which goes on using it.
     */
    @Test
    void aRingIsNotHandedToAThreadThatHasEnded() throws Exception {
        Thread ended = Thread.ofPlatform().start(() -> { });
        ended.join();
        try (IoUring ring = IoUring.open(8)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ring.handOff(ended));
            assertTrue(e.getMessage().contains("ended"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ring.bindCompletionsTo(ended));
            assertThrows(NullPointerException.class, () -> ring.handOff(null));
            ring.nextSqe().nop().userData(5);
            assertEquals(5L, one(ring).userData());
        }
    }

    /** A ring opened on a thread that has ended can be closed from another thread. */
    @Test
    @SuppressWarnings("try") // closing a ring explicitly inside its try block, from another thread, is what is tested
    void aRingWhoseOwnerEndedCanBeClosed() throws Exception {
        long before = Rings.countFds("io_uring");
        AtomicReference<IoUring> made = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                made.set(IoUring.open(8));
            } catch (UringException e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        t.join();
        IoUring ring = made.get();
        assertEquals(before + 1, Rings.countFds("io_uring"));
        ring.close();
        assertFalse(ring.isOpen());
        assertEquals(before, Rings.countFds("io_uring"));
        // While the owner lives, another thread still may not.
        try (IoUring mine = IoUring.open(8)) {
            AtomicReference<Throwable> seen = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    mine.close();
                } catch (Throwable e) {
                    seen.set(e);
                }
            });
            other.start();
            other.join();
            assertTrue(seen.get() instanceof WrongThreadException, String.valueOf(seen.get()));
            assertTrue(mine.isOpen());
        }
    }

    /** Rings dropped without close() give their descriptors and mappings back once unreachable. */
    @Test
    void unreachableRingsAreReleased() throws Exception {
        long fds = Rings.countFds("io_uring");
        long maps = Rings.countMaps("io_uring");
        java.util.List<IoUring> held = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            held.add(IoUring.open(8));
        }
        // held while counted: a collection during the loop released some before the count (after another test's GCs)
        assertTrue(Rings.countFds("io_uring") >= fds + 200);
        held.clear(); // dropped
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Rings.countFds("io_uring") > fds && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(fds, Rings.countFds("io_uring"), "descriptors of unreachable rings");
        assertEquals(maps, Rings.countMaps("io_uring"), "mappings of unreachable rings");
    }

    @Test
    void badOptionsAreRefused() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> IoUring.options().sqThreadCpu(-5));
        assertThrows(IllegalArgumentException.class, () -> IoUring.options().sqPoll(-1));
        IoUring closed = IoUring.open(8);
        closed.close();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> IoUring.options().attachWq(closed));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        try (IoUring ring = IoUring.open(8)) {
            // the kernel reads the count as unsigned and said EMFILE
            for (int bad : new int[] {-1, 0}) {
                IllegalArgumentException sparse = assertThrows(IllegalArgumentException.class,
                        () -> ring.registerFilesSparse(bad));
                assertTrue(sparse.getMessage().contains("at least one slot"), sparse.getMessage());
            }
            ring.registerFilesSparse(2);
            // a handler closing its ring: refused with the reason (reap read the freed queue: "Already closed")
            ring.nextSqe().nop().userData(1);
            ring.submitAndWait(1);
            IllegalStateException inReap = assertThrows(IllegalStateException.class,
                    () -> ring.reap((ud, res, flags) -> ring.close()));
            assertTrue(inReap.getMessage().contains("inside a CqeHandler"), inReap.getMessage());
            ring.nextSqe().nop().userData(2);
            assertEquals(1, ring.submitAndWait(1));
        }
    }

    /**
     * Memory a ring keeps the address of, freed before the entry that uses it: an iovec entry set from a segment whose
     * arena closed since (a {@code readv} of {@code /dev/urandom} into such buffers aborted the JVM in {@code malloc}),
     * and a registered buffer whose arena closed (a fixed read into a new arena at the same address went into the old
     * pinned pages: a silent read of nothing). Both refused; a fixed range whose end overflows is refused too.
     */
    @Test
    void memoryFreedAfterItWasGivenToTheRingIsRefused() throws Exception {
        Path p = dir.resolve("freed");
        Files.write(p, new byte[8192]);
        int fd = Rings.open(p, OpenFlag.RDONLY | OpenFlag.CLOEXEC, 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            FileTarget t = FileTarget.fd(fd);
            IoVecArray iov = IoVecArray.allocate(arena, 2);
            iov.set(0, arena.allocate(4096));
            Arena gone = Arena.ofShared();
            iov.set(1, gone.allocate(4096));
            gone.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ring.nextSqe().readv(t, iov, 2, 0));
            assertTrue(e.getMessage().contains("iovec buffer 1"), e.getMessage());
            assertEquals(0, ring.sqPending());
            ring.nextSqe().readv(t, iov, 1, 0).userData(1); // the live first entry alone is fine
            assertEquals(4096, one(ring).res());

            Arena registeredArena = Arena.ofShared();
            MemorySegment registered = registeredArena.allocate(4096, 4096);
            ring.registerBuffers(registered);
            long address = registered.address();
            registeredArena.close();
            IllegalStateException stale = assertThrows(IllegalStateException.class,
                    () -> ring.nextSqe().readFixed(t, address, 4096, 0, 0));
            assertTrue(stale.getMessage().contains("closed arena"), stale.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().readFixed(t, Long.MAX_VALUE - 10, 4096, 0, 0));
            assertEquals(0, ring.sqPending());
            ring.unregisterBuffers();
        } finally {
            Rings.close(fd);
        }
    }

    /**
     * An {@code Sqe} is its ring owner's: another thread's encoder or modifier is refused (it claimed the entry with an
     * unsynchronised tail); a timespec shorter than the kernel's 16 bytes is refused (the kernel read past it).
     */
    @Test
    void entriesAreTheOwnersAndTimespecsWhole() throws Exception {
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            Sqe s = ring.nextSqe();
            AtomicReference<Throwable> other = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    s.nop();
                } catch (Throwable e) {
                    other.set(e);
                }
            });
            t.join();
            assertTrue(other.get() instanceof WrongThreadException, String.valueOf(other.get()));
            assertEquals(0, ring.sqPending());
            IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().timeout(arena.allocate(4), 0, 0));
            assertTrue(small.getMessage().contains("16"), small.getMessage());
            assertEquals(0, ring.sqPending());
        }
    }

    /**
     * A registered ring descriptor is an index in the registering thread's table of 16: closing the ring gives it back
     * (the 17th ring of a thread said EBUSY), and handing the ring to another thread enters by descriptor again (the
     * new owner entered with the old owner's index: EINVAL, or another ring's entries).
     */
    @Test
    void registeredRingDescriptorsAreGivenBack() throws Exception {
        for (int i = 0; i < 40; i++) {
            try (IoUring ring = IoUring.open(4)) {
                ring.registerRingFd();
                ring.nextSqe().nop().userData(i);
                assertEquals(i, one(ring).userData());
            }
        }
        IoUring ring = IoUring.open(4);
        ring.registerRingFd();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = Thread.ofPlatform().unstarted(() -> {
            try {
                ring.nextSqe().nop().userData(77);
                result.set(one(ring).userData());
                ring.close();
            } catch (Throwable e) {
                result.set(e);
            }
        });
        ring.handOff(t);
        t.start();
        t.join();
        assertEquals(77L, result.get());
    }
}
