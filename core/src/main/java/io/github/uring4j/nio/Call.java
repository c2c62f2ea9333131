package io.github.uring4j.nio;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.LeanCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The native scratch memory one system call on a caller's thread needs: the segment {@code errno} is captured in,
 * an {@code iovec} array, and a buffer that heap buffers are staged through (the JDK stages them through a cached
 * direct buffer). They come from automatic arenas, whose memory counts against {@code -XX:MaxDirectMemorySize}: a
 * thread's first heap-buffer I/O reserves about 0.3 MB of it (the JDK's channel, nothing once its call returns).
 *
 * <p>Heap transfers larger than {@link #SCRATCH_KEPT} go in pieces of that size. Held only for the length of the call, never while the caller waits for a ring: a platform thread keeps one in
 * a {@code PerThread} of its own; virtual threads share a small pool (a virtual thread per request would otherwise make one
 * per request).
 */
final class Call {
    /** Most buffers one vectored call names (the JDK's channels use at most {@code IOV_MAX}, 1024, at a time). */
    static final int MAX_IOV = 1024;
    /** Staging memory kept with a context; larger heap transfers use memory of their own for that call. */
    static final int SCRATCH_KEPT = 256 * 1024;

    private static final io.github.uring4j.engine.PerThread<Call> PLATFORM =
            new io.github.uring4j.engine.PerThread<>(Call::new);
    private static final int POOL = 64;
    private static final AtomicReferenceArray<Call> SHARED = new AtomicReferenceArray<>(POOL);

    final MemorySegment capture;
    final MemorySegment iov;
    /** {@code loff_t} pair for copy_file_range. */
    final MemorySegment offsets;
    /**
     * A {@code struct statx}: apart from the staging memory, which a read may hold while it asks for the file's type
     * (on a platform thread a nested use gets the same context).
     */
    final MemorySegment statx;
    private MemorySegment scratch;
    private final boolean pooled;

    private Call() {
        this(!Thread.currentThread().isVirtual());
    }

    private Call(boolean threadLocal) {
        Arena a = Arena.ofAuto();
        this.capture = LeanCalls.allocateCapture(a);
        this.iov = a.allocate(16L * MAX_IOV, 8);
        this.offsets = a.allocate(16, 8);
        this.statx = a.allocate(io.github.uring4j.linux.Statx.LAYOUT);
        this.pooled = !threadLocal;
    }

    /** A context for the calling thread; {@link #release()} it when the call is done. */
    static Call get() {
        Thread t = Thread.currentThread();
        if (!t.isVirtual()) {
            return PLATFORM.get();
        }
        int start = (int) (t.threadId() & (POOL - 1));
        for (int i = 0; i < 4; i++) {
            Call c = SHARED.getAndSet((start + i) & (POOL - 1), null);
            if (c != null) {
                return c;
            }
        }
        return new Call(false);
    }

    /** Gives a pooled context back (a platform thread's stays with it). */
    void release() {
        if (!pooled) {
            return;
        }
        int start = (int) (Thread.currentThread().threadId() & (POOL - 1));
        for (int i = 0; i < 4; i++) {
            if (SHARED.compareAndSet((start + i) & (POOL - 1), null, this)) {
                return;
            }
        }
    }

    /** One {@code iovec} at index 0 naming {@code length} bytes at {@code address}. */
    MemorySegment iov1(long address, long length) {
        iov.set(JAVA_LONG, 0, address);
        iov.set(JAVA_LONG, 8, length);
        return iov;
    }

    void iov(int i, long address, long length) {
        iov.set(JAVA_LONG, 16L * i, address);
        iov.set(JAVA_LONG, 16L * i + 8, length);
    }

    /** Staging memory of {@code min(length, SCRATCH_KEPT)} bytes or more, aligned for {@code O_DIRECT}. */
    MemorySegment scratch(long length) {
        long want = Math.min(length, SCRATCH_KEPT);
        MemorySegment s = scratch;
        if (s == null || s.byteSize() < want) {
            long size = Math.max(16 * 1024, Long.highestOneBit(Math.max(1, want - 1)) << 1);
            s = Arena.ofAuto().allocate(Math.min(SCRATCH_KEPT, size), 4096);
            scratch = s;
        }
        return s;
    }
}
