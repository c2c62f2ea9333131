package io.github.uring4j.nio;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/** Where a channel comes from: the JDK (the reference) or uring4j's {@link UringFiles} (judged against it). */
enum Kind {
    JDK {
        @Override
        FileChannel open(Path p, Set<? extends OpenOption> o, FileAttribute<?>... a) throws IOException {
            return FileChannel.open(p, o, a);
        }

        @Override
        FileChannel open(Path p, OpenOption... o) throws IOException {
            return FileChannel.open(p, o);
        }

        @Override
        AsynchronousFileChannel openAsync(Path p, Set<? extends OpenOption> o, ExecutorService e,
                FileAttribute<?>... a) throws IOException {
            return AsynchronousFileChannel.open(p, o, e, a);
        }

        @Override
        AsynchronousFileChannel openAsync(Path p, OpenOption... o) throws IOException {
            return AsynchronousFileChannel.open(p, o);
        }
    },
    URING {
        @Override
        FileChannel open(Path p, Set<? extends OpenOption> o, FileAttribute<?>... a) throws IOException {
            return UringFiles.newFileChannel(p, o, a);
        }

        @Override
        FileChannel open(Path p, OpenOption... o) throws IOException {
            return UringFiles.newFileChannel(p, o);
        }

        @Override
        AsynchronousFileChannel openAsync(Path p, Set<? extends OpenOption> o, ExecutorService e,
                FileAttribute<?>... a) throws IOException {
            return UringFiles.newAsynchronousFileChannel(p, o, e, a);
        }

        @Override
        AsynchronousFileChannel openAsync(Path p, OpenOption... o) throws IOException {
            return UringFiles.newAsynchronousFileChannel(p, o);
        }
    };

    abstract FileChannel open(Path p, Set<? extends OpenOption> o, FileAttribute<?>... a) throws IOException;

    abstract FileChannel open(Path p, OpenOption... o) throws IOException;

    abstract AsynchronousFileChannel openAsync(Path p, Set<? extends OpenOption> o, ExecutorService e,
            FileAttribute<?>... a) throws IOException;

    abstract AsynchronousFileChannel openAsync(Path p, OpenOption... o) throws IOException;
}
