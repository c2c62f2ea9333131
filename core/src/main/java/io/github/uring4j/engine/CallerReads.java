package io.github.uring4j.engine;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.ValueLayout;

/**
 * A read the caller's own thread makes first ({@code IoExecutor.Builder.callerReads}, and the futures of uring4j's
 * {@code AsynchronousFileChannel}): {@code preadv2} with {@code RWF_NOWAIT}, which takes the bytes from the page cache
 * or says {@code EAGAIN} at once and never waits for the device. When it moved the whole read (or found the end of the
 * file), the client completes the request right there; otherwise the request goes to the loop as it would have, and
 * reads everything again.
 *
 * <p>Every operation through a loop costs two wake-ups when the threads on either side sleep: the loop's, for the
 * request, and the caller's, for the result. On the development machine (2-core VM) that was 18-20 µs for a cached
 * 4 KiB read with the caller parked, 1.2-1.3 µs with it spinning ({@link Waits}), and 84 µs to 3.4 ms after the loop
 * had slept 100-300 ms; the JDK's {@code FileChannel} read, made on the caller's thread, took 0.6 µs, and so does this.
 *
 * <p>A file system that refuses {@code RWF_NOWAIT} reads sends them to the loop, unless it keeps its files in memory
 * (tmpfs, ramfs): those are read with a plain {@code preadv2}, which waits for no device.
 *
 * <p>Only regular files (a pipe's reads must keep their order with those waiting in the loop), not {@code O_DIRECT}
 * (the device, not the page cache, serves those), not on a loop thread (its requests run on it anyway), and at most
 * {@link #MAX} bytes; a full read ({@code readFully}) only when it got every byte. The descriptor is pinned for the
 * call ({@link FileHandle#tryPin}): a close waits for the call to end before the descriptor goes, so the call never
 * reads a descriptor that another open was given meanwhile.
 */
public final class CallerReads {
    /** Longest read tried here: a close waits for one such read at most. */
    public static final int MAX = 256 * 1024;
    private static final int UNKNOWN = 0;
    private static final int REGULAR = 1;
    private static final int NEVER = 2;
    private static final int IN_MEMORY = 3;


    private CallerReads() {
    }

    /**
     * Makes {@code r} (a read of {@code h} built by a client, not submitted) here when the page cache holds all of it:
     * the bytes read ({@code r.length}, or 0 at the end of the file), after which the client ends {@code r} itself; or
     * -1 when {@code r} must be submitted as usual. {@code b}: {@code h}'s backend.
     */
    public static long tryRead(FileHandle h, IoBackend b, Request r) {
        if (r.length <= 0 || r.length > MAX || h.direct || h.callerReads() == NEVER
                || !b.takesCallerReads(h) || b.mustNotBlock(Thread.currentThread())) {
            return -1;
        }
        if (!h.tryPin()) {
            return -1; // closing: the loop says so
        }
        long n;
        try {
            CallScratch sc = CallScratch.get();
            if (h.callerReads() == UNKNOWN) {
                int st = LeanCalls.statx(sc.capture, h.fd, sc.empty, Uapi.AT_EMPTY_PATH, Statx.STATX_TYPE,
                        sc.statx.segment());
                boolean regular = st == 0 && sc.statx.isRegularFile();
                h.callerReads(regular ? REGULAR : NEVER);
                if (!regular) {
                    return -1;
                }
            }
            sc.iov.set(ValueLayout.JAVA_LONG, 0, r.address);
            sc.iov.set(ValueLayout.JAVA_LONG, 8, r.length);
            boolean inMemory = h.callerReads() == IN_MEMORY;
            n = LeanCalls.preadv2(sc.capture, h.fd, sc.iov, 1, r.position, inMemory ? 0 : Uapi.RWF_NOWAIT);
            if (n == -Errno.EOPNOTSUPP && !inMemory) {
                // No RWF_NOWAIT reads here. A file in memory (tmpfs) is read plainly, as it never waits for a
                // device: io_uring would hand the read to an io-wq worker. Any other file's reads go to the loop.
                if (!LeanCalls.inMemory(sc.capture, h.fd, sc.statfs)) {
                    h.callerReads(NEVER);
                    return -1;
                }
                h.callerReads(IN_MEMORY);
                n = LeanCalls.preadv2(sc.capture, h.fd, sc.iov, 1, r.position, 0);
            }
            // A short read: the end of the file, or (RWF_NOWAIT) the first page the cache does not hold. One more call
            // tells which, where the loop's read would cost a read across the end a round trip: 0 at the end (the
            // result is then the short count, as the loop's), EAGAIN at a missing page (the loop reads it all).
            while (n > 0 && n < r.length && !r.fully) {
                sc.iov.set(ValueLayout.JAVA_LONG, 0, r.address + n);
                sc.iov.set(ValueLayout.JAVA_LONG, 8, r.length - n);
                long more = LeanCalls.preadv2(sc.capture, h.fd, sc.iov, 1, r.position + n,
                        inMemory || h.callerReads() == IN_MEMORY ? 0 : Uapi.RWF_NOWAIT);
                if (more == 0) {
                    b.callerReadDone();
                    return n;
                }
                if (more < 0) {
                    return -1;
                }
                n += more;
            }
        } catch (IllegalStateException | LinkageError e) {
            h.callerReads(NEVER); // the calls cannot be made here: the loops read
            return -1;
        } finally {
            h.unpin();
        }
        if (n != r.length && (n != 0 || r.fully)) {
            return -1; // EAGAIN, a part of it, an error, or a full read at the end: the loop's read says what it is
        }
        b.callerReadDone();
        return n;
    }
}
