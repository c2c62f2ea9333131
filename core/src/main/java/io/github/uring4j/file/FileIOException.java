package io.github.uring4j.file;

import io.github.uring4j.ErrnoException;

/**
 * An I/O operation on a file failed with an errno the JDK has no dedicated exception for. The message reads like
 * {@code EBADF during READ of /data/x at 4096}; the parts are available separately ({@link #errno()},
 * {@link #errnoName()} and {@link #operation()} — {@code "READ"}, {@code "OPEN"}, {@code "FSYNC"}, ... — come from
 * {@link ErrnoException}). Both backends throw it: io_uring and the thread pool.
 */
public class FileIOException extends ErrnoException {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final long offset;

    public FileIOException(int errno, String operation, String path, long offset, String detail) {
        super(operation, errno, message(errno, operation, path, offset, detail));
        this.path = path;
        this.offset = offset;
    }

    private static String message(int errno, String operation, String path, long offset, String detail) {
        StringBuilder sb = new StringBuilder(ErrnoException.name(errno)).append(" during ").append(operation);
        if (path != null) {
            sb.append(" of ").append(path);
        }
        if (offset >= 0) {
            sb.append(" at ").append(offset);
        }
        if (detail != null) {
            sb.append(": ").append(detail);
        }
        return sb.toString();
    }

    /** The file, or null when not known. */
    public String path() {
        return path;
    }

    /** The file offset the operation started at, or -1 when it has none. */
    public long offset() {
        return offset;
    }
}
