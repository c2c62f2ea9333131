package io.github.uring4j.engine;

import io.github.uring4j.linux.Errno;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.InterruptedByTimeoutException;
import java.util.concurrent.CancellationException;

/**
 * The rules every backend applies the same way: end of file, short transfers, what an errno means for the client,
 * and the {@code O_DIRECT} alignment checked before anything is submitted.
 */
public final class Rules {
    /** {@link #afterChunk}: the rest of the transfer must be issued (the request was advanced). */
    public static final long MORE = Long.MIN_VALUE;

    private Rules() {
    }

    /**
     * After the kernel moved {@code res >= 0} bytes of the request's current chunk. Returns the value the request
     * succeeds with (bytes moved, or -1 at end of file), or {@link #MORE} after advancing the request past what was
     * moved when a full transfer ({@code readFully}, {@code writeFully}, write-and-sync) must go on.
     *
     * @throws IOException end of file during a full read, or a write of 0 bytes
     */
    public static long afterChunk(Request r, long res, ErrorMapper errors) throws IOException {
        if (res == 0 && r.length > 0) {
            if (r.kind == Request.READ_FILE) {
                return r.done; // the end of the file (0: an empty one)
            }
            if (r.kind == Request.READ) {
                if (r.fully) {
                    throw errors.endOfFile(r.pathForErrors(), r.position, r.done, r.done + r.length);
                }
                return r.done > 0 ? r.done : -1;
            }
            throw errors.zeroWrite(r.name(), r.pathForErrors(), r.position);
        }
        r.done += res;
        if ((r.fully || r.kind == Request.WRITE_SYNC || r.untilEnd) && res < r.length) {
            r.address += res;
            r.length -= (int) res;
            r.position += res;
            return MORE;
        }
        return r.done;
    }

    /** After a vectored transfer moved {@code res >= 0} bytes: -1 for a read at end of file, else {@code res}. */
    public static long afterVector(Request r, long res) {
        if (res == 0 && r.kind == Request.READV && r.iovTotal() > 0) {
            return -1;
        }
        return res;
    }

    /**
     * What a request whose timeout ran out fails with: the JDK's type for it, which takes no message, caused by a
     * {@link java.util.concurrent.TimeoutException} that says which operation of which file and after how long.
     */
    public static InterruptedByTimeoutException timedOut(Request r) {
        return timedOut(r, false);
    }

    /**
     * {@link #timedOut(Request)}, saying how many bytes a full transfer had moved when {@code counted} (only a thread
     * that owns the request's progress may read it: the loop, not the threads backend's timer).
     */
    public static InterruptedByTimeoutException timedOut(Request r, boolean counted) {
        InterruptedByTimeoutException e = new InterruptedByTimeoutException();
        String path = r.pathForErrors();
        long nanos = r.timeoutNanos;
        String after = nanos % 1_000_000 == 0 ? nanos / 1_000_000 + " ms"
                : String.format(java.util.Locale.ROOT, "%.3f ms", nanos / 1e6);
        String moved = counted && partial(r) ? " (the first " + r.done + " of its " + (r.done + r.length)
                + " bytes had moved" + (r.advance != null ? "; the ByteBuffer's position stays)" : ")") : "";
        String at = offsetOf(r) >= 0 ? " at " + r.start : "";
        e.initCause(new java.util.concurrent.TimeoutException(r.name() + (path != null ? " of " + path : "") + at
                + " did not end within its timeout of " + after + moved));
        return e;
    }

    /**
     * What the client is told for {@code -errno}: an interruption the client caused (cancel, its timeout, its
     * close) is reported as such, anything else as the errno with the operation, file and offset.
     */
    public static Throwable failure(Request r, int errno, boolean timedOut, boolean closing, ErrorMapper errors) {
        int e = Math.abs(errno);
        if (e == Errno.ERESTARTSYS) {
            e = Errno.EINTR;
        }
        Throwable interrupted = interruption(r, e, timedOut, closing);
        if (interrupted != null) {
            return interrupted;
        }
        // an EINVAL of an O_DIRECT file is about alignment only for a transfer (or, opening, the file system's support),
        // and not when the range runs past the largest offset (the kernel refuses that with EINVAL too)
        boolean direct = r.handle != null ? r.handle.direct && transfers(r.kind) && r.position <= Long.MAX_VALUE
                - Math.max(0, r.length) : r.open != null && r.open.direct();
        if (partial(r)) {
            // a full transfer failed after its first pieces moved: say so, and where the transfer began
            long offset = r.position >= 0 ? r.position - r.done : -1;
            return errors.errorAfter(e, r.name(), r.pathForErrors(), offset, direct, r.done, r.done + r.length,
                    r.advance != null);
        }
        return errors.error(e, r.name(), r.pathForErrors(), offsetOf(r), direct);
    }

