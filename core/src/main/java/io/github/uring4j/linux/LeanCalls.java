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

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... more) {
        Linker.Option[] all = new Linker.Option[more.length + 1];
        all[0] = ERRNO;
        System.arraycopy(more, 0, all, 1, more.length);
        return Downcalls.link(LINKER, name, fd, all);
    }

    // Each handle sits in a holder class of its own and is linked on first use: a fresh JVM spends tens of
    // milliseconds on each downcall handle, which the first file a program opens should not wait for.
    private static final class PREADV2 {
        static final MethodHandle MH = handle("preadv2",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class PWRITEV2 {
        static final MethodHandle MH = handle("pwritev2",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class PREAD {
        static final MethodHandle MH = handle("pread64",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
    private static final class PWRITE {
        static final MethodHandle MH = handle("pwrite64",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
    private static final class READ {
        static final MethodHandle MH = handle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    private static final class WRITE {
        static final MethodHandle MH = handle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    private static final class OPEN {
        static final MethodHandle MH = handle("open",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    }
    private static final class CLOSE {
        static final MethodHandle MH = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class DUP {
        static final MethodHandle MH = handle("fcntl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    }
    private static final class UNLINK {
        static final MethodHandle MH = handle("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }
    private static final class STATX {
        static final MethodHandle MH = handle("statx",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    }
    private static final class FTRUNCATE {
        static final MethodHandle MH = handle("ftruncate64",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    private static final class FSYNC {
        static final MethodHandle MH = handle("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class FDATASYNC {
        static final MethodHandle MH = handle("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class LSEEK {
        static final MethodHandle MH = handle("lseek64",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class COPY_FILE_RANGE {
        static final MethodHandle MH = handle("copy_file_range",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    private static final class CACHESTAT {
        // no libc wrapper (glibc 2.36): the system call itself, number 451 on x86-64 and aarch64 alike
        static final MethodHandle MH = handle("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT,
                ADDRESS, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(1));
    }
    private static final class STATVFS_BSIZE {
        static final MethodHandle MH = handle("fstatvfs64",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }
    private static final class ALIGNED_ALLOC {
        static final MethodHandle MH = Downcalls.link(LINKER, "aligned_alloc",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    }
    private static final class PAGE_SIZE {
        static final long VALUE = pageSizeOrDefault();

        private static long pageSizeOrDefault() {
            try {
                MethodHandle h = Downcalls.link(LINKER, "getpagesize", FunctionDescriptor.of(JAVA_INT));
                int n = (int) h.invokeExact();
                return n > 0 ? n : 4096;
            } catch (Throwable t) {
                return 4096; // no native access: the pages of x86-64
            }
        }
    }
    private static final class FREE {
        static final MethodHandle MH = Downcalls.link(LINKER, "free", FunctionDescriptor.ofVoid(JAVA_LONG));
    }
    private static final class MINCORE {
        static final MethodHandle MH = handle("mincore", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));
    }
    private static final class STATFS {
        static final MethodHandle MH = handle("statfs64", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }
    private static final class FSTATFS {
        static final MethodHandle MH = handle("fstatfs64", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    }
    private static final class STRERROR {
        // a C string as the target of a pointer: restricted, so it is made here, where it is first needed
        static final AddressLayout C_STRING = ADDRESS.withTargetLayout(
                MemoryLayout.sequenceLayout(Long.MAX_VALUE, ValueLayout.JAVA_BYTE));
        static final MethodHandle MH = Downcalls.link(LINKER, "strerror", FunctionDescriptor.of(C_STRING, JAVA_INT));
    }

    /** {@code struct statvfs} on x86-64 and aarch64: {@code f_bsize} is its first field. */
    public static final long STATVFS_SIZE = 112;
    /** {@code struct statfs} on x86-64 and aarch64: {@code f_type} is its first field, a {@code long}. */
    public static final long STATFS_SIZE = 120;
    /** {@code TMPFS_MAGIC} and {@code RAMFS_MAGIC} of {@code <linux/magic.h>}: file systems in memory. */
    public static final long TMPFS_MAGIC = 0x01021994L;
    public static final long RAMFS_MAGIC = 0x858458f6L;
    /** {@code OVERLAYFS_SUPER_MAGIC}: a container's file system, over files of a disk's. */
    public static final long OVERLAYFS_MAGIC = 0x794c7630L;

    static {
        // Each call's holder class is loaded now, not initialised (linking waits for the first call): from a class
        // path of directories every class is a file to open, and at the descriptor limit (EMFILE) a holder first
        // needed there, close's or strerror's, could not be loaded (NoClassDefFoundError, for good at that call site).
        LeanCalls.class.getDeclaredClasses();
        Downcalls.class.getDeclaredClasses(); // the holders' linker, and its retry
    }

    private LeanCalls() {
    }

    /**
     * Null when these calls can be made here; otherwise why not (native access denied), with the flag that fixes
     * it. Links the {@code open} handle, which the first channel needs anyway.
     */
    public static String problem() {
        try {
            OPEN.MH.type();
            return null;
        } catch (VirtualMachineError e) {
            throw e; // out of memory or stack now: no answer about native access (it was taken as a refusal, for good)
        } catch (Throwable t) {
            return NativeAccess.explain(t);
        }
    }

    /**
     * Links, on the calling thread, the calls a program's first files make (open, statx, preadv2 and close for a
     * first read; write and pwrite for a platform thread's writes, read and pread for its later reads, pwritev2 for a
     * virtual thread's), in that order, so that a thread started early can take the linker's first-use cost (tens of
     * milliseconds in a fresh JVM) off the program's first open. Failures are left for the calls themselves to report.
     */
    public static void prelink() {
        try {
            OPEN.MH.type();
            STATX.MH.type();
            PREADV2.MH.type();
            CLOSE.MH.type();
            WRITE.MH.type();
            PWRITE.MH.type();
            READ.MH.type();
            PREAD.MH.type();
            PWRITEV2.MH.type();
        } catch (Throwable t) {
            // problem() and the calls say what went wrong
        }
    }

    /** A capture segment for this layout, from {@code arena}. */
    public static MemorySegment allocateCapture(java.lang.foreign.Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    private static int errno(MemorySegment capture) {
        return (int) ERRNO_HANDLE.get(capture, 0L);
    }

    private static RuntimeException linkage(Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e; // out of memory or stack on the way: said as itself, not as a call that failed to link
        }
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
            return result((long) PREADV2.MH.invokeExact(capture, fd, iov, count, offset, flags), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code pwritev2(fd, iov, count, offset, flags)}; an offset of -1 writes at the file position. */
    public static long pwritev2(MemorySegment capture, int fd, MemorySegment iov, int count, long offset, int flags) {
        try {
            return result((long) PWRITEV2.MH.invokeExact(capture, fd, iov, count, offset, flags), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /**
     * {@code pread(fd, buf, count, offset)} into the native memory at {@code address}: one buffer at an offset, with no
     * {@code iovec} to fill in and the kernel's shortest read path.
     */
    public static long pread(MemorySegment capture, int fd, long address, long count, long offset) {
        try {
            return result((long) PREAD.MH.invokeExact(capture, fd, MemorySegment.ofAddress(address), count, offset),
                    capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code pwrite(fd, buf, count, offset)} from the native memory at {@code address}. */
    public static long pwrite(MemorySegment capture, int fd, long address, long count, long offset) {
        try {
            return result((long) PWRITE.MH.invokeExact(capture, fd, MemorySegment.ofAddress(address), count, offset),
                    capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /**
     * {@code read(fd, buf, count)} at the file position into the native memory at {@code address}: the relative read
     * without flags, with no {@code iovec} for the kernel to copy in.
     */
    public static long read(MemorySegment capture, int fd, long address, long count) {
        try {
            return result((long) READ.MH.invokeExact(capture, fd, MemorySegment.ofAddress(address), count), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code write(fd, buf, count)} at the file position (at the end with {@code O_APPEND}). */
    public static long write(MemorySegment capture, int fd, long address, long count) {
        try {
            return result((long) WRITE.MH.invokeExact(capture, fd, MemorySegment.ofAddress(address), count), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int open(MemorySegment capture, MemorySegment path, int flags, int mode) {
        try {
            return result((int) OPEN.MH.invokeExact(capture, path, flags, mode), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int close(MemorySegment capture, int fd) {
        for (int tries = 0;; tries++) {
            try {
                ERRNO_HANDLE.set(capture, 0L, NOT_CALLED);
            } catch (OutOfMemoryError e) {
                waitForMemory(tries, e);
                continue;
            }
            try {
                return result((int) CLOSE.MH.invokeExact(capture, fd), capture);
            } catch (OutOfMemoryError e) {
                // Thrown before the call (its check of the capture segment makes a slice, when interpreted: seen on
                // a full heap), the descriptor is still open and nothing else would close it: the call is made again
                // once there is memory. Thrown after it, the descriptor is closed: made again, the call could close
                // another file's descriptor that took the number meanwhile.
                if (made(capture, tries, e)) {
                    return 0; // closed (its result is lost)
                }
                waitForMemory(tries, e);
            } catch (Throwable t) {
                throw linkage(t);
            }
        }
    }

    /**
     * Whether the call whose capture was set to {@link #NOT_CALLED} was made: the read of the capture is made again
     * after an {@code OutOfMemoryError} of its own (the access, interpreted, can need memory: seen on a full heap).
     */
    private static boolean made(MemorySegment capture, int tries, OutOfMemoryError e) {
        for (int t = tries;; t++) {
            try {
                return errno(capture) != NOT_CALLED;
            } catch (OutOfMemoryError again) {
                waitForMemory(t, e);
            }
        }
    }

    /** An {@code errno} no call sets: written to a capture before a call, still there if it was never made. */
    private static final int NOT_CALLED = Integer.MIN_VALUE;

    /**
     * After the {@code tries}-th {@code OutOfMemoryError} {@code e} of a call that must be made: waits 10 ms, or throws
     * {@code e} once it has been tried for ten seconds. The rule of {@code engine.FullHeap.waitForMemory}, which this
     * package, below the engine, does not call.
     */
    private static void waitForMemory(int tries, OutOfMemoryError e) {
        if (tries >= 1000) {
            throw e;
        }
        try {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
        } catch (Throwable parkFailed) {
            // on a full heap even the park may throw: wait without it
            long until = System.nanoTime() + 10_000_000L;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** {@code fcntl(fd, F_DUPFD_CLOEXEC, 0)}: a second descriptor of the same open file. */
    public static int dup(MemorySegment capture, int fd) {
        try {
            return result((int) DUP.MH.invokeExact(capture, fd, Uapi.F_DUPFD_CLOEXEC, 0), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code fcntl(fd, F_SETFL, flags)}: the status flags ({@code O_NONBLOCK}, {@code O_APPEND}, ...) of an open file. */
    public static int setStatusFlags(MemorySegment capture, int fd, int flags) {
        try {
            return result((int) DUP.MH.invokeExact(capture, fd, Uapi.F_SETFL, flags), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int unlink(MemorySegment capture, MemorySegment path) {
        try {
            return result((int) UNLINK.MH.invokeExact(capture, path), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int statx(MemorySegment capture, int dirfd, MemorySegment path, int flags, int mask,
            MemorySegment buf) {
        try {
            return result((int) STATX.MH.invokeExact(capture, dirfd, path, flags, mask, buf), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static int ftruncate(MemorySegment capture, int fd, long length) {
        try {
            return result((int) FTRUNCATE.MH.invokeExact(capture, fd, length), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code fsync} ({@code metaData}) or {@code fdatasync}, made again after {@code EINTR}: 0 or {@code -errno}. */
    public static int fsync(MemorySegment capture, int fd, boolean metaData) {
        try {
            int r;
            do {
                r = result(metaData ? (int) FSYNC.MH.invokeExact(capture, fd) : (int) FDATASYNC.MH.invokeExact(capture, fd),
                        capture);
            } while (r == -Errno.EINTR);
            return r;
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    public static long lseek(MemorySegment capture, int fd, long offset, int whence) {
        try {
            return result((long) LSEEK.MH.invokeExact(capture, fd, offset, whence), capture);
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
            return result((long) COPY_FILE_RANGE.MH.invokeExact(capture, in, inOffset, out, outOffset, length, 0), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** The number of the {@code cachestat} system call (Linux 6.5), on x86-64 and aarch64. */
    public static final long SYS_CACHESTAT = 451;
    /** {@code struct cachestat}: five {@code __u64}s, {@code nr_cache} first. */
    public static final long CACHESTAT_SIZE = 40;

    /**
     * {@code cachestat(fd, range, cstat, 0)}: how many pages of the range ({@code struct cachestat_range}: offset,
     * length; 0 to the end) are in the page cache, into {@code cstat} ({@link #CACHESTAT_SIZE} bytes, {@code nr_cache}
     * first). {@code -ENOSYS} before Linux 6.5.
     */
    public static int cachestat(MemorySegment capture, int fd, MemorySegment range, MemorySegment cstat) {
        try {
            return (int) result((long) CACHESTAT.MH.invokeExact(capture, SYS_CACHESTAT, fd, range, cstat, 0), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code fstatvfs(fd, buf)}, {@code buf} at least {@link #STATVFS_SIZE} bytes; {@code f_bsize} is its first long. */
    public static int fstatvfs(MemorySegment capture, int fd, MemorySegment buf) {
        try {
            return result((int) STATVFS_BSIZE.MH.invokeExact(capture, fd, buf), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /**
     * The {@code f_type} of the file system of the file at {@code path} (a C string; {@code statfs}), or 0 when it
     * cannot be asked; {@code buf} at least {@link #STATFS_SIZE} bytes.
     */
    public static long fileSystem(MemorySegment capture, MemorySegment path, MemorySegment buf) {
        try {
            int r = result((int) STATFS.MH.invokeExact(capture, path, buf), capture);
            return r != 0 ? 0 : buf.get(ValueLayout.JAVA_LONG, 0) & 0xffffffffL;
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** {@code fstatfs(fd, buf)}, {@code buf} at least {@link #STATFS_SIZE} bytes; {@code f_type} is its first long. */
    public static int fstatfs(MemorySegment capture, int fd, MemorySegment buf) {
        try {
            return result((int) FSTATFS.MH.invokeExact(capture, fd, buf), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /**
     * Whether {@code fd}'s file lives in memory (tmpfs, ramfs): such file systems refuse {@code RWF_NOWAIT}, so
     * io_uring hands each of their reads and writes to an io-wq worker, and a plain call never waits for a device.
     * {@code buf}: at least {@link #STATFS_SIZE} bytes.
     */
    public static boolean inMemory(MemorySegment capture, int fd, MemorySegment buf) {
        long type = fileSystem(capture, fd, buf);
        return type == TMPFS_MAGIC || type == RAMFS_MAGIC;
    }

    /** The {@code f_type} of {@code fd}'s file system ({@code fstatfs}), or 0 when it cannot be asked. */
    public static long fileSystem(MemorySegment capture, int fd, MemorySegment buf) {
        return fstatfs(capture, fd, buf) != 0 ? 0 : buf.get(ValueLayout.JAVA_LONG, 0) & 0xffffffffL;
    }

    /**
     * {@code aligned_alloc(alignment, size)} of the C heap: the address, 0 when there is no memory. The memory is not
     * cleared; {@link #free} gives it back.
     */
    public static long alignedAlloc(long alignment, long size) {
        try {
            return (long) ALIGNED_ALLOC.MH.invokeExact(alignment, size);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** The system's page size ({@code getpagesize()}; 4096 where it cannot be asked). */
    public static long pageSize() {
        return PAGE_SIZE.VALUE;
    }

    /** {@code free(address)} of memory from {@link #alignedAlloc}, once. */
    public static void free(long address) {
        try {
            FREE.MH.invokeExact(address);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /**
     * {@code mincore(addr, length, vec)}: one byte per page of the mapping at {@code addr}, bit 0 set where the page is
     * in memory; {@code -errno} on failure ({@code ENOMEM}: not mapped). Touches no page.
     */
    public static int mincore(MemorySegment capture, long addr, long length, MemorySegment vec) {
        try {
            return result((int) MINCORE.MH.invokeExact(capture, addr, length, vec), capture);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    /** The C library's description of {@code errno}, as the JDK's exceptions word it ("No such file or directory"). */
    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.MH.invokeExact(Math.abs(errno));
            return s.getString(0);
        } catch (Throwable t) {
            return Errno.name(Math.abs(errno));
        }
    }
}
