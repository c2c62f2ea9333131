package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.IoUringParams;
import io.github.uring4j.linux.IoUringProbe;
import io.github.uring4j.linux.IoUringRsrc;
import io.github.uring4j.linux.KernelTimespec;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A ring's memory: {@code io_uring_setup}, the three mappings (one with {@code IORING_FEAT_SINGLE_MMAP}), the
 * offsets the kernel reported into them, and what must be released, once, with the lengths it was mapped with.
 */
final class RingMemory {
    private static final long OFF_SQ_RING = 0L;
    private static final long OFF_CQ_RING = 0x8000000L;
    private static final long OFF_SQES = 0x10000000L;

    final Syscalls sys;
    final Arena arena;
    final int ringFd;
    final int flags;
    final int features;
    final int sqEntries;
    final int cqEntries;

    // The mappings, released with the lengths they were made with.
    final long sqRingAddr;
    final long sqRingLen;
    final long cqRingAddr;
    final long cqRingLen;
    final long sqesAddr;
    final long sqesLen;

    final MemorySegment sqRing;
    final MemorySegment cqRing;
    final MemorySegment sqes;

    final long sqHead;
    final long sqTail;
    final long sqFlags;
    final long sqDropped;
    final int sqMask;
    final long cqHead;
    final long cqTail;
    final long cqOverflow;
    final long cqFlags;
    final long cqes;
    final int cqMask;
    final int sqeShift;
    final int cqeShift;

    /** Scratch for timed waits; confined use by the owner. */
    final MemorySegment waitArg;
    final MemorySegment waitTs;
    final Probe probe;
    final Release release;

