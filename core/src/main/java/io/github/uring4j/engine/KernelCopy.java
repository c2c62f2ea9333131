package io.github.uring4j.engine;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.StatxBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A large {@code copy_file_range} copy from the device made by several threads at once, each copying the next
 * {@link #PIECE} of the range at its own offsets: the calling thread and up to {@link #STREAMS}{@code - 1} helpers.
 * One call copies a piece at a time and waits for each read of the source from the device; several keep the device
 * busy. A source that is mostly in the page cache is not split (the copy is then bound by the CPU's memory copy
 * and the target's inode lock, and splitting it bought nothing), nor one whose first piece, copied by the caller
 * alone, used the CPU more than it waited for the device. Measured on the development machine (2 cores, virtio
 * disk), a 256 MiB file, five copies each, median (range): from the device, one thread 1.35 GB/s (0.85–1.54), two
 * 1.33 (1.31–1.64), four 1.57 (1.49–1.68); from the page cache, one 3.06 (2.21–3.42), two 2.98 (2.52–3.42), four
 * 2.92 (2.51–3.15). On a host of the same kind whose disk read faster, eight copies from the device each: one
 * thread 2.79, two 2.46, four 2.48, the JDK's single call 2.87; the first piece's thread was on the CPU 64–71% of
 * its time there, so that host now copies on one thread.
 *
 * <p>The helpers use the caller's descriptors: {@link #copy} returns only when every helper has stopped, even when
 * the caller is interrupted (its interrupt status is kept), so a caller that holds the descriptors open for the call
 * holds them for the helpers too. The result counts the bytes copied from the start of the range without a gap. A
 * copy is split only where it grows the target (it starts at or past the target's end); one that stops early (a full
 * disk, an error) truncates the target back to the bytes it reports, so that, as after one {@code copy_file_range}
 * that stopped there, nothing past them was written.
 */
public final class KernelCopy {
    /** What one thread copies before it takes the next piece. */
    public static final long PIECE = 32L << 20;
    /** Threads copying at once, the caller's included: the device wants depth more than the copy wants cores. */
    public static final int STREAMS = 4;
    /** A source with at least this share of the range's pages in the page cache is copied whole. */
    static final double CACHED = 0.75;

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService HELPERS = Executors.newCachedThreadPool(
            r -> LibraryThreads.shared("uring4j-copy-" + THREADS.incrementAndGet(), r));

    private KernelCopy() {
    }

    /** The copy helper threads (daemons, made as needed and kept a minute): for copies that must not block a loop. */
    public static java.util.concurrent.Executor helpers() {
        return HELPERS;
    }

    /**
     * What a copy did: {@code copied} bytes from the start of the range without a gap; {@code errno} of the error
     * that stopped it there (0: none; the source ended, or all was copied); {@code calls} made.
     */
    public record Result(long copied, int errno, long calls) {
    }

    /** True when a copy of {@code count} bytes may be worth splitting: at least two pieces. */
    public static boolean splits(long count) {
        return count >= 2 * PIECE;
    }

    /**
     * Copies {@code count} bytes from {@code in} at {@code inPos} to {@code out} at {@code outPos} (neither file
     * position moves). {@code EINTR} is retried; any other error, or the source's end, stops the copy there. Null,
     * with nothing done, when the copy is not worth splitting: fewer than two pieces of the source are left from
     * {@code inPos}, or most of them are in the page cache, or both descriptors are the same file (the kernel refuses
     * overlapping ranges of one file, and pieces that happen not to overlap would copy while others are refused), or
     * the range does not start at or past the target's end, or what either file is cannot be told.
     */
    public static Result copy(int in, long inPos, int out, long outPos, long count) {
        return copy(in, inPos, out, outPos, count, () -> false);
    }

    /**
     * As {@link #copy(int, long, int, long, long)}; no thread takes another piece once {@code stopped} says true (a
     * cancelled or closed copy), and the copy then ends with {@code ECANCELED} where the first piece not taken
     * starts.
     */
    public static Result copy(int in, long inPos, int out, long outPos, long count, BooleanSupplier stopped) {
        if (in < 0 || out < 0 || inPos < 0 || outPos < 0 || count < 0) {
            throw new IllegalArgumentException("bad copy: fds " + in + ", " + out + ", positions " + inPos + ", "
                    + outPos + ", count " + count);
        }
        return splits(count) ? copy(in, inPos, out, outPos, count, PIECE, STREAMS, true, stopped) : null;
    }

    /**
     * As {@link #copy(int, long, int, long, long)}, in pieces of {@code piece} bytes on {@code streams} threads;
     * {@code judge}: a source mostly in the page cache is left whole, and one whose first piece the CPU rather than
     * the device bounded is copied by the caller alone (else the pieces are always shared out).
     */
    static Result copy(int in, long inPos, int out, long outPos, long count, long piece, int streams, boolean judge) {
        return copy(in, inPos, out, outPos, count, piece, streams, judge, () -> false);
    }

    private static Result copy(int in, long inPos, int out, long outPos, long count, long piece, int streams,
            boolean judge, BooleanSupplier stopped) {
        if (piece <= 0 || streams <= 0 || count < 0) {
            throw new IllegalArgumentException("piece " + piece + ", streams " + streams + ", count " + count);
        }
        long targetSize;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = LeanCalls.allocateCapture(a);
            MemorySegment empty = a.allocateFrom("");
            StatxBuffer src = StatxBuffer.allocate(a);
            StatxBuffer dst = StatxBuffer.allocate(a);
            int mask = Statx.STATX_INO | Statx.STATX_SIZE | Statx.STATX_TYPE;
            if (LeanCalls.statx(capture, in, empty, Uapi.AT_EMPTY_PATH, mask, src.segment()) != 0
                    || LeanCalls.statx(capture, out, empty, Uapi.AT_EMPTY_PATH, mask, dst.segment()) != 0
                    || (src.mask() & mask) != mask || (dst.mask() & mask) != mask
                    || sameFile(src.segment(), dst.segment()) || !src.isRegularFile() || !dst.isRegularFile()) {
                return null; // (a FIFO or a device: one stream of bytes, no pieces side by side)
            }
            long have = Math.min(count, Math.max(0, src.size() - inPos));
            targetSize = dst.size();
            // Only where the target grows: a copy that stops early is then undone past what it reports (below).
            if (have < 2 * piece || outPos < targetSize || judge && cached(capture, a, in, inPos, have)) {
                return null;
            }
        }
        Range r = new Range(in, inPos, out, outPos, count, piece, stopped);
        long pieces = (count + piece - 1) / piece;
        int helpers = (int) Math.min(streams - 1, Math.max(0, pieces - 1));
        if (helpers > 0 && judge && !deviceBound(r)) {
            helpers = 0;
        }
        CountDownLatch helpersDone = new CountDownLatch(helpers);
        for (int i = 0; i < helpers; i++) {
            try {
                HELPERS.execute(() -> {
                    try {
                        r.work();
                    } finally {
                        helpersDone.countDown();
                    }
                });
            } catch (RejectedExecutionException | OutOfMemoryError e) {
                helpersDone.countDown(); // no thread to be had: the others copy its share
            }
        }
        try {
            r.work();
        } finally {
            Waits.awaitUninterruptibly(helpersDone);
        }
        Result result = r.result();
        if (result.copied() < count) {
            // Pieces after the stop may have grown the target: a copy that stopped there (a full disk, say) leaves
            // it no longer than the bytes it reports, as one copy call would have.
            shrink(out, Math.max(targetSize, outPos + result.copied()));
        }
        return result;
    }

    /**
     * Copies the range's first piece on the calling thread and says whether that copy waited for the device more
     * than it used the CPU: only then do more threads help (they keep the device busy), since a copy the CPU bounds
     * only loses by them (on a host whose disk reads 2.8 GB/s, a 256 MiB copy from the device made 2.79 GB/s on one
     * thread and 2.46-2.48 on two or four, where the JDK's one call made 2.87; on a host whose disk read 1.35 GB/s,
     * four threads made 1.57). Where the thread's CPU time cannot be had, it says true.
     */
    private static boolean deviceBound(Range r) {
        long cpu0 = threadCpuNanos();
        long t0 = System.nanoTime();
        r.work(1);
        long wall = System.nanoTime() - t0;
        long cpu1 = threadCpuNanos();
        return cpu0 < 0 || cpu1 < 0 || (cpu1 - cpu0) * 2 < wall;
    }

    /**
     * The calling thread's CPU time, or -1 where the JVM cannot say: a virtual thread's, or a runtime image without
     * {@code java.management} (made with {@code jlink}), which the library runs on too.
     */
    private static long threadCpuNanos() {
        try {
            return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        } catch (UnsupportedOperationException | SecurityException | LinkageError e) {
            return -1;
        }
    }

    /** Truncates the file to {@code size} if it is longer (best effort: a failure leaves it as it is). */
    private static void shrink(int fd, long size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = LeanCalls.allocateCapture(a);
            MemorySegment st = a.allocate(Statx.LAYOUT);
            if (LeanCalls.statx(capture, fd, a.allocateFrom(""), Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE, st) == 0
                    && st.get(ValueLayout.JAVA_LONG, Statx.SIZE) > size) {
                LeanCalls.ftruncate(capture, fd, size);
            }
        } catch (RuntimeException e) {
            // the copy's result stands; the caller's own loop reports what stopped it
        }
    }

    private static boolean sameFile(MemorySegment a, MemorySegment b) {
        return a.get(ValueLayout.JAVA_LONG, Statx.INO) == b.get(ValueLayout.JAVA_LONG, Statx.INO)
                && a.get(ValueLayout.JAVA_INT, Statx.DEV_MAJOR) == b.get(ValueLayout.JAVA_INT, Statx.DEV_MAJOR)
                && a.get(ValueLayout.JAVA_INT, Statx.DEV_MINOR) == b.get(ValueLayout.JAVA_INT, Statx.DEV_MINOR);
    }

    /**
     * True when at least {@link #CACHED} of the {@code length} bytes at {@code position} are in the page cache, as
     * {@code cachestat} (Linux 6.5) counts its pages (of 4 KiB: where pages are larger the share reads low, and the
     * copy is split as if the source were on the device); false where the kernel cannot say.
     */
    private static boolean cached(MemorySegment capture, Arena a, int fd, long position, long length) {
        MemorySegment range = a.allocate(16, 8);
        range.set(ValueLayout.JAVA_LONG, 0, position);
        range.set(ValueLayout.JAVA_LONG, 8, length);
        MemorySegment stat = a.allocate(LeanCalls.CACHESTAT_SIZE, 8);
        if (LeanCalls.cachestat(capture, fd, range, stat) != 0) {
            return false;
        }
        return stat.get(ValueLayout.JAVA_LONG, 0) * 4096.0 >= CACHED * length;
    }

    /** The shared state of one copy: the next piece, and where the copy stopped. */
    private static final class Range {
        final int in;
        final long inPos;
        final int out;
        final long outPos;
        final long count;
        final long piece;
        final AtomicLong next = new AtomicLong();
        final AtomicLong calls = new AtomicLong();
        /** The first offset (from the range's start) not copied: count until a piece stops short. */
        volatile long stop;
        int errno;
        final BooleanSupplier stopped;

        Range(int in, long inPos, int out, long outPos, long count, long piece, BooleanSupplier stopped) {
            this.stopped = stopped;
            this.in = in;
            this.piece = piece;
            this.inPos = inPos;
            this.out = out;
            this.outPos = outPos;
            this.count = count;
            this.stop = count;
        }

        /**
         * Copies pieces until none is left, the copy stopped before the next, or {@code most} pieces were taken.
         * Throws nothing: whatever goes wrong (a native call that cannot be made, no memory) stops the copy where this
         * thread was, as an error would, so no piece it took is counted as copied; the caller goes on from there on
         * its own and meets the cause again.
         */
        void work() {
            work(Long.MAX_VALUE);
        }

        void work(long most) {
            long start = -1;
            long done = 0;
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = LeanCalls.allocateCapture(a);
                MemorySegment offsets = a.allocate(16, 8);
                for (long taken = 0; taken < most && (start = next.getAndAdd(piece)) < stop; taken++) {
                    if (stopped.getAsBoolean()) {
                        stopAt(start, Errno.ECANCELED);
                        return;
                    }
                    long len = Math.min(piece, count - start);
                    done = 0;
                    while (done < len) {
                        offsets.set(ValueLayout.JAVA_LONG, 0, inPos + start + done);
                        offsets.set(ValueLayout.JAVA_LONG, 8, outPos + start + done);
                        long n = LeanCalls.copyFileRange(capture, in, offsets.asSlice(0, 8), out,
                                offsets.asSlice(8, 8), len - done);
                        calls.incrementAndGet();
                        if (n == -Errno.EINTR) {
                            continue;
                        }
                        if (n <= 0) {
                            stopAt(start + done, n == 0 ? 0 : (int) -n);
                            return;
                        }
                        done += n;
                    }
                }
            } catch (Throwable t) {
                // a piece was taken (start < count) and not finished, or none was and nothing is lost
                if (start >= 0 && start < count) {
                    stopAt(start + done, Errno.EIO);
                }
            }
        }

        synchronized void stopAt(long at, int error) {
            if (at < stop) {
                stop = at;
                errno = error;
            }
        }

        synchronized Result result() {
            return new Result(stop, errno, calls.get());
        }
    }
}
