package io.github.uring4j.file;

import io.github.uring4j.linux.Errno;
import java.io.IOException;

/**
 * An I/O operation on a file failed with an errno the JDK has no dedicated exception for. The message reads like
 * {@code EBADF during READ of /data/x at 4096}; the parts are available separately.
 */
public class FileIOException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String operation;
    private final String path;
    private final long offset;

    public FileIOException(int errno, String operation, String path, long offset, String detail) {
        super(message(errno, operation, path, offset, detail));
        this.errno = Math.abs(errno);
        this.operation = operation;
        this.path = path;
        this.offset = offset;
    }

    private static String message(int errno, String operation, String path, long offset, String detail) {
        StringBuilder sb = new StringBuilder(Errno.name(errno)).append(" during ").append(operation);
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

    /** The positive errno value. */
    public int errno() {
        return errno;
    }

    /** {@code "EBADF"}, {@code "EIO"}, ... */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** {@code "READ"}, {@code "OPEN"}, {@code "FSYNC"}, ... */
    public String operation() {
        return operation;
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
