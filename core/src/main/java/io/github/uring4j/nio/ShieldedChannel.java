package io.github.uring4j.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;

/**
 * The channel {@code Files.readAllBytes} (and {@code readString}) reads through when the channel from
 * {@link UringFiles} cannot be told to ignore interrupts (see {@link Builtin.Uninterruptible}): each call runs with
 * the caller's interrupt flag cleared and set again after, as the JDK's uninterruptible channel behaves for a
 * thread interrupted before the call.
 */
final class ShieldedChannel implements SeekableByteChannel {
    private final FileChannel ch;

    ShieldedChannel(FileChannel ch) {
        this.ch = ch;
    }

    private static void restore(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            return ch.read(dst);
        } finally {
            restore(interrupted);
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            return ch.write(src);
        } finally {
            restore(interrupted);
        }
    }

    @Override
    public long position() throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            return ch.position();
        } finally {
            restore(interrupted);
        }
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            ch.position(newPosition);
            return this;
        } finally {
            restore(interrupted);
        }
    }

    @Override
    public long size() throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            return ch.size();
        } finally {
            restore(interrupted);
        }
    }

    @Override
    public SeekableByteChannel truncate(long size) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            ch.truncate(size);
            return this;
        } finally {
            restore(interrupted);
        }
    }

    @Override
    public boolean isOpen() {
        return ch.isOpen();
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}
