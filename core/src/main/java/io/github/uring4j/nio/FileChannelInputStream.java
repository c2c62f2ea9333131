package io.github.uring4j.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@code Files.newInputStream} of a regular file over a {@link FileChannel} from {@link UringFiles}, with what the
 * JDK's stream over its own channel does: {@code skip}, {@code available}, {@code readAllBytes} and
 * {@code readNBytes} use the channel's position and size, {@code transferTo} another such stream uses
 * {@link FileChannel#transferTo}, and interrupts do not close the channel (see {@link Builtin.Uninterruptible}).
 * <p>
 * Over a uring4j channel it asks the channel what the file is: of a FIFO, a device or {@code /dev/stdin} it reads on
 * without seeking, as the JDK's stream does ({@code skip} reads past the bytes, {@code available} says 0). Over
 * another channel it takes the file for a regular one: the provider opens such streams only for regular files.
 */
final class FileChannelInputStream extends InputStream {
    /** The least array a growing {@code readAllBytes} moves to, as {@code InputStream}'s buffer size. */
    private static final int MIN_CAPACITY = 16384;
    /** The largest array the JDK will try to allocate. */
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;

    private final FileChannel ch;
    /** Whether calls clear the interrupt flag around them: the channel cannot be told to ignore interrupts. */
    private final boolean shield;
    /** The last array read into and its buffer (reused by the next read into the same array). */
    private byte[] bs;
    private ByteBuffer bb;
    private byte[] b1;
    /** Whether the file is something other than a regular file or a directory: null until asked. */
    private Boolean other;

    FileChannelInputStream(FileChannel ch) {
        this.ch = ch;
        if (ch instanceof Builtin.Uninterruptible u) {
            u.setUninterruptible();
            shield = false;
        } else {
            shield = true;
        }
    }

    FileChannel channel() {
        return ch;
    }

    /** Whether the file cannot be seeked (a FIFO, a device, a socket), as far as the channel can tell. */
    private boolean other() {
        Boolean o = other;
        if (o == null) {
            other = o = ch instanceof UringFileChannel u && !u.regular();
        }
        return o;
    }

    private boolean clearInterrupt() {
        return shield && Thread.interrupted();
    }

    private static void restoreInterrupt(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private int read(ByteBuffer dst) throws IOException {
        boolean interrupted = clearInterrupt();
        try {
            return ch.read(dst);
        } finally {
            restoreInterrupt(interrupted);
        }
    }

    private long size() throws IOException {
        boolean interrupted = clearInterrupt();
        try {
            return ch.size();
        } finally {
            restoreInterrupt(interrupted);
        }
    }

    private long position() throws IOException {
        boolean interrupted = clearInterrupt();
        try {
            return ch.position();
        } finally {
            restoreInterrupt(interrupted);
        }
    }

    private void position(long newPosition) throws IOException {
        boolean interrupted = clearInterrupt();
        try {
            ch.position(newPosition);
        } finally {
            restoreInterrupt(interrupted);
        }
    }

    @Override
    public synchronized int read() throws IOException {
        if (b1 == null) {
            b1 = new byte[1];
        }
        int n = read(b1, 0, 1);
        return n == 1 ? b1[0] & 0xff : -1;
    }

    @Override
    public synchronized int read(byte[] bs, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, bs.length);
        if (len == 0) {
            return 0;
        }
        ByteBuffer buf = bs == this.bs ? bb : ByteBuffer.wrap(bs);
        buf.limit(off + len).position(off);
        this.bs = bs;
        bb = buf;
        return read(buf);
    }

    /** Reads into an array of the remaining size at once, then on to the end if the file grew meanwhile. */
    @Override
    public byte[] readAllBytes() throws IOException {
        if (other()) {
            return super.readAllBytes();
        }
        long length = size();
        long position = position();
        long remaining = length - position;
        if (length <= 0 || remaining <= 0) {
            return super.readAllBytes();
        }
        if (remaining > Integer.MAX_VALUE) {
            // the JDK's stream's words
            throw new OutOfMemoryError("Required array size too large: " + remaining + " = " + length + " - "
                    + position);
        }
        int capacity = (int) remaining;
        byte[] buf = new byte[capacity];
        int nread = 0;
        for (;;) {
            int n;
            while ((n = read(buf, nread, capacity - nread)) > 0) {
                nread += n;
            }
            if (n < 0 || (n = read()) < 0) {
                break;
            }
            // the file grew: one more byte was there
            int grown = (int) Math.min(MAX_CAPACITY, Math.max((long) capacity * 2, MIN_CAPACITY));
            if (grown <= capacity) {
                throw new OutOfMemoryError("Required array size too large");
            }
            capacity = grown;
            buf = Arrays.copyOf(buf, capacity);
            buf[nread++] = (byte) n;
        }
        return capacity == nread ? buf : Arrays.copyOf(buf, nread);
    }

    @Override
    public byte[] readNBytes(int len) throws IOException {
        if (len < 0) {
            throw new IllegalArgumentException("len < 0");
        }
        if (len == 0) {
            return new byte[0];
        }
        if (other()) {
            return super.readNBytes(len);
        }
        long length = size();
        long remaining = length - position();
        if (length <= 0 || remaining <= 0) {
            return super.readNBytes(len);
        }
        int capacity = (int) Math.min(len, remaining);
        byte[] buf = new byte[capacity];
        int nread = 0;
        while (nread < capacity) {
            int n = read(buf, nread, capacity - nread);
            if (n < 0) {
                break;
            }
            nread += n;
        }
        return capacity == nread ? buf : Arrays.copyOf(buf, nread);
    }

    /**
     * The bytes between the position and the end of the file, at most {@code Integer.MAX_VALUE}; of a FIFO, device
     * or socket 0, as the JDK's stream answers (it does not count what a pipe holds).
     */
    @Override
    public int available() throws IOException {
        if (other()) {
            ((UringFileChannel) ch).ensureOpen();
            return 0;
        }
        long remaining = Math.max(0, size() - position());
        return (int) Math.min(remaining, Integer.MAX_VALUE);
    }

    /** Moves the position, no further than the end of the file and no further back than its start. */
    @Override
    public synchronized long skip(long n) throws IOException {
        if (other()) {
            return super.skip(n);
        }
        long pos = position();
        long newPos;
        if (n > 0) {
            newPos = pos + n;
            long size = size();
            if (newPos < 0 || newPos > size) {
                newPos = size;
            }
        } else {
            newPos = Math.max(pos + n, 0);
        }
        position(newPos);
        return newPos - pos;
    }

    /**
     * To another of the provider's output streams with {@link FileChannel#transferTo}, from this stream's position
     * to the end of the file, leaving the position at the end; to any other stream as {@code InputStream} does.
     */
    @Override
    public long transferTo(OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        if (!(out instanceof FileChannelOutputStream target) || other()) {
            return super.transferTo(out);
        }
        boolean interrupted = clearInterrupt();
        try {
            long start = ch.position();
            long pos = start;
            try {
                while (pos < ch.size()) {
                    pos += ch.transferTo(pos, Long.MAX_VALUE, target.channel());
                }
            } finally {
                ch.position(pos);
            }
            return pos - start;
        } finally {
            restoreInterrupt(interrupted);
        }
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
