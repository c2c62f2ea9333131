package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.IoUringRsrc;
import io.github.uring4j.linux.Iovec;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@code io_uring_register}: files, buffers, the eventfd, and the one retry/error path they share. Remembers the
 * registered buffers so the fixed-buffer encoders can check a transfer stays inside its buffer. Owner thread only
 * (each call checks it through the ring).
 */
final class Registrar {
    private final IoUring ring;
    private final Syscalls sys;
    private final int ringFd;
    /** Registered buffers as {base, length} pairs; null when none. */
    private long[] fixedBuffers;

    Registrar(IoUring ring, Syscalls sys, int ringFd) {
        this.ring = ring;
        this.sys = sys;
        this.ringFd = ringFd;
    }

    int register(String what, int opcode, MemorySegment arg, int nr) throws UringException {
        ring.checkOwner();
        while (true) {
            int r = sys.ioUringRegister(ringFd, opcode, arg, nr);
            if (r >= 0) {
                return r;
            }
            if (r == -Errno.EINTR) {
                continue;
            }
            String msg = Errno.name(-r) + " during " + what;
            if (r == -Errno.ENOMEM && opcode == Uapi.IORING_REGISTER_BUFFERS) {
                msg += ": registered buffers count against the locked-memory limit (ulimit -l), now "
                        + UringUnavailableException.memlock();
            }
            throw new UringException(what, -r, msg);
        }
    }

    void files(int... fds) throws UringException {
        try (Arena tmp = Arena.ofConfined()) {
            register("IORING_REGISTER_FILES", Uapi.IORING_REGISTER_FILES, tmp.allocateFrom(JAVA_INT, fds), fds.length);
        }
    }

    void filesSparse(int count) throws UringException {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment r = tmp.allocate(IoUringRsrc.RSRC_REGISTER);
            r.set(JAVA_INT, IoUringRsrc.RSRC_REGISTER_NR, count);
            r.set(JAVA_INT, IoUringRsrc.RSRC_REGISTER_FLAGS, IoUringRsrc.REGISTER_SPARSE);
            register("IORING_REGISTER_FILES2 (sparse)", Uapi.IORING_REGISTER_FILES2, r, (int) r.byteSize());
        }
    }

    int updateFiles(int offset, int... fds) throws UringException {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment arr = tmp.allocateFrom(JAVA_INT, fds);
            MemorySegment u = tmp.allocate(IoUringRsrc.FILES_UPDATE);
            u.set(JAVA_INT, IoUringRsrc.FILES_UPDATE_OFFSET, offset);
            u.set(JAVA_LONG, IoUringRsrc.FILES_UPDATE_FDS, arr.address());
            return register("IORING_REGISTER_FILES_UPDATE", Uapi.IORING_REGISTER_FILES_UPDATE, u, fds.length);
        }
    }

    void unregisterFiles() throws UringException {
        register("IORING_UNREGISTER_FILES", Uapi.IORING_UNREGISTER_FILES, MemorySegment.NULL, 0);
    }

    void buffers(MemorySegment... buffers) throws UringException {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment iov = tmp.allocate(Iovec.LAYOUT, buffers.length);
            for (int i = 0; i < buffers.length; i++) {
                if (!buffers[i].isNative()) {
                    throw new IllegalArgumentException("buffer " + i + " is on the heap; registered buffers must be native");
                }
                if (!buffers[i].scope().isAlive()) {
                    throw new IllegalStateException("buffer " + i + " belongs to a closed arena");
                }
                long base = i * Iovec.LAYOUT.byteSize();
                iov.set(JAVA_LONG, base + Iovec.BASE, buffers[i].address());
                iov.set(JAVA_LONG, base + Iovec.LEN, buffers[i].byteSize());
            }
            register("IORING_REGISTER_BUFFERS", Uapi.IORING_REGISTER_BUFFERS, iov, buffers.length);
            long[] ranges = new long[2 * buffers.length];
            for (int i = 0; i < buffers.length; i++) {
                ranges[2 * i] = buffers[i].address();
                ranges[2 * i + 1] = buffers[i].byteSize();
            }
            fixedBuffers = ranges;
        }
    }

    void unregisterBuffers() throws UringException {
        register("IORING_UNREGISTER_BUFFERS", Uapi.IORING_UNREGISTER_BUFFERS, MemorySegment.NULL, 0);
        fixedBuffers = null;
    }

    void eventFd(int eventFd) throws UringException {
        try (Arena tmp = Arena.ofConfined()) {
            register("IORING_REGISTER_EVENTFD", Uapi.IORING_REGISTER_EVENTFD, tmp.allocateFrom(JAVA_INT, eventFd), 1);
        }
    }

    void unregisterEventFd() throws UringException {
        register("IORING_UNREGISTER_EVENTFD", Uapi.IORING_UNREGISTER_EVENTFD, MemorySegment.NULL, 0);
    }

    void checkFixedRange(long address, long length, int index) {
        long[] bufs = fixedBuffers;
        if (bufs == null) {
            throw new IllegalArgumentException("no buffers are registered with this ring (registerBuffers)");
        }
        if (index < 0 || 2 * index >= bufs.length) {
            throw new IllegalArgumentException("registered buffer index " + index + " outside 0.." + (bufs.length / 2 - 1));
        }
        long base = bufs[2 * index];
        long end = base + bufs[2 * index + 1];
        if (address < base || length < 0 || address + length > end) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " + " + length
                    + " bytes lies outside registered buffer " + index + " (0x" + Long.toHexString(base) + " + "
                    + (end - base) + ")");
        }
    }
}
