package io.github.uring4j.nio;

import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.linux.Uapi;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Objects;
import java.util.Set;

/** The JDK's reading of {@code FileChannel.open}'s options and attributes, as {@code open(2)} flags and a mode. */
final class Opening {
    final boolean read;
    final boolean write;
    final boolean append;
    final boolean direct;
    final boolean deleteOnClose;
    final int flags;
    final int mode;

    private Opening(boolean read, boolean write, boolean append, boolean direct, boolean deleteOnClose, int flags,
            int mode) {
        this.read = read;
        this.write = write;
        this.append = append;
        this.direct = direct;
        this.deleteOnClose = deleteOnClose;
        this.flags = flags;
        this.mode = mode;
    }

    /** Options for a {@code FileChannel} ({@code asynchronous}: for an {@code AsynchronousFileChannel}). */
    static Opening of(String path, Set<? extends OpenOption> options, FileAttribute<?>[] attrs, boolean asynchronous) {
        Objects.requireNonNull(options, "options");
        boolean read = false;
        boolean write = false;
        boolean append = false;
        boolean truncate = false;
        boolean create = false;
        boolean createNew = false;
        boolean deleteOnClose = false;
        boolean noFollow = false;
        boolean direct = false;
        int extra = Uapi.O_CLOEXEC;
        for (OpenOption o : options) {
            if (o == null) {
                throw new NullPointerException();
            }
            if (o instanceof StandardOpenOption s) {
                switch (s) {
                    case READ -> read = true;
                    case WRITE -> write = true;
                    case APPEND -> append = true;
                    case TRUNCATE_EXISTING -> truncate = true;
                    case CREATE -> create = true;
                    case CREATE_NEW -> createNew = true;
                    case DELETE_ON_CLOSE -> deleteOnClose = true;
                    case SPARSE -> {
                        // a hint: Linux files are sparse anyway
                    }
                    case SYNC -> extra |= Uapi.O_SYNC;
                    case DSYNC -> extra |= Uapi.O_DSYNC;
                    default -> throw new UnsupportedOperationException(o + " not supported");
                }
            } else if (o == LinkOption.NOFOLLOW_LINKS) {
                noFollow = true;
            } else if (OpenSpec.isJdkDirect(o)) {
                direct = true;
                extra |= Uapi.O_DIRECT;
            } else {
                throw new UnsupportedOperationException(o + " not supported");
            }
        }
        int mode = mode(attrs);
        if (asynchronous && append) {
            throw new UnsupportedOperationException("APPEND not allowed");
        }
        if (read && append) {
            throw new IllegalArgumentException("READ + APPEND not allowed");
        }
        if (append && truncate) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        if (!read && !write) {
            if (append) {
                write = true;
            } else {
                read = true;
            }
        }
        int flags = read && write ? Uapi.O_RDWR : write ? Uapi.O_WRONLY : Uapi.O_RDONLY;
        if (write) {
            if (truncate) {
                flags |= Uapi.O_TRUNC;
            }
            if (append) {
                flags |= Uapi.O_APPEND;
            }
            if (createNew) {
                flags |= Uapi.O_CREAT | Uapi.O_EXCL;
            } else if (create) {
                flags |= Uapi.O_CREAT;
            }
        }
        // As the JDK: DELETE_ON_CLOSE does not follow a link (it would delete the link, not the file).
        if (!createNew && (noFollow || deleteOnClose)) {
            flags |= Uapi.O_NOFOLLOW;
        }
        if (createNew && isDotName(path)) {
            flags |= Uapi.O_EXCL; // "." always exists: open(2) then reports EEXIST, as the JDK does
        }
        return new Opening(read, write, append, direct, deleteOnClose, flags | extra, mode);
    }

    private static boolean isDotName(String path) {
        return path.equals(".") || path.endsWith("/.");
    }

    /** The creation mode: 0666 (less the umask), or the POSIX permissions given as an initial attribute. */
    private static int mode(FileAttribute<?>[] attrs) {
        int mode = 0666;
        // a null array fails as the JDK's open does, before any file is made
        for (FileAttribute<?> a : Objects.requireNonNull(attrs, "attrs")) {
            String name = a.name();
            if (!name.equals("posix:permissions") && !name.equals("unix:permissions")) {
                throw new UnsupportedOperationException("'" + name + "' not supported as initial attribute");
            }
            mode = 0;
            for (Object p : (Set<?>) a.value()) {
                mode |= switch ((PosixFilePermission) p) {
                    case OWNER_READ -> 0400;
                    case OWNER_WRITE -> 0200;
                    case OWNER_EXECUTE -> 0100;
                    case GROUP_READ -> 040;
                    case GROUP_WRITE -> 020;
                    case GROUP_EXECUTE -> 010;
                    case OTHERS_READ -> 04;
                    case OTHERS_WRITE -> 02;
                    case OTHERS_EXECUTE -> 01;
                };
            }
        }
        return mode;
    }
}