    /** Whether {@code error} says the client ended the request: its cancel, its timeout, its close. */
    public static boolean interruption(Throwable error) {
        return error instanceof CancellationException || error instanceof InterruptedByTimeoutException
                || error instanceof AsynchronousCloseException;
    }

    /**
     * A transfer that moves all its bytes in pieces ({@code readFully}, {@code writeFully}, write-and-sync) whose
     * first pieces moved: failing now, it still moved {@link Request#done} bytes, which its client must learn of.
     */
    public static boolean partial(Request r) {
        return r.done > 0 && (r.kind == Request.READ || r.kind == Request.WRITE || r.kind == Request.WRITE_SYNC);
    }

    /**
     * What the client is told when the {@code fdatasync} linked after a write-and-sync's write failed with
     * {@code errno}: an interruption as {@link #failure} says it, anything else saying that the write itself moved
     * its {@link Request#done} bytes.
     */
    public static Throwable syncFailure(Request r, int errno, boolean closing, ErrorMapper errors) {
        int e = Math.abs(errno);
        if (e == Errno.ERESTARTSYS) {
            e = Errno.EINTR;
        }
        Throwable interrupted = interruption(r, e, false, closing);
        // anything else, an ECANCELED none of those explains included, after the write moved all its bytes (the
        // piece-by-piece wording of failure() would take the last piece's bookkeeping for a transfer still under way:
        // the last piece moved all it asked, so its position and length were left as they were)
        long began = r.position >= 0 ? r.position + r.length - r.done : -1;
        return interrupted != null ? interrupted : errors.syncAfterWrite(e, r.pathForErrors(), began, r.done);
    }

    /**
     * The client's cancel, its timeout or its file's close, when {@code errno} ({@code ECANCELED} or {@code EINTR})
     * came from one of them; null otherwise.
     */
    private static Throwable interruption(Request r, int errno, boolean timedOut, boolean closing) {
        if (errno != Errno.ECANCELED && errno != Errno.EINTR) {
            return null;
        }
        if (r.isCancelled()) {
            return new CancellationException(r.name() + " cancelled");
        }
        if (timedOut) {
            return timedOut(r, true);
        }
        if (closing || (r.handle != null && !r.handle.isOpen())) {
            return new AsynchronousCloseException();
        }
        return null;
    }

    private static boolean transfers(int kind) {
        return switch (kind) {
            case Request.READ, Request.WRITE, Request.READV, Request.WRITEV, Request.WRITE_SYNC -> true;
            default -> false;
        };
    }

    /** The file offset an error message names, or -1 for operations without one. */
    public static long offsetOf(Request r) {
        return switch (r.kind) {
            case Request.READ, Request.WRITE, Request.READV, Request.WRITEV, Request.WRITE_SYNC, Request.ALLOCATE,
                    Request.ADVISE, Request.SYNC_RANGE -> r.position;
            default -> -1;
        };
    }

    /**
     * {@code O_DIRECT} needs the buffer address aligned to the file's memory alignment and the offset and length to
     * its offset alignment; refused before submission with what to do instead.
     */
    public static void checkDirect(FileHandle h, long address, long position, long length) {
        if (!h.direct || length == 0) {
            return; // nothing moves: where an empty buffer happens to lie does not decide the answer
        }
        if (address % h.memAlign != 0 || position % h.offAlign != 0 || length % h.offAlign != 0) {
            throw new IllegalArgumentException("O_DIRECT alignment: " + h.path + " needs the buffer address aligned to "
                    + h.memAlign + " bytes and the file offset and length to " + h.offAlign + " bytes (address 0x"
                    + Long.toHexString(address) + ", offset " + position + ", length " + length
                    + "); use BufferPool.builder().alignmentFor(file)");
        }
    }
}
