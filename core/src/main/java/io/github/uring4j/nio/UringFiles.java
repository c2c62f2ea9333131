package io.github.uring4j.nio;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * The JDK's file channels on io_uring without installing a provider: each method takes what the JDK's method of
 * the same name takes and returns a channel with the JDK's semantics.
 */
public final class UringFiles {
    private UringFiles() {
    }

    /** As {@link FileChannel#open(Path, OpenOption...)}. */
    public static FileChannel newFileChannel(Path path, OpenOption... options) throws IOException {
        Objects.requireNonNull(options, "options");
        return newFileChannel(path, Set.of(options));
    }

    /** As {@link FileChannel#open(Path, Set, FileAttribute...)}. */
    public static FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        Objects.requireNonNull(path, "path");
        return Builtin.provider().newFileChannel(Builtin.path(path), options, attrs);
    }

    /** As {@link AsynchronousFileChannel#open(Path, OpenOption...)}. */
    public static AsynchronousFileChannel newAsynchronousFileChannel(Path path, OpenOption... options)
            throws IOException {
        Objects.requireNonNull(options, "options");
        return newAsynchronousFileChannel(path, Set.of(options), null);
    }

    /** As {@link AsynchronousFileChannel#open(Path, Set, ExecutorService, FileAttribute...)}. */
    public static AsynchronousFileChannel newAsynchronousFileChannel(Path path, Set<? extends OpenOption> options,
            ExecutorService executor, FileAttribute<?>... attrs) throws IOException {
        Objects.requireNonNull(path, "path");
        return Builtin.provider().newAsynchronousFileChannel(Builtin.path(path), options, executor, attrs);
    }
}
