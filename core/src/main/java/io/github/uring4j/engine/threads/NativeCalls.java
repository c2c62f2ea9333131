package io.github.uring4j.engine.threads;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.engine.ErrorMapper;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.ResultFilter;
import io.github.uring4j.engine.Rules;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CancellationException;
import java.util.function.IntSupplier;

/**
 * The blocking system calls behind each request kind, through the {@link Syscalls} layer. Results go through the
 * same {@link Rules} as io_uring's: short transfers, end of file, errno meanings.
 */
final class NativeCalls implements Calls {
    private static final MemorySegment EMPTY_PATH = Arena.global().allocateFrom("");

    private final Syscalls sys;
    private final ErrorMapper errors;
    private final ResultFilter filter;

    NativeCalls(Syscalls sys, ErrorMapper errors, ResultFilter filter) {
        this.sys = sys;
        this.errors = errors;
        this.filter = filter;
    }

    private Throwable error(Request r, long res) {
        return Rules.failure(r, (int) -res, false, false, errors);
    }

    private static int retry(IntSupplier call) {
        int r;
        do {
            r = call.getAsInt();
        } while (r == -Errno.EINTR);
        return r;
    }

    @Override
    public long transfer(Request r, ThreadsFile f) throws Throwable {
        int fd = f.fd;
        boolean read = r.kind == Request.READ || r.kind == Request.READ_FILE;
        while (true) {
            MemorySegment m = MemorySegment.ofAddress(r.address).reinterpret(r.length);
            long res;
            do {
                res = read ? sys.pread(fd, m, r.length, r.position) : sys.pwrite(fd, m, r.length, r.position);
                if (res == -Errno.ESPIPE) {
                    // pipes and character devices have no offsets
                    res = read ? sys.read(fd, m, r.length) : sys.write(fd, m, r.length);
                }
            } while (res == -Errno.EINTR);
            if (filter != null) {
                res = filter.filter(r.kind, 0, (int) res, r.length);
            }
            if (res < 0) {
                throw error(r, res);
            }
            long v = Rules.afterChunk(r, res, errors);
            if (v != Rules.MORE) {
                if (r.kind == Request.WRITE_SYNC) {
                    int s = retry(() -> sys.fdatasync(fd));
                    if (filter != null) {
                        s = filter.filter(r.kind, 1, s, 0);
                    }
                    if (s < 0) {
                        throw Rules.failure(r, -s, false, false, errors);
                    }
                }
                return v;
            }
            if (r.isCancelled()) {
                throw new CancellationException(r.name() + " cancelled");
            }
        }
    }

    @Override
    public long vector(Request r, ThreadsFile f) throws Throwable {
        int fd = f.fd;
        long total = 0;
        for (int i = 0; i < r.iovCount; i++) {
            long len = r.iovLength(i);
            MemorySegment m = MemorySegment.ofAddress(r.iovAddress(i)).reinterpret(len);
            long res;
            do {
                res = r.kind == Request.READV ? sys.pread(fd, m, len, r.position + total)
                        : sys.pwrite(fd, m, len, r.position + total);
            } while (res == -Errno.EINTR);
            if (res < 0) {
                if (total > 0) {
                    break;
                }
                throw error(r, res);
            }
            total += res;
            if (res < len) {
                break;
            }
        }
        return Rules.afterVector(r, total);
    }

    @Override
    public long other(Request r, ThreadsFile f) throws Throwable {
        int fd = f.fd;
        if (r.kind == Request.SIZE) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment sx = a.allocate(Statx.LAYOUT);
                int s = sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_SIZE, sx);
                if (s < 0) {
                    throw error(r, s);
                }
                return sx.get(JAVA_LONG, Statx.SIZE);
            }
        }
        int res = switch (r.kind) {
            case Request.FSYNC -> retry(() -> r.metaData ? sys.fsync(fd) : sys.fdatasync(fd));
            case Request.TRUNCATE -> retry(() -> sys.ftruncate(fd, r.arg));
            case Request.ALLOCATE -> retry(() -> sys.fallocate(fd, 0, r.position, r.arg));
            case Request.ADVISE -> sys.fadvise(fd, r.position, r.arg, r.flags);
            case Request.SYNC_RANGE -> retry(() -> sys.syncFileRange(fd, r.position, r.arg, r.flags));
            default -> throw new IllegalStateException("request kind " + r.kind);
        };
        if (res < 0) {
            throw error(r, res);
        }
        return 0;
    }

    @Override
    public ThreadsFile open(ThreadsBackend backend, Request r) throws IOException {
        int fd = sys.open(r.open.cPath(), r.open.flags() | Uapi.O_CLOEXEC, 0666);
        if (fd < 0) {
            throw errors.error(-fd, "OPEN", r.open.path(), -1, r.open.direct());
        }
        int[] align = r.open.direct() ? directAlignment(fd) : new int[] {4096, 4096};
        return new ThreadsFile(backend, r.open, fd, null, align[1], align[0]);
    }

    /** {offset alignment, memory alignment} {@code O_DIRECT} needs for {@code fd}: STATX_DIOALIGN, else 4096. */
    private int[] directAlignment(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sx = a.allocate(Statx.LAYOUT);
            if (sys.statx(fd, EMPTY_PATH, Uapi.AT_EMPTY_PATH, Statx.STATX_DIOALIGN, sx) == 0
                    && (sx.get(JAVA_INT, Statx.MASK) & Statx.STATX_DIOALIGN) != 0
                    && sx.get(JAVA_INT, Statx.DIO_OFFSET_ALIGN) > 0) {
                return new int[] {sx.get(JAVA_INT, Statx.DIO_OFFSET_ALIGN), sx.get(JAVA_INT, Statx.DIO_MEM_ALIGN)};
            }
        }
        return new int[] {4096, 4096};
    }

    @Override
    public IOException close(ThreadsFile f) {
        int r = sys.close(f.fd);
        return r < 0 ? errors.error(-r, "CLOSE", f.path, -1, false) : null;
    }
}
