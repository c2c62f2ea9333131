package io.github.uring4j.ring;

import static io.github.uring4j.ring.Rings.bytes;
import static io.github.uring4j.ring.Rings.one;
import static io.github.uring4j.ring.Rings.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Setup flags reach the kernel as given; features, probe and every registration call work. */
class SetupAndRegistrationTest {
    @TempDir
    Path dir;

    private static void nopRoundTrip(IoUring ring) throws Exception {
        ring.nextSqe().nop().userData(7);
        assertEquals(1, ring.submitAndWait(1));
        Rings.Cqe c = one(ring);
        assertEquals(7, c.userData());
        assertEquals(0, c.res());
    }

    @Test
    void featuresAndProbeComeFromTheKernel() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            int f = ring.features();
            assertTrue((f & Feature.SINGLE_MMAP) != 0);
            assertTrue((f & Feature.NODROP) != 0);
            assertTrue((f & Feature.EXT_ARG) != 0);
            Probe p = ring.probe();
            assertTrue(p.known());
            for (int op : new int[] {Opcode.NOP, Opcode.READ, Opcode.WRITE, Opcode.OPENAT, Opcode.CLOSE, Opcode.STATX, Opcode.MSG_RING}) {
                assertTrue(p.supports(op), Opcode.name(op));
            }
            assertTrue(p.lastOp() >= Opcode.MSG_RING);
            assertTrue(!p.supports(250), "an opcode the kernel does not have");
            assertEquals(8, ring.sqEntries());
            assertEquals(16, ring.cqEntries());
        }
    }

    @Test
    void eachSetupFlagWorksAsGiven() throws Exception {
        int[] flagSets = {
            SetupFlag.SINGLE_ISSUER,
            SetupFlag.SINGLE_ISSUER | SetupFlag.DEFER_TASKRUN,
            SetupFlag.COOP_TASKRUN,
            SetupFlag.COOP_TASKRUN | SetupFlag.TASKRUN_FLAG,
            SetupFlag.SUBMIT_ALL,
            SetupFlag.NO_SQARRAY,
            SetupFlag.SQE128,
            SetupFlag.CQE32,
        };
        for (int flags : flagSets) {
            try (IoUring ring = IoUring.open(IoUring.options().entries(16).flags(flags))) {
                assertEquals(flags, ring.setupFlags());
                nopRoundTrip(ring);
            }
        }
    }

    @Test
    void sqpollSubmitsWithoutEnteringTheKernel() throws Exception {
        try (IoUring ring = IoUring.open(IoUring.options().entries(16).sqPoll(50))) {
            assertTrue((ring.setupFlags() & SetupFlag.SQPOLL) != 0);
            for (int i = 0; i < 100; i++) {
                nopRoundTrip(ring);
            }
            Thread.sleep(120); // let the poller go idle: the next submit must wake it
            assertTrue((ring.sqFlags() & Uapi.IORING_SQ_NEED_WAKEUP) != 0, "idle SQPOLL thread asks for a wakeup");
            nopRoundTrip(ring);
        }
    }

    @Test
    void sqpollThreadPinnedToACpu() throws Exception {
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).sqPoll(10).sqThreadCpu(0))) {
            assertTrue((ring.setupFlags() & SetupFlag.SQ_AFF) != 0);
            nopRoundTrip(ring);
        }
        UringException e = assertThrows(UringException.class,
                () -> IoUring.open(IoUring.options().entries(8).sqPoll(10).sqThreadCpu(4096)));
        assertEquals(Errno.EINVAL, e.errno(), "a CPU that does not exist");
    }

    @Test
    void cqSizeAndClamp() throws Exception {
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).cqEntries(100))) {
            assertEquals(128, ring.cqEntries());
        }
        UringException e = assertThrows(UringException.class, () -> IoUring.open(IoUring.options().entries(1 << 20)));
        assertEquals(Errno.EINVAL, e.errno());
        try (IoUring ring = IoUring.open(IoUring.options().entries(1 << 20).flags(SetupFlag.CLAMP))) {
            assertEquals(32768, ring.sqEntries());
        }
    }

    @Test
    void attachWqSharesTheWorkerPool() throws Exception {
        try (IoUring first = IoUring.open(8);
                IoUring second = IoUring.open(IoUring.options().entries(8).attachWq(first))) {
            assertTrue((second.setupFlags() & SetupFlag.ATTACH_WQ) != 0);
            nopRoundTrip(second);
        }
    }

    @Test
    void aFlagTheKernelRejectsIsRejectedNotDropped() {
        // DEFER_TASKRUN is only valid with SINGLE_ISSUER: the kernel says no, and so do we. (Bits the library does not
        // know are refused before the kernel is asked: RingArgumentsTest.)
        UringException e = assertThrows(UringException.class,
                () -> IoUring.open(IoUring.options().entries(8).flags(SetupFlag.DEFER_TASKRUN)));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("flags=0x2000"), e.getMessage());
    }

    @Test
    void iopollReadsFailCleanlyWithoutPollQueues() throws Exception {
        Path f = dir.resolve("direct");
        byte[] data = pattern(8192, 3);
        Files.write(f, data);
        int fd = Rings.open(f, Uapi.O_RDONLY | Uapi.O_DIRECT | Uapi.O_CLOEXEC, 0);
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).flags(SetupFlag.IOPOLL));
                Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4096, 4096);
            ring.nextSqe().read(FileTarget.fd(fd), buf, 4096).userData(1);
            Rings.Cqe c = one(ring);
            if (c.res() == 4096) {
                // A device with poll queues: the polled data path works.
                assertArrayEquals(java.util.Arrays.copyOfRange(data, 4096, 8192), bytes(buf));
            } else {
                assertEquals(-Errno.EOPNOTSUPP, c.res(), "IOPOLL on a device without poll queues");
            }
        } finally {
            Rings.close(fd);
        }
    }

    @Test
    void registeredFilesDenseAndUpdated() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.write(a, pattern(4096, 1));
        Files.write(b, pattern(4096, 2));
        int fa = Rings.open(a, Uapi.O_RDONLY | Uapi.O_CLOEXEC, 0);
        int fb = Rings.open(b, Uapi.O_RDONLY | Uapi.O_CLOEXEC, 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            ring.registerFiles(fa, -1);
            MemorySegment buf = arena.allocate(4096);
            ring.nextSqe().read(FileTarget.fixed(0), buf, 0).userData(1);
            assertEquals(4096, one(ring).res());
            assertArrayEquals(pattern(4096, 1), bytes(buf));
            ring.nextSqe().read(FileTarget.fixed(1), buf, 0).userData(2);
            assertEquals(-Errno.EBADF, one(ring).res(), "empty slot");
            assertEquals(1, ring.updateFiles(1, fb));
            ring.nextSqe().read(FileTarget.fixed(1), buf, 0).userData(3);
            assertEquals(4096, one(ring).res());
            assertArrayEquals(pattern(4096, 2), bytes(buf));
            assertEquals(1, ring.updateFiles(0, fb));
            ring.nextSqe().read(FileTarget.fixed(0), buf, 0).userData(4);
            assertEquals(4096, one(ring).res());
            assertArrayEquals(pattern(4096, 2), bytes(buf), "slot 0 now holds b");
            ring.unregisterFiles();
            ring.nextSqe().read(FileTarget.fixed(0), buf, 0).userData(5);
            assertEquals(-Errno.EBADF, one(ring).res());
            UringException e = assertThrows(UringException.class, ring::unregisterFiles);
            assertEquals(Errno.ENXIO, e.errno());
        } finally {
            Rings.close(fa);
            Rings.close(fb);
        }
    }

    @Test
    void eventFdIsSignalledOnCompletion() throws Exception {
        Syscalls sys = Syscalls.system();
        int efd = sys.eventfd(0, Uapi.EFD_CLOEXEC | Uapi.EFD_NONBLOCK);
        assertTrue(efd >= 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            ring.registerEventFd(efd);
            MemorySegment counter = arena.allocate(8);
            ring.nextSqe().nop().userData(1);
            one(ring);
            assertEquals(8, sys.read(efd, counter, 8));
            assertTrue(counter.get(ValueLayout.JAVA_LONG, 0) >= 1);
            ring.unregisterEventFd();
            ring.nextSqe().nop().userData(2);
            one(ring);
            assertEquals(-Errno.EAGAIN, sys.read(efd, counter, 8), "no signal after unregistering");
        } finally {
            sys.close(efd);
        }
    }

    @Test
    void registeredRingFdAndWorkerLimits() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            int idx = ring.registerRingFd();
            assertTrue(idx >= 0);
            assertEquals(idx, ring.registerRingFd(), "registered once");
            for (int i = 0; i < 10; i++) {
                nopRoundTrip(ring);
            }
            int[] before = ring.setIoWqMaxWorkers(3, 5);
            assertEquals(2, before.length);
            int[] now = ring.setIoWqMaxWorkers(0, 0);
            assertEquals(3, now[0]);
            assertEquals(5, now[1]);
        }
    }

    @Test
    void registeringAHeapBufferIsRefused() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertThrows(IllegalArgumentException.class, () -> ring.registerBuffers(MemorySegment.ofArray(new byte[64])));
            assertNotEquals(0, ring.fd());
        }
    }

    /**
     * A sparse buffer table takes sets of buffers into ranges and empties them independently; a write into an empty
     * slot is refused before submission, and an update outside the table or with a heap buffer is refused with the
     * reason, the table unchanged.
     */
    @Test
    void sparseBufferTableFilledAndEmptiedByRange() throws Exception {
        Path f = dir.resolve("sparse");
        Files.write(f, pattern(8192, 4));
        int fd = Rings.open(f, Uapi.O_RDONLY | Uapi.O_CLOEXEC, 0);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class, () -> ring.registerBuffersSparse(0));
            UringException tooMany = assertThrows(UringException.class, () -> ring.registerBuffersSparse(1 << 20));
            assertEquals(Errno.EINVAL, tooMany.errno(), "the kernel's table holds 16384 at most");
            ring.registerBuffersSparse(16);
            MemorySegment a = arena.allocate(4096, 4096);
            MemorySegment b = arena.allocate(8192, 4096);
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().readFixed(FileTarget.fd(fd), a, 0, 3),
                    "slot 3 is empty");
            ring.updateBuffers(3, a);
            ring.updateBuffers(10, b.asSlice(0, 4096), b.asSlice(4096, 4096));
            ring.nextSqe().readFixed(FileTarget.fd(fd), a, 4096, 3).userData(1);
            assertEquals(4096, one(ring).res());
            assertArrayEquals(java.util.Arrays.copyOfRange(pattern(8192, 4), 4096, 8192), bytes(a));
            ring.nextSqe().readFixed(FileTarget.fd(fd), b.asSlice(4096, 4096), 0, 11).userData(2);
            assertEquals(4096, one(ring).res());
            assertArrayEquals(java.util.Arrays.copyOfRange(pattern(8192, 4), 0, 4096), bytes(b.asSlice(4096, 4096)));

            ring.updateBuffers(3, MemorySegment.NULL);
            IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                    () -> ring.nextSqe().readFixed(FileTarget.fd(fd), a, 0, 3));
            assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
            assertEquals(0, ring.sqPending());
            ring.nextSqe().readFixed(FileTarget.fd(fd), b.asSlice(0, 4096), 0, 10).userData(3);
            assertEquals(4096, one(ring).res(), "the other range is untouched");

            assertThrows(IllegalArgumentException.class, () -> ring.updateBuffers(15, a, a), "past the table");
            assertThrows(IllegalArgumentException.class, () -> ring.updateBuffers(-1, a));
            assertThrows(IllegalArgumentException.class,
                    () -> ring.updateBuffers(0, MemorySegment.ofArray(new byte[4096])));
            MemorySegment gone;
            try (Arena closed = Arena.ofConfined()) {
                gone = closed.allocate(4096, 4096);
            }
            MemorySegment freed = gone;
            assertThrows(IllegalStateException.class, () -> ring.updateBuffers(0, freed), "a closed arena's memory");
            Throwable[] other = new Throwable[1];
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    ring.updateBuffers(0, a);
                } catch (Throwable e) {
                    other[0] = e;
                }
            });
            t.join();
            assertTrue(other[0] instanceof WrongThreadException, String.valueOf(other[0]));
            ring.nextSqe().readFixed(FileTarget.fd(fd), b.asSlice(4096, 4096), 0, 11).userData(4);
            assertEquals(4096, one(ring).res(), "refused updates changed nothing");
            ring.unregisterBuffers();
            assertThrows(IllegalStateException.class, () -> ring.updateBuffers(0, a), "no table any more");
        } finally {
            Rings.close(fd);
        }
    }
}
