package io.github.uring4j.engine.threads;

import io.github.uring4j.engine.ErrorMapper;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.Rules;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;

/**
 * The calls through the JDK's own {@link FileChannel}, for a JVM that denies uring4j native access
 * ({@code --illegal-native-access=deny} without {@code --enable-native-access}): everything works, at the JDK's
 * speed. Memory is reached through the request's buffers, never through a raw address. What the JDK cannot do is
 * approximated and said so: {@code allocate} extends the file without reserving blocks, {@code advise} does
 * nothing, {@code syncRange} forces the data. A FIFO's reads and writes are the channel's relative ones, whatever
 * position they name (the JDK's positional calls fail on it with "Illegal seek"; the kernel's at offset -1 move the
 * bytes, as the other backends do); its open waits in {@code open(2)} for the other end, as the JDK's does, and
 * neither a cancel nor a close ends that wait (a close tells the caller after its bounded wait). The same holds for
 * a read of an empty FIFO: the JDK has no way to wait for bytes without taking them, so a read that timed out or was
 * cancelled still takes the next bytes written, and they reach nobody (with native access, {@link NativeCalls}
 * loses none).
 */
final class JdkCalls implements Calls {
    private static final OpenOption DIRECT = directOption();

    private final ErrorMapper errors;

    JdkCalls(ErrorMapper errors) {
        this.errors = errors;
    }

