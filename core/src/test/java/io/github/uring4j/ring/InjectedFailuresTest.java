package io.github.uring4j.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.ForwardingSyscalls;
import io.github.uring4j.linux.IoUringProbe;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/reliability.md cases 17, 21 and 23, with the kernel's answer replaced through the {@code Syscalls} seam. */
class InjectedFailuresTest {

    /** Case 17: EINTR before anything was submitted is retried, and nothing is submitted twice. */
    @Test
    void case17_eintrIsRetriedWithoutResubmitting() throws Exception {
        List<Integer> toSubmitSeen = new ArrayList<>();
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            int calls;

            @Override
            public int ioUringEnter(int fd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
                toSubmitSeen.add(toSubmit);
                if (calls++ == 0) {
                    return -Errno.EINTR; // interrupted before the kernel took anything
                }
                return super.ioUringEnter(fd, toSubmit, minComplete, flags, arg, argSize);
            }
        };
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).syscalls(sys))) {
            for (int i = 0; i < 4; i++) {
                ring.nextSqe().nop().userData(i);
            }
            assertEquals(4, ring.submitAndWait(4));
            assertEquals(List.of(4, 4), toSubmitSeen, "the retry submits the same four entries once");
            BitSet seen = new BitSet();
            assertEquals(4, ring.reap((ud, res, fl) -> {
                assertFalse(seen.get((int) ud));
                seen.set((int) ud);
            }));
            assertEquals(4, seen.cardinality());
        }
    }

    /** Case 17, the other order: the kernel took the entries, then the wait was interrupted. */
    @Test
    void case17_eintrAfterSubmissionDoesNotSubmitAgain() throws Exception {
        List<Integer> toSubmitSeen = new ArrayList<>();
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            boolean interrupted;

            @Override
            public int ioUringEnter(int fd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
                toSubmitSeen.add(toSubmit);
                int r = super.ioUringEnter(fd, toSubmit, 0, flags, arg, argSize);
                if (!interrupted && r > 0) {
                    interrupted = true;
                    return -Errno.EINTR;
                }
                return minComplete > 0 ? super.ioUringEnter(fd, 0, minComplete, flags, arg, argSize) : r;
            }
        };
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).syscalls(sys))) {
            for (int i = 0; i < 3; i++) {
                ring.nextSqe().nop().userData(i);
            }
            ring.submitAndWait(3);
            assertEquals(3, toSubmitSeen.get(0));
            assertEquals(0, toSubmitSeen.get(1), "after EINTR nothing is pending, so nothing is resubmitted");
            BitSet seen = new BitSet();
            int[] n = {0};
            while (n[0] < 3) {
                ring.reap((ud, res, fl) -> {
                    assertFalse(seen.get((int) ud), "user_data " + ud + " twice");
                    seen.set((int) ud);
                    n[0]++;
                });
            }
            assertEquals(0, ring.cqReady());
        }
    }

    private static ForwardingSyscalls setupFails(int errno) {
        return new ForwardingSyscalls() {
            @Override
            public int ioUringSetup(int entries, MemorySegment params) {
                return -errno;
            }
        };
    }

    /** Case 21: setup refused by seccomp (EPERM) or missing (ENOSYS): a message naming the cause and the fix. */
    @Test
    void case21_setupFailuresExplainCauseAndFix() {
        UringUnavailableException eperm = assertThrows(UringUnavailableException.class,
                () -> IoUring.open(IoUring.options().syscalls(setupFails(Errno.EPERM))));
        assertEquals(Errno.EPERM, eperm.errno());
        assertTrue(eperm.getMessage().contains("EPERM"), eperm.getMessage());
        assertTrue(eperm.getMessage().contains("seccomp") || eperm.getMessage().contains("io_uring_disabled"),
                eperm.getMessage());
        assertTrue(eperm.getMessage().contains("backend=threads"), eperm.getMessage());

        UringUnavailableException enosys = assertThrows(UringUnavailableException.class,
                () -> IoUring.open(IoUring.options().syscalls(setupFails(Errno.ENOSYS))));
        assertTrue(enosys.getMessage().contains("ENOSYS") && enosys.getMessage().contains("5.6"), enosys.getMessage());

        UringUnavailableException enomem = assertThrows(UringUnavailableException.class,
                () -> IoUring.open(IoUring.options().syscalls(setupFails(Errno.ENOMEM))));
        assertTrue(enomem.getMessage().contains("ulimit -l"), enomem.getMessage());

        UringException einval = assertThrows(UringException.class,
                () -> IoUring.open(IoUring.options().syscalls(setupFails(Errno.EINVAL))));
        assertFalse(einval instanceof UringUnavailableException, "EINVAL is a bad argument, not 'unavailable'");
        assertTrue(UringUnavailableException.isUnavailable(-Errno.EPERM));
    }

    /** A failed mmap after a good setup closes the ring fd and says why. */
    @Test
    void mmapFailureClosesTheRingFd() throws Exception {
        long before = Rings.countFds("io_uring");
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
                return offset == 0x10000000L ? -Errno.ENOMEM : super.mmap(addr, length, prot, flags, fd, offset);
            }
        };
        UringException e = assertThrows(UringException.class, () -> IoUring.open(IoUring.options().syscalls(sys)));
        assertTrue(e.getMessage().contains("ENOMEM") && e.getMessage().contains("SQE"), e.getMessage());
        assertEquals(before, Rings.countFds("io_uring"));
    }

    /** Case 23: an opcode missing from the probe is refused when encoded, naming the opcode. */
    @Test
    void case23_opcodeMissingFromTheProbe() throws Exception {
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public int ioUringRegister(int fd, int opcode, MemorySegment arg, int nrArgs) {
                int r = super.ioUringRegister(fd, opcode, arg, nrArgs);
                if (opcode == Uapi.IORING_REGISTER_PROBE && r >= 0) {
                    // Pretend this kernel lacks OPENAT and FTRUNCATE.
                    for (int op : new int[] {Uapi.IORING_OP_OPENAT, Uapi.IORING_OP_FTRUNCATE}) {
                        long base = IoUringProbe.OPS + op * IoUringProbe.OP_LAYOUT.byteSize();
                        arg.set(ValueLayout.JAVA_SHORT, base + IoUringProbe.OP_FLAGS, (short) 0);
                    }
                }
                return r;
            }
        };
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).syscalls(sys)); Arena arena = Arena.ofConfined()) {
            assertFalse(ring.probe().supports(Opcode.OPENAT));
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> ring.nextSqe().openat(-100, arena.allocateFrom("/"), 0, 0));
            assertTrue(e.getMessage().contains("IORING_OP_OPENAT"), e.getMessage());
            e = assertThrows(UnsupportedOperationException.class,
                    () -> ring.nextSqe().ftruncate(FileTarget.fd(0), 0));
            assertTrue(e.getMessage().contains("IORING_OP_FTRUNCATE"), e.getMessage());
            ring.nextSqe().nop().userData(1);
            assertEquals(1, Rings.one(ring).userData(), "other opcodes still work");
        }
    }

    /** A kernel that cannot be probed (before 5.6) is taken to support everything: the kernel then decides. */
    @Test
    void unprobeableKernelLetsTheKernelDecide() throws Exception {
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public int ioUringRegister(int fd, int opcode, MemorySegment arg, int nrArgs) {
                return opcode == Uapi.IORING_REGISTER_PROBE ? -Errno.EINVAL : super.ioUringRegister(fd, opcode, arg, nrArgs);
            }
        };
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).syscalls(sys))) {
            assertFalse(ring.probe().known());
            assertTrue(ring.probe().supports(Opcode.OPENAT));
            ring.nextSqe().nop().userData(2);
            assertEquals(2, Rings.one(ring).userData());
        }
    }

    /** Any other enter failure is an exception with the errno name and the call. */
    @Test
    void enterFailureCarriesErrnoAndCall() throws Exception {
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public int ioUringEnter(int fd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
                return -Errno.EBADF;
            }
        };
        try (IoUring ring = IoUring.open(IoUring.options().entries(8).syscalls(sys))) {
            ring.nextSqe().nop();
            UringException e = assertThrows(UringException.class, ring::submit);
            assertEquals(Errno.EBADF, e.errno());
            assertEquals("EBADF", e.errnoName());
            assertEquals("EBADF during io_uring_enter", e.getMessage());
        }
    }
}