    RingMemory(IoUring.Options o) throws UringException {
        this.sys = o.syscalls;
        Arena a = Arena.ofShared();
        long sqMap = 0;
        long cqMap = 0;
        long sqeMap = 0;
        long sqLen = 0;
        long cqLen = 0;
        long sqeLen = 0;
        int fd = -1;
        boolean ok = false;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment p = tmp.allocate(IoUringParams.LAYOUT);
            int setupFlags = o.flags;
            if (o.cqEntries > 0) {
                setupFlags |= Uapi.IORING_SETUP_CQSIZE;
                p.set(JAVA_INT, IoUringParams.CQ_ENTRIES, o.cqEntries);
            }
            if (o.sqThreadCpu >= 0) {
                setupFlags |= Uapi.IORING_SETUP_SQ_AFF;
                p.set(JAVA_INT, IoUringParams.SQ_THREAD_CPU, o.sqThreadCpu);
            }
            if (o.attachWqFd >= 0) {
                setupFlags |= Uapi.IORING_SETUP_ATTACH_WQ;
                p.set(JAVA_INT, IoUringParams.WQ_FD, o.attachWqFd);
            }
            p.set(JAVA_INT, IoUringParams.SQ_THREAD_IDLE, o.sqThreadIdleMillis);
            p.set(JAVA_INT, IoUringParams.FLAGS, setupFlags);
            fd = sys.ioUringSetup(o.entries, p);
            if (fd < 0) {
                if (UringUnavailableException.isUnavailable(fd)) {
                    throw new UringUnavailableException(-fd);
                }
                throw new UringException("io_uring_setup", -fd, Errno.name(-fd) + " during io_uring_setup(entries="
                        + o.entries + ", flags=0x" + Integer.toHexString(setupFlags) + ")"
                        + (fd == -Errno.EINVAL ? ": the kernel rejects these flags or sizes"
                        : fd == -Errno.EMFILE ? ": the process has as many open descriptors as its limit allows"
                                + " (ulimit -n), and a ring is one more"
                        : fd == -Errno.ENFILE ? ": the system's table of open files is full" : ""));
            }
            this.ringFd = fd;
            this.flags = setupFlags;
            this.features = p.get(JAVA_INT, IoUringParams.FEATURES);
            this.sqEntries = p.get(JAVA_INT, IoUringParams.SQ_ENTRIES);
            this.cqEntries = p.get(JAVA_INT, IoUringParams.CQ_ENTRIES);
            this.sqeShift = (setupFlags & Uapi.IORING_SETUP_SQE128) != 0 ? 7 : 6;
            this.cqeShift = (setupFlags & Uapi.IORING_SETUP_CQE32) != 0 ? 5 : 4;

            int sqArrayOff = p.get(JAVA_INT, IoUringParams.SQ_OFF_ARRAY);
            boolean noSqArray = (setupFlags & Uapi.IORING_SETUP_NO_SQARRAY) != 0;
            sqLen = noSqArray ? p.get(JAVA_INT, IoUringParams.SQ_OFF_FLAGS) + 4L
                    : sqArrayOff + (long) sqEntries * Integer.BYTES;
            cqLen = p.get(JAVA_INT, IoUringParams.CQ_OFF_CQES) + ((long) cqEntries << cqeShift);
            boolean single = (features & Uapi.IORING_FEAT_SINGLE_MMAP) != 0;
            if (single) {
                sqLen = Math.max(sqLen, cqLen);
                cqLen = sqLen;
            }
            int prot = Uapi.PROT_READ | Uapi.PROT_WRITE;
            int mapFlags = Uapi.MAP_SHARED | Uapi.MAP_POPULATE;
            sqMap = sys.mmap(0, sqLen, prot, mapFlags, fd, OFF_SQ_RING);
            if (sqMap < 0 && sqMap > -4096) {
                long e = -sqMap;
                sqMap = 0;
                throw mmapFailure("SQ ring", (int) e);
            }
            if (single) {
                cqMap = sqMap;
            } else {
                cqMap = sys.mmap(0, cqLen, prot, mapFlags, fd, OFF_CQ_RING);
                if (cqMap < 0 && cqMap > -4096) {
                    long e = -cqMap;
                    cqMap = 0;
                    throw mmapFailure("CQ ring", (int) e);
                }
            }
            sqeLen = (long) sqEntries << sqeShift;
            sqeMap = sys.mmap(0, sqeLen, prot, mapFlags, fd, OFF_SQES);
            if (sqeMap < 0 && sqeMap > -4096) {
                long e = -sqeMap;
                sqeMap = 0;
                throw mmapFailure("SQE array", (int) e);
            }
            this.sqRingAddr = sqMap;
            this.sqRingLen = sqLen;
            this.cqRingAddr = cqMap;
            this.cqRingLen = cqLen;
            this.sqesAddr = sqeMap;
            this.sqesLen = sqeLen;
            this.arena = a;
            this.sqRing = MemorySegment.ofAddress(sqMap).reinterpret(sqLen, a, null);
            this.cqRing = single ? sqRing : MemorySegment.ofAddress(cqMap).reinterpret(cqLen, a, null);
            this.sqes = MemorySegment.ofAddress(sqeMap).reinterpret(sqeLen, a, null);

            this.sqHead = p.get(JAVA_INT, IoUringParams.SQ_OFF_HEAD);
            this.sqTail = p.get(JAVA_INT, IoUringParams.SQ_OFF_TAIL);
            this.sqFlags = p.get(JAVA_INT, IoUringParams.SQ_OFF_FLAGS);
            this.sqDropped = p.get(JAVA_INT, IoUringParams.SQ_OFF_DROPPED);
            this.sqMask = sqRing.get(JAVA_INT, p.get(JAVA_INT, IoUringParams.SQ_OFF_RING_MASK));
            this.cqHead = p.get(JAVA_INT, IoUringParams.CQ_OFF_HEAD);
            this.cqTail = p.get(JAVA_INT, IoUringParams.CQ_OFF_TAIL);
            this.cqOverflow = p.get(JAVA_INT, IoUringParams.CQ_OFF_OVERFLOW);
            this.cqFlags = p.get(JAVA_INT, IoUringParams.CQ_OFF_FLAGS);
            this.cqes = p.get(JAVA_INT, IoUringParams.CQ_OFF_CQES);
            this.cqMask = cqRing.get(JAVA_INT, p.get(JAVA_INT, IoUringParams.CQ_OFF_RING_MASK));

            if (!noSqArray) {
                // Identity indirection, written once: SQE i always sits at array slot i, so a submit only moves the tail.
                for (int i = 0; i < sqEntries; i++) {
                    sqRing.set(JAVA_INT, sqArrayOff + (long) i * Integer.BYTES, i);
                }
            }
            this.waitArg = a.allocate(IoUringRsrc.GETEVENTS_ARG);
            this.waitTs = a.allocate(KernelTimespec.LAYOUT);
            this.probe = loadProbe(sys, fd);
            this.release = new Release(sys, a, fd, sqMap, sqLen, cqMap, cqLen, sqeMap, sqeLen);
            ok = true;
        } finally {
            if (!ok) {
                if (sqeMap != 0) {
                    sys.munmap(sqeMap, sqeLen);
                }
                if (cqMap != 0 && cqMap != sqMap) {
                    sys.munmap(cqMap, cqLen);
                }
                if (sqMap != 0) {
                    sys.munmap(sqMap, sqLen);
                }
                if (fd >= 0) {
                    sys.close(fd);
                }
                a.close();
            }
        }
    }

    private static UringException mmapFailure(String what, int errno) {
        String msg = Errno.name(errno) + " during mmap of the io_uring " + what;
        if (errno == Errno.ENOMEM) {
            msg += ": locked-memory limit (ulimit -l) is " + UringUnavailableException.memlock();
        }
        return new UringException("mmap", errno, msg);
    }

    private static Probe loadProbe(Syscalls sys, int fd) {
        int ops = 256;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment p = tmp.allocate(IoUringProbe.sizeFor(ops), 8);
            int r = sys.ioUringRegister(fd, Uapi.IORING_REGISTER_PROBE, p, ops);
            if (r < 0) {
                return new Probe(-1, new boolean[0], false);
            }
            int last = Byte.toUnsignedInt(p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, IoUringProbe.LAST_OP));
            int len = Byte.toUnsignedInt(p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, IoUringProbe.OPS_LEN));
            boolean[] table = new boolean[256];
            for (int i = 0; i < len; i++) {
                long base = IoUringProbe.OPS + i * IoUringProbe.OP_LAYOUT.byteSize();
                int op = Byte.toUnsignedInt(p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, base + IoUringProbe.OP_OP));
                short f = p.get(java.lang.foreign.ValueLayout.JAVA_SHORT, base + IoUringProbe.OP_FLAGS);
                table[op] = (f & IoUringProbe.OP_SUPPORTED) != 0;
            }
            return new Probe(last, table, true);
        }
    }


    /** What a ring holds of the system, released once: by {@code close()}, or by the cleaner when unreachable. */
    record Release(Syscalls sys, Arena arena, int fd, long sqMap, long sqLen, long cqMap, long cqLen,
            long sqeMap, long sqeLen) implements Runnable {
        @Override
        public void run() {
            arena.close();
            sys.munmap(sqeMap, sqeLen);
            if (cqMap != sqMap) {
                sys.munmap(cqMap, cqLen);
            }
            sys.munmap(sqMap, sqLen);
            sys.close(fd);
        }
    }
}
