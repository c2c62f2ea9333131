package io.github.uring4j.nio;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.engine.KernelCopy;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileChannel.MapMode;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * {@link UringFileChannel#transferTo} and {@link UringFileChannel#transferFrom}, as the JDK's channel makes them:
 * {@code copy_file_range} between two files of ours (large copies split over helper threads by
 * {@link KernelCopy}), the JDK's own channel on the same file when the other side is one of the JDK's, a mapping of
 * the source for other file channels, and 8 KiB steps through a buffer for everything else. The JDK's order of
 * checks, its partial results, and its interrupt rules (a thread interrupted during a transfer closes both
 * channels) hold on every path.
 */
final class ChannelTransfers {
    private ChannelTransfers() {
    }


    /** What {@link #checkJdkChannel} transfers. */
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    /**
     * The far side of a transfer, when it is one of the JDK's own channels (from {@code FileInputStream.getChannel()},
     * say): {@code NonWritableChannelException} when {@code write} and it cannot be written, or
     * {@code NonReadableChannelException} when it cannot be read. The JDK's {@code transferTo}/{@code transferFrom}
     * check that of their own channels before their arguments and before finding there is nothing to move, and the
     * answer is not visible from outside: a transfer of no bytes checks it first and moves nothing.
     */
    private static void checkJdkChannel(UringFileChannel ch, Channel other, boolean write) throws IOException {
        if (!(other instanceof FileChannel fc) || !Builtin.isJdks(fc)) {
            return;
        }
        // the JDK's channel reads a field, which an interrupt does not close: the probe is made without the
        // caller's interrupt, which is set again after
        boolean interrupted = Thread.interrupted();
        try {
            if (write) {
                fc.write(NOTHING.duplicate());
            } else {
                fc.read(NOTHING.duplicate());
            }
        } catch (ClosedChannelException e) {
            throw transferFailed(ch, e, other);
        } catch (IOException e) {

                       // not what is asked here (an O_DIRECT channel at an unaligned position): the transfer meets it if it
            // moves bytes
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static long transferTo(UringFileChannel ch, long position, long count,
            WritableByteChannel target) throws IOException {
        if (!ch.isOpen()) {
            throw new ClosedChannelException();
        }
        if (!target.isOpen()) {
            throw new ClosedChannelException();
        }
        if (!ch.readable) {
            throw new NonReadableChannelException();
        }
        if (target instanceof UringFileChannel u && !u.writable) {
            throw new NonWritableChannelException();
        }
        checkJdkChannel(ch, target, true);
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        try {
            ch.ensureOpen();
            ch.blocking(); // an interrupt the caller brings closes the channel here, as the JDK's size() does
            // not O_DIRECT: the kernel copies from an O_DIRECT descriptor, or refuses to, by its own rules, and the
            // JDK's channel on this file is not one
            FileChannel twin = ch.direct ? null : ch.jdkTwinFor(target);
            if (twin != null) {
                long n = twin.transferTo(position, count, target);
                Counters.BYTES_READ.add(n); // the JDK's channel of this file read them: counted as the drop-in's
                return n;
            }
            return transferToChecked(ch, position, count, target);
        } catch (ClosedChannelException e) {
            throw transferFailed(ch, e, target);
        }
    }

    private static long transferToChecked(UringFileChannel ch, long position, long count,
            WritableByteChannel target) throws IOException {
        long size = ch.size0();
        if (position > size) {
            return 0;
        }
        if (size == 0) {
            // as the JDK's channel: a file that says it is empty (/proc) may still have bytes; read until the end
            return transferToChannel(ch, position, count, target);
        }
        count = Math.min(count, size - position);
        if (count == 0) {
            return 0;
        }
        if (target instanceof UringFileChannel u && !u.append) { // O_DIRECT or not, as the JDK's copy_file_range
            long bytes = count; // count was bounded above: a lambda takes an effectively final copy
            long n = u.positionLock.callLong(() -> copyRange(ch, ch, position, u, -1, bytes));
            if (n >= 0) {
                return n;
            }
        }
        long n = transferToMapped(ch, position, count, target);
        return n >= 0 ? n : transferToChannel(ch, position, count, target);
    }

    /** The most one {@code copy_file_range} of a transfer between two drop-in channels copies. */
    private static final long COPY_CALL = 64L << 20;

    /** The JDK's channel maps for transfers of this many bytes or more... */
    private static final long MAPPED_TRANSFER_THRESHOLD = 16 * 1024;
    /** ... this many at a time. */
    private static final long MAPPED_TRANSFER_SIZE = 8L << 20;

    /** A file channel of ours or of the JDK, which the JDK's channel trusts with a mapping of its file. */
    private static boolean trusted(Channel c) {
        return c instanceof UringFileChannel || c instanceof FileChannel && Builtin.isJdks(c);
    }

    /**
     * A transfer the kernel did not copy, to a file channel, as the JDK's channel makes it: the source mapped, 8 MiB
     * at a time, and written from the mapping (an {@code O_DIRECT} source needs no alignment this way); a failure
     * after bytes have moved ends it with them. -1 where the JDK's channel does not map (under 16 KiB, another kind
     * of target, the channel itself).
     */
    private static long transferToMapped(UringFileChannel ch, long position, long count,
            WritableByteChannel target) throws IOException {
        if (count < MAPPED_TRANSFER_THRESHOLD || target == ch || !trusted(target)) {
            return -1;
        }
        long remaining = count;
        long at = position;
        while (remaining > 0) {
            long size = Math.min(remaining, MAPPED_TRANSFER_SIZE);
            try (Arena mapping = Arena.ofConfined()) {
                int n = target.write(ch.map(MapMode.READ_ONLY, at, size, mapping).asByteBuffer());
                remaining -= n;
                at += n;
            } catch (ClosedByInterruptException e) {
                throw e; // transferTo closes both channels, as the JDK's
            } catch (IOException e) {
                if (remaining == count) {
                    throw e;
                }
                break;
            }
        }
        return count - remaining;
    }

    /**
     * As {@link #transferToMapped}, from a file channel {@code copy_file_range} did not copy: its bytes from its
     * position mapped and written here; its position moves over what was written. -1 where the JDK's channel does not
     * map.
     */
    private static long transferFromMapped(UringFileChannel ch, ReadableByteChannel src, long position,
            long count) throws IOException {
        if (count < MAPPED_TRANSFER_THRESHOLD || !trusted(src)) {
            return -1;
        }
        FileChannel from = (FileChannel) src;
        if (from.size() == 0) {
            return -1; // files that say they are empty (/proc) may still have bytes: read them
        }
        // the source's position is read, then moved: no relative read of ours may come between (the JDK's channel
        // holds its own position lock likewise; a JDK channel's cannot be held from here)
        if (from instanceof UringFileChannel u && u != ch) {
            return u.positionLock.callLong(() -> transferFromMappedLocked(ch, from, position, count));
        }
        return transferFromMappedLocked(ch, from, position, count);
    }

    private static long transferFromMappedLocked(UringFileChannel ch, FileChannel from, long position,
            long count) throws IOException {
        long at = from.position();
        long max = Math.min(count, from.size() - at);
        if (from == ch && at < position + max && position < at + max) {
            // the source range [at, at + max) overlaps the target range [position, position + max): the JDK's channel
            // copies through a buffer (before, the target range was taken at the channel's position, which for a
            // channel that is its own source is the source's: every such transfer went to the buffer)
            return -1;
        }
        long remaining = max;
        long p = at;
        long out = position;
        while (remaining > 0) {
            long size = Math.min(remaining, MAPPED_TRANSFER_SIZE);
            try (Arena mapping = Arena.ofConfined()) {
                int n = ch.write(from.map(MapMode.READ_ONLY, p, size, mapping).asByteBuffer(), out);
                p += n;
                out += n;
                remaining -= n;
            } catch (IOException e) {
                if (remaining == max) {
                    throw e;
                }
                break;
            }
        }
        long written = Math.max(max, 0) - Math.max(remaining, 0); // none when the source is at or past its end
        from.position(at + written);
        return written;
    }

    /**
     * Bytes a transfer through a buffer moves per step: as the JDK's channel, 8 KiB. The step shows: a channel that
     * takes less than a step (a non-blocking one) ends the transfer after it, an {@code O_DIRECT} step past the end
     * is refused for its length, and a source a failed write stops has had a step's worth read from it. To a
     * socket, which the JDK's channel hands the whole count with {@code sendfile}, 64 KiB (from an {@code O_DIRECT}
     * file still 8 KiB).
     */
    private static int transferStep(UringFileChannel ch, long count, Channel other) {
        boolean whole = other instanceof java.nio.channels.SocketChannel && !ch.direct;
        return (int) Math.min(count, whole ? 64 * 1024 : TRANSFER_STEP);
    }

    /**
     * As the JDK's channel: one write of each step; a target that takes less (a non-blocking one) ends the transfer,
     * and so does a failure once bytes have moved (they are returned, the failure is not).
     */
    private static long transferToChannel(UringFileChannel ch, long position, long count,
            WritableByteChannel target) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(transferStep(ch, count, target));
        long done = 0;
        try {
            while (done < count) {
                b.clear().limit((int) Math.min(b.capacity(), count - done));
                int n = ch.read(b, position + done);
                if (n <= 0) {
                    break;
                }
                b.flip();
                int w = target.write(b);
                done += w;
                if (w != n) {
                    break;
                }
            }
            return done;
        } catch (ClosedByInterruptException e) {
            // an interrupt closed the target while it waited (a full pipe): it closes this channel too, as the JDK's
            // transfer to such a target does, whatever moved before (the count was returned, this channel left open)
            throw transferFailed(ch, e, target);
        } catch (IOException e) {
            if (done > 0) {
                return done;
            }
            throw e;
        }
    }

    static long transferFrom(UringFileChannel ch, ReadableByteChannel src, long position,
            long count) throws IOException {
        if (!ch.isOpen()) {
            throw new ClosedChannelException();
        }
        if (!src.isOpen()) {
            throw new ClosedChannelException();
        }
        if (src instanceof UringFileChannel u && !u.readable) {
            throw new NonReadableChannelException();
        }
        checkJdkChannel(ch, src, false);
        if (!ch.writable) {
            throw new NonWritableChannelException();
        }
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        try {
            ch.ensureOpen();
            if (src instanceof FileChannel) {
                ch.blocking(); // an interrupt the caller brings closes the channel here, as the JDK's copy does
            } // from another channel the JDK reads first: one that gives nothing leaves an interrupted caller's
              // channel open (its writes meet the interrupt)
            return transferFromChecked(ch, src, position, count);
        } catch (ClosedChannelException e) {
            throw transferFailed(ch, e, src);
        }
    }

    private static long transferFromChecked(UringFileChannel ch, ReadableByteChannel src, long position,
            long count) throws IOException {
        // As the JDK's channel, from a file channel that says it has bytes (and not in append mode): copy_file_range
        // first, O_DIRECT or not, even for no bytes at all; it checks the position before it reads anything, so a
        // transfer to a position past the largest file the file system holds fails there (EFBIG) without a byte of
        // the source consumed, and so does one of no bytes.
        if (src instanceof UringFileChannel u && !ch.append && u.size0() > 0) {
            long n = u.positionLock.callLong(() -> copyRange(ch, u, -1, ch, position, count));
            if (n >= 0) {
                return n;
            }
        } else if (!ch.append && ch.jdkTwinFor(src) instanceof FileChannel twin) {
            if (!ch.direct) {
                long n = twin.transferFrom(src, position, count);
                Counters.BYTES_WRITTEN.add(n); // the JDK's channel of this file wrote them: counted as the drop-in's
                return n;
            }
            // O_DIRECT, which the JDK's channel on this file is not: it only meets, copying nothing, what the copy
            // would meet before it reads (a position past the largest file); the transfer is made here
            twin.transferFrom(src, position, 0);
        }
        if (count == 0) {
            return 0;
        }
        long mapped = transferFromMapped(ch, src, position, count);
        if (mapped >= 0) {
            return mapped;
        }
        if (src instanceof FileChannel fc) {
            // As the JDK's channel: a file source gives what it holds past its position when the transfer begins. A
            // channel that is its own source would otherwise read the bytes it just wrote, for ever: a transfer of
            // Long.MAX_VALUE bytes from itself filled the disk. A regular file of ours at its end gives nothing and
            // is not read (an O_DIRECT one would fail on the alignment); a device that says it is empty
            // (/dev/zero) is read, as the JDK reads it, and so is a file that says it is empty (/proc: before, a
            // transfer from /proc/cpuinfo between two channels of ours copied nothing).
            long size = fc.size();
            long at = fc.position();
            long left = size - at;
            if (left > 0) {
                long n = Math.min(count, left);
                if (fc == ch && position > at && position - at < Math.min(n, TRANSFER_STEP)) {
                    return repeatedFrom(ch, at, position, n);
                }
                return bufferedFrom(ch, src, position, n);
            }
            if (src instanceof UringFileChannel u && u.regular() && (size > 0 || u.direct)) {
                return 0;
            }
        }
        return bufferedFrom(ch, src, position, count);
    }

    /** Bytes of one step of a transfer through a buffer between files ({@link #transferStep}). */
    private static final int TRANSFER_STEP = 8192;

    /**
     * {@code transferFrom} of a channel from itself onto the bytes just after its position ({@code at}), less than a
     * step further on: as the JDK's copy, which writes each byte after those before it are written, the target range
     * becomes the {@code position - at} bytes at {@code at}, over and over, {@code count} bytes of them. (Through
     * the buffer, a step read bytes the step before had not written yet: a transfer 2,737 bytes on left other bytes
     * than the JDK's; from a step further on, each step reads bytes already written, as the JDK's copy does.) The
     * channel's position moves past the bytes transferred, as a source's does.
     */
    private static long repeatedFrom(UringFileChannel ch, long at, long position, long count) throws IOException {
        int period = (int) (position - at);
        ByteBuffer first = ByteBuffer.allocate(period);
        while (first.hasRemaining()) {
            if (ch.read(first, at + first.position()) < 0) {
                throw new IOException("the file ended under the transfer"); // it held count bytes past at just now
            }
        }
        byte[] pattern = new byte[period * Math.max(1, TRANSFER_STEP / period)];
        for (int i = 0; i < pattern.length; i += period) {
            System.arraycopy(first.array(), 0, pattern, i, period);
        }
        long done = 0;
        try {
            while (done < count) {
                // each step starts at a whole number of periods, so the pattern is in phase
                int len = (int) Math.min(pattern.length, count - done);
                int w = ch.write(ByteBuffer.wrap(pattern, 0, len), position + done);
                done += w;
                if (w < len) {
                    break;
                }
            }
        } catch (IOException e) {
            if (done == 0) {
                throw e;
            }
            // as the JDK's channel: what moved is returned, the failure is not
        }
        ch.position(at + done);
        return done;
    }

    /** {@code transferFrom} through a heap buffer: reads of {@code src} until {@code count} or its end. */
    private static long bufferedFrom(UringFileChannel ch, ReadableByteChannel src, long position, long count)
            throws IOException {
        ByteBuffer b = ByteBuffer.allocate(transferStep(ch, count, null));
        long done = 0;
        while (done < count) {
            b.clear().limit((int) Math.min(b.capacity(), count - done));
            int n;
            try {
                n = src.read(b);
            } catch (IOException e) {
                if (done > 0) {
                    return done; // as the JDK's channel: what moved is returned, a read's failure after it is not
                }
                throw e;
            }
            if (n <= 0) {
                break;
            }
            b.flip();
            int w;
            try {
                w = ch.write(b, position + done);
            } catch (IOException | RuntimeException e) {
                giveBack(src, b.remaining(), e);
                if (done > 0 && e instanceof IOException) {
                    return done; // as the JDK's channel: what moved is returned, the failure is not
                }
                throw e;
            }
            done += w;
            if (w != n) {
                giveBack(src, n - w, null);
                break;
            }
        }
        return done;
    }

    /**
     * A write of bytes read from {@code src} failed: a {@code FileChannel} source gets them back (its position moves
     * back over them), so a failed transfer consumes only what it wrote; other channels cannot take bytes back.
     */
    private static void giveBack(ReadableByteChannel src, int unwritten, Exception failure) {
        if (unwritten > 0 && src instanceof FileChannel fc) {
            try {
                fc.position(fc.position() - unwritten);
            } catch (IOException | RuntimeException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    /**
     * A transfer met a closed channel: as the JDK's, an interrupted caller (one whose interrupt closed a channel, or
     * is pending) closes the channel and {@code other} and gets {@code ClosedByInterruptException}; otherwise one of
     * them was closed meanwhile, {@code AsynchronousCloseException}.
     */
    private static AsynchronousCloseException transferFailed(UringFileChannel ch, ClosedChannelException e,
            Channel other) {
        ClosedByInterruptException interrupted =
                e instanceof ClosedByInterruptException c ? c
                        : !ch.uninterruptible && Thread.currentThread().isInterrupted()
                                ? new ClosedByInterruptException() : null;
        if (interrupted != null) {
            for (Channel each : new Channel[] {ch, other}) {
                try {
                    each.close();
                } catch (IOException | RuntimeException closing) {
                    interrupted.addSuppressed(closing);
                }
            }
            return interrupted;
        }
        if (e instanceof AsynchronousCloseException a) {
            return a;
        }
        AsynchronousCloseException a = new AsynchronousCloseException();
        a.addSuppressed(e);
        return a;
    }

    /**
     * Copies of a virtual thread at least this long are made on a platform thread ({@link #copyRange}), unless every
     * page of the source is in the page cache and the copy is at most {@link #CACHED_COPY_MAX}.
     */
    private static final long OFF_CARRIER_COPY = 64 * 1024;
    /**
     * The longest copy of cached pages a virtual thread makes on its carrier: a millisecond or two of copying, as
     * the JDK's channel makes every copy. Beyond it the hand-off to a platform thread (tens of microseconds on a VM,
     * where both threads wake from idle) is a few percent of the copy.
     */
    private static final long CACHED_COPY_MAX = 8L << 20;

    /**
     * {@code copy_file_range} from {@code in} at {@code inPos} to {@code out} at {@code outPos} ({@code -1}: at and
     * advancing the file position); -1 when the kernel cannot copy between these files (the caller copies). As the
     * JDK's, a copy is a blocking operation of {@code caller} (the channel whose method was called): a thread
     * interrupted while it copies closes that channel, and gets {@code ClosedByInterruptException} once the copy has
     * ended ({@link #transferFailed} closes the other).
     */
    private static long copyRange(UringFileChannel caller, UringFileChannel in, long inPos, UringFileChannel out,
            long outPos, long count) throws IOException {
        boolean interruptible = !caller.uninterruptibleForWait();
        boolean completed = false;
        if (interruptible) {
            caller.beginBlocking();
        }
        try {
            // A virtual thread's copy of more than a little may read the source from the device, for seconds: a
            // platform thread makes it while the carrier runs others. A copy of cached pages is made here, as the
            // JDK's channel makes it (the hand-off cost a 64 KiB copy of cached pages nine tenths of its rate), unless
            // the kernel makes writers wait (CarrierStalls), and it is timed as a write is.
            long n;
            int route;
            if (count < OFF_CARRIER_COPY || !Thread.currentThread().isVirtual()) {
                n = copyRangeNow(in, inPos, out, outPos, count);
            } else if ((route = CarrierStalls.route()) != CarrierStalls.OFF && sourceCached(in, inPos, count)) {
                long t0 = System.nanoTime();
                try {
                    n = copyRangeNow(in, inPos, out, outPos, count);
                } finally {
                    CarrierStalls.ended(t0, count, route == CarrierStalls.PROBE);
                }
            } else {
                n = CarrierStalls.offCarrier(() -> copyRangeNow(in, inPos, out, outPos, count));
            }
            completed = true;
            return n;
        } finally {
            if (interruptible) {
                caller.endBlocking(completed);
            }
        }
    }

    /**
     * True when {@code cachestat} (Linux 6.5) says that every page of the at most {@link #CACHED_COPY_MAX} bytes a copy
     * of {@code count} bytes from {@code in} at {@code inPos} ({@code -1}: its position) reads, up to the end of the
     * file, is in the page cache; false when it cannot say (an older kernel) or a page is missing. A copy at a
     * position is a {@code transferTo}, which has cut its count at the end of the file already.
     */
    private static boolean sourceCached(UringFileChannel in, long inPos, long count) throws IOException {
        long at = inPos >= 0 ? inPos : in.position0();
        long length = inPos >= 0 ? count : Math.min(count, in.size0() - at);
        if (length <= 0) {
            return true; // nothing to read: the call only says so
        }
        if (length > CACHED_COPY_MAX) {
            return false;
        }
        long pages = (at + length + 4095) / 4096 - at / 4096;
        Call c = Call.get();
        try {
            c.offsets.set(JAVA_LONG, 0, at);
            c.offsets.set(JAVA_LONG, 8, length);
            in.enterOrThrow();
            int r;
            try {
                r = LeanCalls.cachestat(c.capture, in.fd, c.offsets, c.statx);
            } finally {
                in.leave();
            }
            return r == 0 && c.statx.get(JAVA_LONG, 0) >= pages;
        } finally {
            c.release();
        }
    }

    private static long copyRangeNow(UringFileChannel in, long inPos, UringFileChannel out, long outPos, long count)
            throws IOException {
        Call c = Call.get();
        try {
            in.enterOrThrow();
            try {
                out.enterOrThrow();
                try {
                    long done = bigCopy(c, in, inPos, out, outPos, count);
                    while (true) { // one call even for nothing (and again after EINTR)
                        if (done > 0 && (!in.isOpen() || !out.isOpen())) {
                            break; // the pieces stopped for a close
                        }
                        MemorySegment inOff = inPos < 0 ? MemorySegment.NULL : c.offsets.asSlice(0, 8);
                        MemorySegment outOff = outPos < 0 ? MemorySegment.NULL : c.offsets.asSlice(8, 8);
                        if (inPos >= 0) {
                            inOff.set(JAVA_LONG, 0, inPos + done);
                        }
                        if (outPos >= 0) {
                            outOff.set(JAVA_LONG, 0, outPos + done);
                        }
                        long ask = Math.min(count - done, COPY_CALL);
                        long n = LeanCalls.copyFileRange(c.capture, in.fd, inOff, out.fd, outOff, ask);
                        Counters.CALLER_CALLS.increment();
                        if (n == -Errno.EINTR) {
                            continue;
                        }
                        if (n < 0) {
                            if (done == 0 && (n == -Errno.EXDEV || n == -Errno.EINVAL || n == -Errno.ENOSYS
                                    || n == -Errno.EOPNOTSUPP || n == -Errno.EBADF)) {
                                return -1;
                            }
                            if (done > 0) {
                                break;
                            }
                            throw JdkErrors.io((int) -n);
                        }
                        if (n == 0) {
                            if (done == 0 && (in.direct || out.direct)) {
                                // the kernel copies nothing of an O_DIRECT file it cannot align, without an error:
                                // the caller copies (and says EOF, or what is wrong, itself)
                                return -1;
                            }
                            break;
                        }
                        done += n;
                        // A call that copied less than asked ends the transfer, as the JDK's one call does: XFS
                        // clones the whole blocks of a range and says so, leaving the rest to the caller's next
                        // transfer. The calls are of at most COPY_CALL bytes, so that a close (or an interrupt, which
                        // closes) waits for one of them, not for the whole copy: it ends the transfer with the bytes
                        // copied, as the JDK's close, whose signal cuts its one call short, does.
                        if (n < ask || done >= count || !in.isOpen() || !out.isOpen()) {
                            break;
                        }
                    }
                    Counters.KERNEL_COPIES.increment();
                    Counters.BYTES_READ.add(done);
                    Counters.BYTES_WRITTEN.add(done);
                    return done;
                } finally {
                    out.leave();
                }
            } finally {
                in.leave();
            }
        } finally {
            c.release();
        }
    }

    /**
     * A large copy in pieces on several threads at once ({@link KernelCopy}), at explicit offsets; a file position
     * the copy is to use ({@code -1}) is read first and moved past what was copied after. The bytes copied without a
     * gap (0 when the copy is small, or within one file, or a file position cannot be read): the caller's loop goes on
     * from there, and meets again whatever stopped the pieces. Both channels are entered by the caller, who holds
     * them until the helpers are done.
     */
    private static long bigCopy(Call c, UringFileChannel in, long inPos, UringFileChannel out, long outPos,
            long count) throws IOException {
        if (!KernelCopy.splits(count)) {
            return 0;
        }
        long inAt = inPos >= 0 ? inPos : LeanCalls.lseek(c.capture, in.fd, 0, Uapi.SEEK_CUR);
        long outAt = outPos >= 0 ? outPos : LeanCalls.lseek(c.capture, out.fd, 0, Uapi.SEEK_CUR);
        if (inAt < 0 || outAt < 0) {
            return 0;
        }
        // no piece taken once either channel is closing (a close, an interrupt), which waits for the pieces copying
        KernelCopy.Result r = KernelCopy.copy(in.fd, inAt, out.fd, outAt, count, () -> !in.isOpen() || !out.isOpen());
        if (r == null) {
            return 0;
        }
        Counters.CALLER_CALLS.add(r.calls());
        long done = r.copied();
        // the loop after goes on at the file positions: they must say where the pieces stopped
        long r1 = inPos < 0 ? LeanCalls.lseek(c.capture, in.fd, inAt + done, Uapi.SEEK_SET) : 0;
        long r2 = outPos < 0 ? LeanCalls.lseek(c.capture, out.fd, outAt + done, Uapi.SEEK_SET) : 0;
        if (r1 < 0 || r2 < 0) {
            throw JdkErrors.io((int) -Math.min(r1, r2));
        }
        return done;
    }
}
