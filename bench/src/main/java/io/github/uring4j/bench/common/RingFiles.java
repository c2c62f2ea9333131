package io.github.uring4j.bench.common;

import io.github.uring4j.ErrnoException;
import io.github.uring4j.ring.At;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.OpenFlag;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * One-shot file operations through a ring (open, close, fadvise, madvise), for set-up outside the timed loops:
 * each is one SQE, submitted and waited for. The ring must have no other operation in flight.
 */
public final class RingFiles {

    public static final int AT_FDCWD = At.FDCWD;
    public static final int O_RDONLY = OpenFlag.RDONLY;
    public static final int O_WRONLY = OpenFlag.WRONLY;
    public static final int O_RDWR = OpenFlag.RDWR;
    public static final int O_CREAT = OpenFlag.CREAT;
    public static final int O_TRUNC = OpenFlag.TRUNC;
    public static final int O_DIRECT = OpenFlag.DIRECT;
    public static final int O_CLOEXEC = OpenFlag.CLOEXEC;

    public static final int POSIX_FADV_NORMAL = 0;
    public static final int POSIX_FADV_RANDOM = 1;
    public static final int POSIX_FADV_SEQUENTIAL = 2;
    public static final int POSIX_FADV_DONTNEED = 4;
    public static final int MADV_RANDOM = 1;

    private RingFiles() {
    }

    /** Opens {@code path}; returns the descriptor. */
    public static int open(IoUring ring, Path path, int flags) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocateFrom(path.toString());
            ring.nextSqe().openat(AT_FDCWD, p, flags | O_CLOEXEC, 0644).userData(1);
            int r = once(ring);
            if (r < 0) {
                throw new IOException(ErrnoException.name(-r) + " opening " + path
                        + ((flags & O_DIRECT) != 0 && r == -22 ? " (this file system does not support O_DIRECT)" : ""));
            }
            return r;
        }
    }

    public static void close(IoUring ring, int fd) throws IOException {
        ring.nextSqe().close(fd).userData(2);
        check(once(ring), "close");
    }

    /** {@code posix_fadvise} over the whole file. */
    public static void fadvise(IoUring ring, int fd, int advice) throws IOException {
        ring.nextSqe().fadvise(FileTarget.fd(fd), 0, 0, advice).userData(3);
        check(once(ring), "fadvise");
    }

    /** {@code madvise} over {@code region}, in pieces the 32-bit length field can carry. */
    public static void madvise(IoUring ring, MemorySegment region, int advice) throws IOException {
        long chunk = 1L << 30;
        for (long off = 0; off < region.byteSize(); off += chunk) {
            ring.nextSqe().madvise(region.asSlice(off, Math.min(chunk, region.byteSize() - off)), advice).userData(4);
            check(once(ring), "madvise");
        }
    }

    /** Writes dirty pages back and drops the file from the page cache (only this file; needs no privilege). */
    public static void dropFromPageCache(Path path) throws IOException {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        try (IoUring ring = IoUring.open(4)) {
            int fd = open(ring, path, O_RDONLY);
            try {
                fadvise(ring, fd, POSIX_FADV_DONTNEED);
            } finally {
                close(ring, fd);
            }
        }
    }

    private static void check(int r, String op) throws IOException {
        if (r < 0) {
            throw new IOException(ErrnoException.name(-r) + " during " + op);
        }
    }

    private static int once(IoUring ring) throws UringException {
        int[] res = new int[1];
        int got = 0;
        while (got == 0) {
            ring.submitAndWait(1);
            got = ring.reap((ud, r, f) -> res[0] = r);
        }
        return res[0];
    }
}