    /** {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, where the JDK has it. */
    private static OpenOption directOption() {
        try {
            Class<?> c = Class.forName("com.sun.nio.file.ExtendedOpenOption");
            for (Object o : c.getEnumConstants()) {
                if (o.toString().equals("DIRECT")) {
                    return (OpenOption) o;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // not in this runtime
        }
        return null;
    }

    @Override
    public ThreadsFile open(ThreadsBackend backend, Request r) throws IOException {
        OpenSpec spec = r.open;
        int flags = spec.flags();
        Set<OpenOption> opts = new HashSet<>();
        if (spec.readable()) {
            opts.add(StandardOpenOption.READ);
        }
        if (spec.writable()) {
            opts.add(StandardOpenOption.WRITE);
        }
        if ((flags & Uapi.O_CREAT) != 0) {
            opts.add((flags & Uapi.O_EXCL) != 0 ? StandardOpenOption.CREATE_NEW : StandardOpenOption.CREATE);
        }
        if ((flags & Uapi.O_TRUNC) != 0) {
            opts.add(StandardOpenOption.TRUNCATE_EXISTING);
        }
        if ((flags & Uapi.O_SYNC) == Uapi.O_SYNC) {
            opts.add(StandardOpenOption.SYNC);
        } else if ((flags & Uapi.O_DSYNC) != 0) {
            opts.add(StandardOpenOption.DSYNC);
        }
        if ((flags & Uapi.O_NOFOLLOW) != 0) {
            opts.add(LinkOption.NOFOLLOW_LINKS);
        }
        if (spec.direct()) {
            if (DIRECT == null) {
                throw new UnsupportedOperationException("O_DIRECT without native access needs the JDK's"
                        + " ExtendedOpenOption.DIRECT, which this runtime lacks");
            }
            opts.add(DIRECT);
        }
        // The built-in provider's path: a provider installed over it must not route this back to uring4j.
        java.nio.file.spi.FileSystemProvider provider = FileSystems.getDefault().provider();
        java.nio.file.Path path = FileSystems.getDefault().getPath(spec.path());
        FileChannel ch = provider.newFileChannel(path, opts);
        ThreadsFile f = new ThreadsFile(backend, spec, -1, ch, 4096, 4096);
        try {
            f.fifo = isFifo(provider, path, (flags & Uapi.O_NOFOLLOW) != 0);
        } catch (IOException e) {
            // the name is gone or replaced since the open: the descriptor is what counts, and its calls say what they
            // find (a FIFO renamed away in between would answer "Illegal seek")
        }
        if (f.fifo && spec.readable() && spec.writable()) {
            // The channel's relative read and write share one lock: a read waiting for bytes would hold back the
            // write that brings them, for ever. Writes go through a second descriptor of the same FIFO (opened
            // read-write, it waits for no one and changes nothing for the other end: this file is a writer already).
            try {
                Set<OpenOption> rw = new HashSet<>(Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
                if ((flags & Uapi.O_NOFOLLOW) != 0) {
                    rw.add(LinkOption.NOFOLLOW_LINKS);
                }
                f.fifoWriter = provider.newFileChannel(path, rw);
            } catch (IOException e) {
                // the name is gone since the open: writes share the channel, and wait for a pending read
            }
        }
        return f;
    }

    /** Whether {@code path}, just opened, is a FIFO (its type from the {@code unix:mode} the JDK reads). */
    private static boolean isFifo(java.nio.file.spi.FileSystemProvider provider, java.nio.file.Path path,
            boolean noFollow) throws IOException {
        LinkOption[] links = noFollow ? new LinkOption[] {LinkOption.NOFOLLOW_LINKS} : new LinkOption[0];
        Object mode = provider.readAttributes(path, "unix:mode", links).get("mode");
        return mode instanceof Integer m && (m & S_IFMT) == S_IFIFO;
    }

    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;

    /** The memory of the request's current chunk, as a buffer positioned on it. */
    private static ByteBuffer chunk(Request r) {
        if (r.bounce != null) {
            return r.bounce.asSlice(r.done, r.length).asByteBuffer();
        }
        if (r.keep instanceof ByteBuffer b) {
            int from = b.position() + (int) r.done;
            return b.duplicate().limit(from + r.length).position(from);
        }
        return ((MemorySegment) r.keep).asSlice(r.done, r.length).asByteBuffer();
    }

    @Override
    public long transfer(Task t, ThreadsFile f) throws Throwable {
        Request r = t.request;
        boolean read = r.kind == Request.READ || r.kind == Request.READ_FILE;
        if (f.fifo) {
            r.untilEnd = false; // a whole-file read of a FIFO reads once
        }
        while (true) {
            ByteBuffer b = chunk(r);
            int n;
            try {
                n = f.fifo ? (read ? f.channel.read(b) : f.fifoWriter().write(b))
                        : read ? f.channel.read(b, r.position) : f.channel.write(b, r.position);
            } catch (IOException e) {
                if (Rules.partial(r) && e.getClass() == IOException.class) {
                    // the JDK's words, and what the other backends say after a full transfer's first pieces moved
                    throw new IOException(e.getMessage() + " (" + r.name() + " of " + r.pathForErrors() + " at "
                            + r.position + ", after the first " + r.done + " of its " + (r.done + r.length) + " bytes "
                            + (read ? "were read" : "were written") + ")", e);
                }
                throw e;
            }
            long v = Rules.afterChunk(r, Math.max(0, n), errors);
            if (v != Rules.MORE) {
                if (r.kind == Request.WRITE_SYNC) {
                    t.backend.wroteBeforeSync(t, f);
                    try {
                        f.channel.force(false);
                    } catch (ClosedChannelException e) {
                        throw e;
                    } catch (IOException e) {
                        throw new IOException("FDATASYNC after a WRITE of " + r.done + " bytes of "
                                + r.pathForErrors() + " failed: " + e.getMessage(), e);
                    }
                }
                return v;
            }
        }
    }

    @Override
    public long vector(Task t, ThreadsFile f) throws Throwable {
        Request r = t.request;
        long total = 0;
        for (ByteBuffer b : r.advanceAll) {
            ByteBuffer d = b.duplicate();
            int want = d.remaining();
            long at = r.position + total;
            int n = f.fifo ? (r.kind == Request.READV ? f.channel.read(d) : f.fifoWriter().write(d))
                    : r.kind == Request.READV ? f.channel.read(d, at) : f.channel.write(d, at);
            if (n <= 0) {
                break;
            }
            total += n;
            if (n < want) {
                break;
            }
        }
        return Rules.afterVector(r, total);
    }

    @Override
    public long other(Request r, ThreadsFile f) throws Throwable {
        FileChannel ch = f.channel;
        switch (r.kind) {
            case Request.FSYNC -> ch.force(r.metaData);
            case Request.SIZE -> {
                return ch.size();
            }
            case Request.TRUNCATE -> {
                long size = ch.size();
                if (r.arg < size) {
                    ch.truncate(r.arg);
                } else if (r.arg > size) {
                    ch.write(ByteBuffer.allocate(1), r.arg - 1); // extends with zeros, as ftruncate does
                }
            }
            case Request.ALLOCATE -> {
                long end = r.position + r.arg;
                if (end > ch.size()) {
                    ch.write(ByteBuffer.allocate(1), end - 1); // grows the file; blocks are not reserved
                }
            }
            case Request.ADVISE -> {
                // the JDK has no posix_fadvise: advice is only a hint
            }
            case Request.SYNC_RANGE -> ch.force(false);
            default -> throw new IllegalStateException("request kind " + r.kind);
        }
        return 0;
    }

    @Override
    public IOException close(ThreadsFile f) {
        IOException failure = null;
        if (f.fifoWriter != null) {
            try {
                f.fifoWriter.close();
            } catch (IOException e) {
                failure = e;
            }
        }
        try {
            f.channel.close();
            return failure;
        } catch (IOException e) {
            return e;
        }
    }
}
