package io.github.uring4j.file;

import io.github.uring4j.engine.Completion;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.Memory;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Rules;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.time.Duration;
import java.util.Objects;

/**
 * Builds the requests of {@link AsyncFile}: every argument checked first (position, access, alignment, buffer),
 * then the memory handed over by the {@link Memory} rules; a request whose memory cannot be had is discarded
 * before anything is submitted.
 */
final class Transfers {
    private Transfers() {
    }

    /** A fresh request on this file, or null when the file is closed. */
    static Request request(AsyncFile f, int kind, Completion completion) {
        FileHandle handle = f.handle;
        if (!handle.isOpen()) {
            return null;
        }
        Request r = f.executor.backend.acquire();
        r.kind = kind;
        r.handle = handle;
        r.completion = completion;
        r.client = f;
        return r;
    }

    static void checkPosition(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("negative position: " + position);
        }
    }

    static void checkReadable(FileHandle handle) {
        if (!handle.readable) {
            throw new NonReadableChannelException();
        }
    }

    static void checkWritable(FileHandle handle) {
        if (!handle.writable) {
            throw new NonWritableChannelException();
        }
    }

    private static void checkAccess(FileHandle handle, int kind) {
        if (kind == Request.READ || kind == Request.READV) {
            checkReadable(handle);
        } else {
            checkWritable(handle);
        }
    }

    /** A timeout in nanoseconds: at least 1; one too long to count waits for about 292 years. */
    static Duration timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("negative timeout: " + timeout);
        }
        return timeout;
    }

    private static long nanos(Duration timeout) {
        if (timeout == null) {
            return 0;
        }
        try {
            return Math.max(1, timeout.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    static Request buffer(AsyncFile f, int kind, ByteBuffer buf, long position, boolean fully, Duration timeout) {
        FileHandle handle = f.handle;
        Objects.requireNonNull(buf, "buffer");
        checkPosition(position);
        checkAccess(handle, kind);
        boolean read = kind == Request.READ;
        if (read && buf.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        int len = buf.remaining();
        if (handle.direct) {
            Rules.checkDirect(handle, buf.isDirect() ? Memory.address(buf) : 0, position, len);
        }
        Request r = request(f, kind, Results.INT);
        if (r == null) {
            return null;
        }
        try {
            Memory.buffer(r, buf, read, f.executor.bounces);
        } catch (RuntimeException e) {
            r.discard();
            throw e;
        }
        r.length = len;
        r.position = position;
        r.fully = fully;
        r.timeoutNanos = nanos(timeout);
        return r;
    }

    static Request segment(AsyncFile f, int kind, MemorySegment seg, long position, boolean fully,
            Duration timeout) {
        FileHandle handle = f.handle;
        Objects.requireNonNull(seg, "segment");
        checkPosition(position);
        checkAccess(handle, kind);
        boolean read = kind == Request.READ;
        if (read && seg.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only segment");
        }
        long size = seg.byteSize();
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one operation moves at most 2 GiB - 1 bytes, not " + size);
        }
        int len = (int) size;
        Rules.checkDirect(handle, seg.isNative() ? seg.address() : 0, position, len);
        Request r = request(f, kind, Results.INT);
        if (r == null) {
            return null;
        }
        try {
            Memory.segment(r, seg, len, read, f.executor.bounces);
        } catch (RuntimeException e) {
            r.discard();
            throw e;
        }
        r.length = len;
        r.position = position;
        r.fully = fully;
        r.timeoutNanos = nanos(timeout);
        return r;
    }

    static Request vector(AsyncFile f, int kind, ByteBuffer[] bufs, long position) {
        FileHandle handle = f.handle;
        Objects.requireNonNull(bufs, "buffers");
        checkPosition(position);
        checkAccess(handle, kind);
        if (bufs.length == 0 || bufs.length > Request.MAX_IOV) {
            throw new IllegalArgumentException("vectored I/O takes 1 to " + Request.MAX_IOV + " buffers, not "
                    + bufs.length);
        }
        for (int i = 0; i < bufs.length; i++) {
            ByteBuffer b = Objects.requireNonNull(bufs[i], "buffer");
            if (!b.isDirect()) {
                throw new IllegalArgumentException("vectored I/O needs direct buffers (buffer " + i + " is on the heap)");
            }
            if (kind == Request.READV && b.isReadOnly()) {
                throw new IllegalArgumentException("read into a read-only buffer (buffer " + i + ")");
            }
        }
        Request r = request(f, kind, Results.LONG);
        if (r == null) {
            return null;
        }
        try {
            for (int i = 0; i < bufs.length; i++) {
                long a = Memory.vectorBuffer(r, bufs[i], i);
                Rules.checkDirect(handle, a, position, bufs[i].remaining());
                r.iov(i, a, bufs[i].remaining());
            }
        } catch (RuntimeException e) {
            r.discard();
            throw e;
        }
        r.iovCount = bufs.length;
        r.advanceAll = bufs;
        r.keep = bufs;
        r.position = position;
        return r;
    }
}
