package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The system calls a blocking channel makes on its caller's thread, as lean as a downcall gets: the caller brings
 * the segment {@code errno} is captured into (pooled with its other scratch memory, so a call allocates nothing and
 * touches no {@code ThreadLocal}: a virtual thread per request would otherwise pay for one each time). Every call
 * returns {@code -errno} on failure.
 */
public final class LeanCalls {
    /** What {@code capture} must be: {@link #allocateCapture} gives one. */
    public static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO_HANDLE =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final AddressLayout C_STRING = ADDRESS.withTargetLayout(
            MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE));

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... more) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        Linker.Option[] all = new Linker.Option[more.length + 1];
        all[0] = ERRNO;
        System.arraycopy(more, 0, all, 1, more.length);
        return LINKER.downcallHandle(symbol, fd, all);
    }

    private static final MethodHandle PREADV2 = handle("preadv2",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle PWRITEV2 = handle("pwritev2",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle OPEN = handle("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle DUP = handle("fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle UNLINK = handle("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle STATX = handle("statx",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle FTRUNCATE = handle("ftruncate64",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle FSYNC = handle("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FDATASYNC = handle("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle LSEEK = handle("lseek64",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle COPY_FILE_RANGE = handle("copy_file_range",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle STATVFS_BSIZE = handle("fstatvfs64",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().find("strerror").orElseThrow(), FunctionDescriptor.of(C_STRING, JAVA_INT));

    /** {@code struct statvfs} on x86-64 and aarch64: {@code f_bsize} is its first field. */
    public static final long STATVFS_SIZE = 112;

    private LeanCalls() {
    }

    /** A capture segment for this layout, from {@code arena}. */
    public static MemorySegment allocateCapture(java.lang.foreign.Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    private static int errno(MemorySegment capture) {
        return (int) ERRNO_HANDLE.get(capture, 0L);
    }

    private static RuntimeException linkage(Throwable t) {
        return new IllegalStateException("native call failed", t);
    }

    private static long result(long r, MemorySegment capture) {
        return r == -1 ? -errno(capture) : r;
    }

    private static int result(int r, MemorySegment capture) {
        return r == -1 ? -errno(capture) : r;
    }

    /** {@code preadv2(fd, iov, count, offset, flags)}; an offset of -1 reads at the file position. */
    public static long preadv2(MemorySegment capture, int fd, MemorySegment iov, int count, long offset, int flags) {
        try {
            return result((long) PREADV2.invokeExact(capture, fd, iov, count, offset, flags), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code pwritev2(fd, iov, count, offset, flags)}; an offset of -1 writes at the file position. */
    public static long pwritev2(MemorySegment capture, int fd, MemorySegment iov, int count, long offset, int flags) {
        try {
            return result((long) PWRITEV2.invokeExact(capture, fd, iov, count, offset, flags), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int open(MemorySegment capture, MemorySegment path, int flags, int mode) {
        try {
            return result((int) OPEN.invokeExact(capture, path, flags, mode), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int close(MemorySegment capture, int fd) {
        try {
            return result((int) CLOSE.invokeExact(capture, fd), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code fcntl(fd, F_DUPFD_CLOEXEC, 0)}: a second descriptor of the same open file. */
    public static int dup(MemorySegment capture, int fd) {
        try {
            return result((int) DUP.invokeExact(capture, fd, Uapi.F_DUPFD_CLOEXEC, 0), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int unlink(MemorySegment capture, MemorySegment path) {
        try {
            return result((int) UNLINK.invokeExact(capture, path), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int statx(MemorySegment capture, int dirfd, MemorySegment path, int flags, int mask,
            MemorySegment buf) {
        try {
            return result((int) STATX.invokeExact(capture, dirfd, path, flags, mask, buf), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int ftruncate(MemorySegment capture, int fd, long length) {
        try {
            return result((int) FTRUNCATE.invokeExact(capture, fd, length), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int fsync(MemorySegment capture, int fd, boolean metaData) {
        try {
            return result(metaData ? (int) FSYNC.invokeExact(capture, fd) : (int) FDATASYNC.invokeExact(capture, fd),
                    capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static long lseek(MemorySegment capture, int fd, long offset, int whence) {
        try {
            return result((long) LSEEK.invokeExact(capture, fd, offset, whence), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /**
     * {@code copy_file_range(in, inOffset, out, outOffset, length, 0)}: {@code inOffset} and {@code outOffset}
     * point at {@code loff_t}s the kernel advances, or are {@code NULL} for the file positions.
     */
    public static long copyFileRange(MemorySegment capture, int in, MemorySegment inOffset, int out,
            MemorySegment outOffset, long length) {
        try {
            return result((long) COPY_FILE_RANGE.invokeExact(capture, in, inOffset, out, outOffset, length, 0), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code fstatvfs(fd, buf)}, {@code buf} at least {@link #STATVFS_SIZE} bytes; {@code f_bsize} is its first long. */
    public static int fstatvfs(MemorySegment capture, int fd, MemorySegment buf) {
        try {
            return result((int) STATVFS_BSIZE.invokeExact(capture, fd, buf), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** The C library's description of {@code errno}, as the JDK's exceptions word it ("No such file or directory"). */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(Math.abs(errno));
            return s.getString(0);
        } catch (Throwable t) {
            return Errno.name(Math.abs(errno));
        }
    }
}
