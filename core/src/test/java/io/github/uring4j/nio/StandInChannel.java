package io.github.uring4j.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;

/**
 * A file channel that is not the JDK's class, as uring4j's own is not: the JDK's channel underneath, interruptible
 * as an {@code AbstractInterruptibleChannel} is (an interrupt closes it and fails the call). {@link Ignoring} can be
 * told to ignore interrupts, as {@link Builtin.Uninterruptible} asks.
 */
class StandInChannel extends FileChannel {
    final FileChannel inner;
    volatile boolean uninterruptible;

    StandInChannel(FileChannel inner) {
        this.inner = inner;
    }

    static FileChannel standIn(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return new StandInChannel(FileChannel.open(path, options, attrs));
    }

    static FileChannel openIgnoring(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return new Ignoring(FileChannel.open(path, options, attrs));
    }

    /** The stand-in that implements {@link Builtin.Uninterruptible}. */
    static final class Ignoring extends StandInChannel implements Builtin.Uninterruptible {
        Ignoring(FileChannel inner) {
            super(inner);
        }

        @Override
        public void setUninterruptible() {
            uninterruptible = true;
        }
    }

    interface Io<T> {
        T call() throws IOException;
    }

    private <T> T io(Io<T> call) throws IOException {
        if (uninterruptible) {
            // the JDK's channel underneath would still close on an interrupt: keep the flag from it
            boolean interrupted = Thread.interrupted();
            try {
                return call.call();
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        boolean completed = false;
        try {
            begin();
            T r = call.call();
            completed = true;
            return r;
        } finally {
            end(completed);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return io(() -> inner.read(dst));
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return io(() -> inner.read(dsts, offset, length));
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return io(() -> inner.write(src));
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return io(() -> inner.write(srcs, offset, length));
    }

    @Override
    public long position() throws IOException {
        return io(inner::position);
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        io(() -> inner.position(newPosition));
        return this;
    }

    @Override
    public long size() throws IOException {
        return io(inner::size);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        io(() -> inner.truncate(size));
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        io(() -> {
            inner.force(metaData);
            return null;
        });
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return io(() -> inner.transferTo(position, count, target));
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return io(() -> inner.transferFrom(src, position, count));
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return io(() -> inner.read(dst, position));
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return io(() -> inner.write(src, position));
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return inner.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return inner.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return inner.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        inner.close();
    }
}
