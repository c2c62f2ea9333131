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
    /**
     * The scope of each registered buffer (null for an empty slot): a fixed transfer into a buffer whose arena was
     * closed is refused. The kernel keeps the old pages pinned, so nothing crashes, but a segment of a new arena at the
     * same address passed the range check and its read went into the old pages: a silent read of nothing.
     */
    private MemorySegment.Scope[] fixedScopes;

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
            if (r == -Errno.ENOMEM && (opcode == Uapi.IORING_REGISTER_BUFFERS
                    || opcode == Uapi.IORING_REGISTER_BUFFERS_UPDATE)) {
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
            MemorySegment iov = iovecs(tmp, buffers, false);
            register("IORING_REGISTER_BUFFERS", Uapi.IORING_REGISTER_BUFFERS, iov, buffers.length);
            long[] ranges = new long[2 * buffers.length];
            MemorySegment.Scope[] scopes = new MemorySegment.Scope[buffers.length];
            fill(ranges, scopes, 0, buffers);
            fixedScopes = scopes;
            fixedBuffers = ranges;
        }
    }

    /** {@code count} empty registered-buffer slots, for {@link #updateBuffers}. */
    void buffersSparse(int count) throws UringException {
        if (count <= 0) {
            throw new IllegalArgumentException("a sparse buffer table needs at least one slot: " + count);
        }
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment r = tmp.allocate(IoUringRsrc.RSRC_REGISTER);
            r.set(JAVA_INT, IoUringRsrc.RSRC_REGISTER_NR, count);
            r.set(JAVA_INT, IoUringRsrc.RSRC_REGISTER_FLAGS, IoUringRsrc.REGISTER_SPARSE);
            register("IORING_REGISTER_BUFFERS2 (sparse)", Uapi.IORING_REGISTER_BUFFERS2, r, (int) r.byteSize());
            fixedScopes = new MemorySegment.Scope[count];
            fixedBuffers = new long[2 * count];
        }
    }

    /**
     * Puts {@code buffers} into the slots from {@code offset} on; an empty segment (such as {@link MemorySegment#NULL})
     * empties its slot. When the kernel refuses one, the slots this call filled are left empty and the error
     * thrown.
     */
    void updateBuffers(int offset, MemorySegment... buffers) throws UringException {
        long[] bufs = fixedBuffers;
        if (bufs == null) {
            throw new IllegalStateException("no registered-buffer table to update (registerBuffers or"
                    + " registerBuffersSparse first)");
        }
        if (offset < 0 || buffers.length > bufs.length / 2 - offset) {
            throw new IllegalArgumentException("slots " + offset + ".." + ((long) offset + buffers.length - 1)
                    + " lie outside the registered-buffer table (0.." + (bufs.length / 2 - 1) + ")");
        }
        if (buffers.length == 0) {
            return;
        }
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment iov = iovecs(tmp, buffers, true);
            MemorySegment u = tmp.allocate(IoUringRsrc.RSRC_UPDATE2);
            int done = 0;
            try {
                while (done < buffers.length) {
                    // The kernel may take some and stop at one it refuses: the next call names why.
                    u.set(JAVA_INT, IoUringRsrc.RSRC_UPDATE2_OFFSET, offset + done);
                    u.set(JAVA_LONG, IoUringRsrc.RSRC_UPDATE2_DATA, iov.address() + done * Iovec.LAYOUT.byteSize());
                    u.set(JAVA_INT, IoUringRsrc.RSRC_UPDATE2_NR, buffers.length - done);
                    int r = register("IORING_REGISTER_BUFFERS_UPDATE", Uapi.IORING_REGISTER_BUFFERS_UPDATE, u,
                            (int) u.byteSize());
                    if (r <= 0) {
                        throw new UringException("IORING_REGISTER_BUFFERS_UPDATE", Errno.EINVAL,
                                "the kernel took none of " + (buffers.length - done) + " buffers and gave no error");
                    }
                    done += r;
                }
            } catch (UringException e) {
                if (done > 0) {
                    MemorySegment[] empty = new MemorySegment[done];
                    java.util.Arrays.fill(empty, MemorySegment.NULL);
                    updateBuffers(offset, empty);
                }
                throw e;
            }
            fill(bufs, fixedScopes, offset, buffers);
        }
    }

    /** An iovec array of the segments, each checked (native, alive; empty ones only where {@code emptyOk}). */
    private static MemorySegment iovecs(Arena tmp, MemorySegment[] buffers, boolean emptyOk) {
        MemorySegment iov = tmp.allocate(Iovec.LAYOUT, Math.max(1, buffers.length));
        for (int i = 0; i < buffers.length; i++) {
            MemorySegment b = buffers[i];
            if (b == null) {
                throw new NullPointerException("buffer " + i);
            }
            boolean empty = b.byteSize() == 0;
            if (empty && !emptyOk) {
                throw new IllegalArgumentException("buffer " + i + " is empty");
            }
            if (!empty && !b.isNative()) {
                throw new IllegalArgumentException("buffer " + i + " is on the heap; registered buffers must be"
                        + " native");
            }
            if (!b.scope().isAlive()) {
                throw new IllegalStateException("buffer " + i + " belongs to a closed arena");
            }
            if (!empty && b.isReadOnly()) {
                throw new IllegalArgumentException("buffer " + i + " is read-only, and a READ_FIXED into it would"
                        + " write it");
            }
            long base = i * Iovec.LAYOUT.byteSize();
            iov.set(JAVA_LONG, base + Iovec.BASE, empty ? 0 : b.address());
            iov.set(JAVA_LONG, base + Iovec.LEN, b.byteSize());
        }
        return iov;
    }

    private static void fill(long[] ranges, MemorySegment.Scope[] scopes, int offset, MemorySegment[] buffers) {
        for (int i = 0; i < buffers.length; i++) {
            boolean empty = buffers[i].byteSize() == 0;
            ranges[2 * (offset + i)] = empty ? 0 : buffers[i].address();
            ranges[2 * (offset + i) + 1] = buffers[i].byteSize();
            scopes[offset + i] = empty ? null : buffers[i].scope();
        }
    }

    void unregisterBuffers() throws UringException {
        register("IORING_UNREGISTER_BUFFERS", Uapi.IORING_UNREGISTER_BUFFERS, MemorySegment.NULL, 0);
        fixedBuffers = null;
        fixedScopes = null;
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
        if (end == base) {
            throw new IllegalArgumentException("registered buffer slot " + index + " is empty");
        }
        if (address < base || length < 0 || address > end || length > end - address) { // no overflow of address + length
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " + " + length
                    + " bytes lies outside registered buffer " + index + " (0x" + Long.toHexString(base) + " + "
                    + (end - base) + ")");
        }
        MemorySegment.Scope[] scopes = fixedScopes;
        MemorySegment.Scope scope = scopes == null || index >= scopes.length ? null : scopes[index];
        if (scope != null && !scope.isAlive()) {
            throw new IllegalStateException("registered buffer " + index + " belongs to a closed arena: the kernel"
                    + " still holds its old pages, so a transfer would not reach memory allocated there since;"
                    + " update the slot (updateBuffers) or register the buffers again");
        }
    }
}
