package io.github.uring4j.file;

import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.linux.Uapi;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Set;

/** {@link AsyncFile#open} options to {@code open(2)} flags, with the JDK's meaning of each option. */
final class OpenOptions {
    private OpenOptions() {
    }

    static OpenSpec parse(Path path, Set<? extends OpenOption> options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        if (path.getFileSystem() != FileSystems.getDefault()) {
            throw new IllegalArgumentException("not a file of the default file system: " + path);
        }
        boolean read = false;
        boolean write = false;
        boolean create = false;
        boolean createNew = false;
        boolean truncate = false;
        boolean deleteOnClose = false;
        int extra = Uapi.O_CLOEXEC;
        boolean direct = false;
        boolean registered = false;
        for (OpenOption o : options) {
            if (o instanceof StandardOpenOption s) {
                switch (s) {
                    case READ -> read = true;
                    case WRITE -> write = true;
                    case CREATE -> create = true;
                    case CREATE_NEW -> createNew = true;
                    case TRUNCATE_EXISTING -> truncate = true;
                    case DELETE_ON_CLOSE -> deleteOnClose = true;
                    case SPARSE -> {
                        // a hint; Linux files are sparse anyway
                    }
                    case SYNC -> extra |= Uapi.O_SYNC;
                    case DSYNC -> extra |= Uapi.O_DSYNC;
                    case APPEND -> throw new UnsupportedOperationException(
                            "APPEND: asynchronous writes are positional; write at size() instead");
                    default -> throw new UnsupportedOperationException(s.toString());
                }
            } else if (o == LinkOption.NOFOLLOW_LINKS) {
                extra |= Uapi.O_NOFOLLOW;
            } else if (OpenSpec.isJdkDirect(o)) { // the JDK's name for FileOption.DIRECT
                extra |= Uapi.O_DIRECT;
                direct = true;
            } else if (o instanceof FileOption f) {
                switch (f) {
                    case DIRECT -> {
                        extra |= Uapi.O_DIRECT;
                        direct = true;
                    }
                    case DSYNC -> extra |= Uapi.O_DSYNC;
                    case NOATIME -> extra |= Uapi.O_NOATIME;
                    case REGISTERED -> registered = true;
                    default -> throw new UnsupportedOperationException(f.toString());
                }
            } else if (o == null) {
                throw new NullPointerException("null open option");
            } else {
                throw new UnsupportedOperationException("unsupported open option: " + o);
            }
        }
        if (!read && !write) {
            read = true;
        }
        int flags = read && write ? Uapi.O_RDWR : write ? Uapi.O_WRONLY : Uapi.O_RDONLY;
        if (write) {
            if (createNew) {
                flags |= Uapi.O_CREAT | Uapi.O_EXCL | Uapi.O_NOFOLLOW;
            } else if (create) {
                flags |= Uapi.O_CREAT;
            }
            if (truncate) {
                flags |= Uapi.O_TRUNC;
            }
        }
        return OpenSpec.of(path.toAbsolutePath(), flags | extra, read, write, direct, registered, deleteOnClose);
    }
}
