package io.github.uring4j.file;

import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.KernelCopy;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.StatxBuffer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * {@link AsyncFile#transferTo}: a copy inside the kernel ({@code copy_file_range}: page cache to page cache, or a
 * reflink where the file system shares extents) on a helper thread (several at once for a large copy:
 * {@link KernelCopy}), never on an event loop, whose calls block for as long as the copy takes. Both files are
 * {@code dup}ed when the call is made, so closing either {@code AsyncFile} meanwhile cannot hand the copy someone
 * else's descriptor; the duplicates are closed when the copy ends. Where the kernel cannot copy between the two files
 * ({@code EXDEV}, {@code EINVAL}, {@code EOPNOTSUPP}) the helper copies through a buffer with {@code pread}/
 * {@code pwrite}, reading or writing a FIFO, pipe or device where it is (it has no offsets); where native calls cannot
 * be made at all (native access denied), the copy is chained reads and
 * writes of the two files.
 */
final class Copies {
    private static final int CHUNK = 1 << 20;
    /** Most bytes one {@code copy_file_range} of a copy moves: a stopped copy ends after at most this much more. */
    private static final long CALL = 64L << 20;

    private Copies() {
    }

    static CompletableFuture<Long> transferTo(AsyncFile from, long position, long count, AsyncFile to,
            long targetPosition) {
        Objects.requireNonNull(to, "target");
        if (position < 0 || count < 0 || targetPosition < 0) {
            throw new IllegalArgumentException("negative position, count or target position: " + position + ", "
                    + count + ", " + targetPosition);
        }
        FileHandle in = from.handle;
        FileHandle out = to.handle;
        if (!in.readable) {
            throw new NonReadableChannelException();
        }
        if (!out.writable) {
            throw new NonWritableChannelException();
        }
        if (!in.isOpen() || !out.isOpen()) {
            return CompletableFuture.failedFuture(new ClosedChannelException());
        }
        OpFuture<Long> result = new OpFuture<>(from.executor, null, 0);
        if (count == 0) {
            result.deliver(() -> result.complete(0L));
            return result;
        }
        if (LeanCalls.problem() != null) {
            // the size first, as below: a copy onto its own source's end must end (a size of 0 may be a FIFO's or a
            // device's, which are read until they end)
            from.size().whenComplete((size, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                    return;
                }
                long n = size == 0 ? count : Math.min(count, Math.max(0, size - position));
                chained(from, position, n, to, targetPosition, ByteBuffer.allocateDirect((int) Math.max(1,
                        Math.min(CHUNK, n))), 0, result);
            });
            return result;
        }
        int inFd;
        int outFd;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = LeanCalls.allocateCapture(a);
            inFd = LeanCalls.dup(capture, in.fd);
            outFd = inFd < 0 ? -1 : LeanCalls.dup(capture, out.fd);
            if (inFd < 0 || outFd < 0) {
                if (inFd >= 0) {
                    LeanCalls.close(capture, inFd);
                }
                int e = inFd < 0 ? -inFd : -outFd;
                if (e == Errno.EBADF && (!in.isOpen() || !out.isOpen())) {
                    // a file closed since the check above: as every other operation on a closed file says
                    return CompletableFuture.failedFuture(new ClosedChannelException());
                }
                return CompletableFuture.failedFuture(new FileIOException(e, "dup", from.handle.path, -1,
                        Errno.name(e) + " duplicating the descriptors for a copy"));
            }
            // A file closed between the check above and its dup may have had its descriptor number given to another
            // open meanwhile (of any file of the process): the copy would read or write that one. A descriptor is
            // closed only after its handle stopped being open, so handles still open now mean the dups are theirs.
            if (!in.isOpen() || !out.isOpen()) {
                LeanCalls.close(capture, inFd);
                LeanCalls.close(capture, outFd);
                return CompletableFuture.failedFuture(new ClosedChannelException());
            }
        }
        KernelCopy.helpers().execute(() -> {
            long done = 0;
            Throwable failure = null;
            try (Arena a = Arena.ofConfined()) {
                IoExecutor executor = from.executor();
                done = copy(a, inFd, position, outFd, targetPosition, count, from.handle, to.handle,
                        () -> result.isCancelled() || !executor.isOpen());
            } catch (Throwable t) {
                failure = t;
            } finally {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment capture = LeanCalls.allocateCapture(a);
                    LeanCalls.close(capture, inFd);
                    LeanCalls.close(capture, outFd);
                }
            }
            long n = done;
            Throwable f = failure;
            result.deliver(() -> {
                if (f != null) {
                    result.completeExceptionally(f);
                } else {
                    result.complete(n);
                }
            });
        });
        return result;
    }

    /**
     * What a stopped copy ends with: its executor was closed, as the executor's other operations that did not finish
     * (a cancelled copy's future is cancelled already, and takes no other result).
     */
    private static java.nio.channels.AsynchronousCloseException stopped() {
        return new java.nio.channels.AsynchronousCloseException();
    }

    /** What an {@code EINVAL} of an {@code O_DIRECT} file means in a copy. */
    private static String directHint(int errno, FileHandle f) {
        return errno == Errno.EINVAL && f.direct ? " (an O_DIRECT file: the copy's offsets and length must be multiples of"
                + " its direct-I/O alignment, AsyncFile.directIoAlignment())" : "";
    }

    /**
     * Copies on this thread; the bytes copied (fewer than {@code count} when the source ends first). The copy goes in
     * calls of at most {@link #CALL} bytes and stops before the next once {@code stopped} says so (its future was
     * cancelled, or the source's executor closed): a cancelled copy of 1 GiB went on to its end, and wrote over what
     * the caller wrote to the target after the cancel. The call in progress still ends (a few milliseconds). Closing
     * the files does not stop it: the copy has descriptors of its own, and ends as started.
     */
    private static long copy(Arena a, int in, long inPos, int out, long outPos, long count, FileHandle from,
            FileHandle to, java.util.function.BooleanSupplier stopped) throws IOException {
        String inPath = from.path;
        String outPath = to.path;
        MemorySegment capture = LeanCalls.allocateCapture(a);
        // As the JDK's transferTo: a regular source is copied up to its size now. Bytes appended meanwhile are not
        // copied, nor those the copy itself appends when the target is the same file (it would never end). One that
        // says it is empty (those of /proc) is read until it ends, as the JDK's channel reads it.
        StatxBuffer st = StatxBuffer.allocate(a);
        int r = LeanCalls.statx(capture, in, a.allocateFrom(""), Uapi.AT_EMPTY_PATH,
                Statx.STATX_TYPE | Statx.STATX_SIZE, st.segment());
        if (r < 0) {
            throw new FileIOException(-r, "statx", inPath, -1, Errno.name(-r) + " asking the size of " + inPath
                    + " for a copy");
        }
        if (st.isRegularFile() && st.size() > 0) {
            count = Math.min(count, Math.max(0, st.size() - inPos));
        }
        MemorySegment offsets = a.allocate(16, 8);
        long done = 0;
        if (count == 0) {
            return 0;
        }
        KernelCopy.Result pieces = KernelCopy.copy(in, inPos, out, outPos, count, stopped);
        if (pieces != null) {
            // several pieces at once; what they could not copy is left to the loop below, which says why
            done = pieces.copied();
        }
        while (done < count) {
            if (stopped.getAsBoolean()) {
                throw stopped();
            }
            offsets.set(ValueLayout.JAVA_LONG, 0, inPos + done);
            offsets.set(ValueLayout.JAVA_LONG, 8, outPos + done);
            long n = LeanCalls.copyFileRange(capture, in, offsets.asSlice(0, 8), out, offsets.asSlice(8, 8),
                    Math.min(count - done, CALL));
            if (n == -Errno.EINTR) {
                continue;
            }
            if (n == -Errno.EXDEV || n == -Errno.EINVAL || n == -Errno.EOPNOTSUPP || n == -Errno.ENOSYS
                    || n == -Errno.ESPIPE) {
                return done + buffered(a, capture, in, inPos + done, out, outPos + done, count - done, from, to,
                        stopped);
            }
            if (n < 0 && done > 0) {
                break; // a full disk, a file-size limit: what was copied is the result, as the JDK's transfers say
            }
            if (n < 0) {
                throw new FileIOException((int) -n, "copy_file_range", inPath, inPos + done,
                        Errno.name((int) -n) + " copying " + inPath + " at " + (inPos + done) + " to " + outPath
                                + " at " + (outPos + done));
            }
            if (n == 0) {
                break; // the end of the source
            }
            done += n;
        }
        return done;
    }

    private static long buffered(Arena a, MemorySegment capture, int in, long inPos, int out, long outPos, long count,
            FileHandle from, FileHandle to, java.util.function.BooleanSupplier stopped) throws IOException {
        String inPath = from.path;
        String outPath = to.path;
        MemorySegment buf = a.allocate(CHUNK, 4096);
        MemorySegment iov = a.allocate(16, 8);
        MemorySegment pollfd = a.allocate(Uapi.POLLFD_SIZE, 8);
        long done = 0;
        // A FIFO, pipe or character device has no offsets (ESPIPE): it is read or written where it is, as the
        // JDK's transferTo writes into a pipe (a copy into a FIFO failed with ESPIPE)
        boolean inAt = true;
        boolean outAt = true;
        while (done < count) {
            if (stopped.getAsBoolean()) {
                throw stopped();
            }
            int want = (int) Math.min(CHUNK, count - done);
            if (!inAt) {
                await(pollfd, in, Uapi.POLLIN, stopped);
            }
            iov.set(ValueLayout.JAVA_LONG, 0, buf.address());
            iov.set(ValueLayout.JAVA_LONG, 8, want);
            long r = LeanCalls.preadv2(capture, in, iov, 1, inAt ? inPos + done : -1, 0);
            if (r == -Errno.EINTR) {
                continue;
            }
            if (r == -Errno.ESPIPE && inAt) {
                inAt = false;
                continue;
            }
            if (r == -Errno.EAGAIN && !inAt) {
                continue; // opened non-blocking (the threads backend's FIFOs): wait for bytes again
            }
            if (r < 0 && done > 0) {
                return done; // what was copied is the result, as the JDK's transfers say
            }
            if (r < 0) {
                throw new FileIOException((int) -r, "pread", inPath, inPos + done, Errno.name((int) -r)
                        + " reading " + inPath + " at " + (inPos + done) + " for a copy" + directHint((int) -r, from));
            }
            if (r == 0) {
                break;
            }
            long w = 0;
            while (w < r) {
                iov.set(ValueLayout.JAVA_LONG, 0, buf.address() + w);
                iov.set(ValueLayout.JAVA_LONG, 8, r - w);
                long n = LeanCalls.pwritev2(capture, out, iov, 1, outAt ? outPos + done + w : -1, 0);
                if (n == -Errno.EINTR) {
                    continue;
                }
                if (n == -Errno.ESPIPE && outAt) {
                    outAt = false;
                    continue;
                }
                if (n == -Errno.EAGAIN && !outAt) {
                    await(pollfd, out, Uapi.POLLOUT, stopped); // a full FIFO opened non-blocking: wait for room
                    continue;
                }
                if (n <= 0 && done + w > 0) {
                    return done + w; // a full disk, a file-size limit: what was copied is the result
                }
                if (n <= 0) {
                    int e = n == 0 ? Errno.EIO : (int) -n;
                    throw new FileIOException(e, "pwrite", outPath, outPos + done + w, Errno.name(e) + " writing "
                            + outPath + " at " + (outPos + done + w) + " for a copy" + directHint(e, to));
                }
                w += n;
            }
            done += r;
        }
        return done;
    }

    /**
     * Waits until {@code fd}, a FIFO, pipe or device (it has no offsets), is ready for {@code events}, in slices of
     * 50 ms between which {@code stopped} is asked, as {@code AsyncFile.read} waits on one: a FIFO that no writer has
     * opened yet is read once a writer writes or leaves (its read gave 0 at once, and the copy ended with nothing),
     * and one opened non-blocking (the threads backend's) once it has bytes ({@code EAGAIN} ended the copy, or failed
     * it). A failure of {@code poll} itself is left to the read or write that follows to say.
     */
    private static void await(MemorySegment pollfd, int fd, short events, java.util.function.BooleanSupplier stopped)
            throws IOException {
        pollfd.set(ValueLayout.JAVA_INT, 0, fd);
        pollfd.set(ValueLayout.JAVA_SHORT, 4, events);
        while (true) {
            if (stopped.getAsBoolean()) {
                throw stopped();
            }
            pollfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int r = io.github.uring4j.linux.Syscalls.system().poll(pollfd, 1, 50);
            if (r > 0 || (r < 0 && r != -Errno.EINTR)) {
                return;
            }
        }
    }

    /** Without native calls: reads and writes of the two files, one chunk at a time. */
    private static void chained(AsyncFile from, long position, long count, AsyncFile to, long targetPosition,
            ByteBuffer b, long done, OpFuture<Long> result) {
        if (done >= count) {
            result.complete(done);
            return;
        }
        if (result.isDone()) {
            return; // cancelled: no more chunks
        }
        b.clear().limit((int) Math.min(b.capacity(), count - done));
        from.read(b, position + done).whenComplete((n, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
                return;
            }
            if (n <= 0) {
                result.complete(done);
                return;
            }
            b.flip();
            to.writeFully(b, targetPosition + done).whenComplete((w, e2) -> {
                if (e2 != null) {
                    result.completeExceptionally(e2);
                } else {
                    chained(from, position, count, to, targetPosition, b, done + n, result);
                }
            });
        });
    }
}
