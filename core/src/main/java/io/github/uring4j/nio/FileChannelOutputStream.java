package io.github.uring4j.nio;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * {@code Files.newOutputStream} of a file (a FIFO or a device too) over a {@link FileChannel} from {@link UringFiles},
 * as the JDK's stream over its own channel: every write is written whole (at the end of the file when opened with
 * {@code APPEND}), it never seeks, and interrupts do not close the channel (see {@link Builtin.Uninterruptible}).
 */
final class FileChannelOutputStream extends OutputStream {
    private final FileChannel ch;
    /** Whether calls clear the interrupt flag around them: the channel cannot be told to ignore interrupts. */
    private final boolean shield;
    /** The last array written from and its buffer (reused by the next write from the same array). */
    private byte[] bs;
    private ByteBuffer bb;
    private byte[] b1;

    FileChannelOutputStream(FileChannel ch) {
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

    @Override
    public synchronized void write(int b) throws IOException {
        if (b1 == null) {
            b1 = new byte[1];
        }
        b1[0] = (byte) b;
        write(b1, 0, 1);
    }

    @Override
    public synchronized void write(byte[] bs, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, bs.length);
        if (len == 0) {
            return;
        }
        ByteBuffer buf = bs == this.bs ? bb : ByteBuffer.wrap(bs);
        buf.limit(off + len).position(off);
        this.bs = bs;
        bb = buf;
        boolean interrupted = shield && Thread.interrupted();
        try {
            while (buf.hasRemaining()) {
                if (ch.write(buf) <= 0) {
                    // as the JDK's stream: a blocking file channel always writes something
                    throw new RuntimeException("no bytes written");
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
