package io.github.uring4j.file;

import io.github.uring4j.engine.ErrorMapper;
import io.github.uring4j.linux.Errno;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Turns {@code -errno} results into the exceptions the JDK would throw for the same failure. */
final class Errors implements ErrorMapper {
    static final Errors INSTANCE = new Errors();

    private Errors() {
    }

    @Override
    public IOException error(int errno, String operation, String path, long offset, boolean direct) {
        return of(errno, operation, path, offset, direct);
    }

    @Override
    public IOException errorAfter(int errno, String operation, String path, long offset, boolean direct, long done,
            long total, boolean bufferMoved) {
        boolean read = operation.equals("READ");
        String when = (offset >= 0 ? "at " + (offset + done) + ", " : "") + "after the first " + done + " of its "
                + total + " bytes " + (read ? "were read" : "were written")
                + (bufferMoved ? " (the ByteBuffer's position moved past them)" : "")
                + (operation.equals("WRITE+FDATASYNC") ? ", none of them synced" : "");
        return of(errno, operation, path, offset, direct, when);
    }

    @Override
    public IOException zeroWrite(String operation, String path, long offset) {
        return new FileIOException(Errno.EIO, operation, path, offset, "the kernel wrote 0 bytes");
    }

    @Override
    public IOException endOfFile(String path, long offset, long done, long wanted) {
        return new EOFException("end of file at offset " + offset + " of " + path + " after " + done + " of " + wanted
                + " bytes");
    }

    static IOException of(int errno, String operation, String path, long offset, boolean direct) {
        return of(errno, operation, path, offset, direct, null);
    }

    /** {@link #of(int, String, String, long, boolean)}, saying {@code when} (null: nothing) after what it says. */
    private static IOException of(int errno, String operation, String path, long offset, boolean direct, String when) {
        int e = Math.abs(errno);
        boolean open = operation.equals("OPEN");
        if (open) {
            switch (e) {
                case Errno.ENOENT:
                    return new NoSuchFileException(path);
                case Errno.EEXIST:
                    return new FileAlreadyExistsException(path);
                case Errno.EACCES, Errno.EPERM:
                    return new AccessDeniedException(path, null, Errno.name(e) + " during OPEN");
                case Errno.ENOTDIR:
                    return new NotDirectoryException(path);
                case Errno.ELOOP:
                    // a loop of links, or the file itself a link opened with NOFOLLOW_LINKS (not a loop at all)
                    return new FileSystemException(path, null, "ELOOP during OPEN: too many levels of symbolic"
                            + " links, or a symbolic link opened with NOFOLLOW_LINKS");
                case Errno.EISDIR:
                    return new FileSystemException(path, null, "Is a directory (EISDIR during OPEN)");
                case Errno.EINVAL:
                    if (direct) {
                        return new FileIOException(e, operation, path, -1,
                                "the file system does not support O_DIRECT (FileOption.DIRECT)");
                    }
                    break;
                default:
                    break;
            }
        }
        if (e == Errno.EACCES || e == Errno.EPERM) {
            return new AccessDeniedException(path, null, Errno.name(e) + " during " + operation
                    + (offset >= 0 ? " at " + offset : "") + (when != null ? ": " + when : ""));
        }
        String detail = null;
        if (e == Errno.EINVAL && direct) {
            detail = "O_DIRECT needs the buffer address, the file offset and the length aligned to the device's"
                    + " direct-I/O alignment (see AsyncFile.directIoAlignment())";
        } else if (e == Errno.EBADF) {
            detail = "the file is not open for this operation";
        } else if (e == Errno.ENOSPC) {
            detail = "no space left on the device";
        } else if (e == Errno.EMFILE) {
            detail = "too many open files: the process's descriptor limit (ulimit -n) is reached";
        } else if (e == Errno.ENFILE) {
            detail = "too many open files in the system";
        }
        if (when != null) {
            detail = detail == null ? when : detail + ", " + when;
        }
        return new FileIOException(e, operation, path, offset, detail);
    }
}
