package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * {@link Syscalls} through libc. The io_uring calls have no libc wrapper, so they go through the variadic
 * {@code syscall(2)}; every handle captures {@code errno} into a per-thread segment so that a failure comes back
 * as {@code -errno} without touching a global.
 */
final class LibcSyscalls implements Syscalls {
    static final LibcSyscalls INSTANCE = new LibcSyscalls();

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_HANDLE =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** One errno slot per thread; freed with the thread's ThreadLocal map. */
    private static final ThreadLocal<MemorySegment> CAPTURE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
        Linker.Option[] all = new Linker.Option[options.length + 1];
        all[0] = ERRNO;
        System.arraycopy(options, 0, all, 1, options.length);
        return Downcalls.link(LINKER, name, fd, all);
    }


    // syscall(SYS_io_uring_setup, entries, params)
    // Each handle sits in a holder class of its own and is linked on first use: a fresh JVM spends tens of
    // milliseconds on each downcall handle, which the first file a program opens should not wait for.
    private static final class SETUP {
        static final MethodHandle MH = handle("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(1));
    }
    // syscall(SYS_io_uring_enter, fd, to_submit, min_complete, flags, arg, argsz)
    private static final class ENTER {
        static final MethodHandle MH = handle("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
    }
    // syscall(SYS_io_uring_register, fd, opcode, arg, nr_args)
    private static final class REGISTER {
        static final MethodHandle MH = handle("syscall",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
    }

    private static final class MMAP {
        static final MethodHandle MH = handle("mmap",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    private static final class MUNMAP {
        static final MethodHandle MH = handle("munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    }
    private static final class MADVISE {
        static final MethodHandle MH = handle("madvise",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    private static final class EVENTFD {
        static final MethodHandle MH = handle("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    }
    private static final class POLL {
        static final MethodHandle MH = handle("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }
    private static final class IOCTL {
        static final MethodHandle MH = handle("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
                Linker.Option.firstVariadicArg(2));
    }
    private static final class FCNTL {
        static final MethodHandle MH = handle("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                Linker.Option.firstVariadicArg(2));
    }
    private static final class PIPE2 {
        static final MethodHandle MH = handle("pipe2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }
    private static final class OPEN {
        static final MethodHandle MH = handle("open",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    }
    private static final class CLOSE {
        static final MethodHandle MH = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class READ {
        static final MethodHandle MH = handle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    private static final class WRITE {
        static final MethodHandle MH = handle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }
    private static final class PREAD {
        static final MethodHandle MH = handle("pread64",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
    private static final class PWRITE {
        static final MethodHandle MH = handle("pwrite64",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
    private static final class PREADV2 {
        static final MethodHandle MH = handle("preadv2",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class PWRITEV2 {
        static final MethodHandle MH = handle("pwritev2",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    }
    private static final class FSYNC {
        static final MethodHandle MH = handle("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class FDATASYNC {
        static final MethodHandle MH = handle("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }
    private static final class FTRUNCATE {
        static final MethodHandle MH = handle("ftruncate64", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    }
    private static final class FALLOCATE {
        static final MethodHandle MH = handle("fallocate64",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    }
    private static final class FADVISE {
        static final MethodHandle MH = handle("posix_fadvise64",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    private static final class SYNC_FILE_RANGE {
        static final MethodHandle MH = handle("sync_file_range",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }
    private static final class STATX {
        static final MethodHandle MH = handle("statx",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    }

    static {
        // loaded now, linked at first use: see LeanCalls (a holder first needed at the descriptor limit could not be
        // loaded from a class path of directories)
        LibcSyscalls.class.getDeclaredClasses();
    }

    private LibcSyscalls() {
    }

    /** Links one downcall: throws {@link IllegalCallerException} where native access is denied. */
    static void linkOne() {
        CLOSE.MH.type();
    }

    private static int errno(MemorySegment capture) {
        return (int) ERRNO_HANDLE.get(capture, 0L);
    }

    private static long check(long r, MemorySegment capture) {
        return r == -1 ? -errno(capture) : r;
    }

    private static int check(int r, MemorySegment capture) {
        return r == -1 ? -errno(capture) : r;
    }

    private static RuntimeException linkage(Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e; // out of memory or stack on the way: said as itself, not as a call that failed to link
        }
        return new IllegalStateException("native call failed to link or run", t);
    }

    @Override
    public int ioUringSetup(int entries, MemorySegment params) {
        MemorySegment c = CAPTURE.get();
        try {
            return (int) check((long) SETUP.MH.invokeExact(c, Uapi.SYS_io_uring_setup, Integer.toUnsignedLong(entries), params), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
        MemorySegment c = CAPTURE.get();
        try {
            return (int) check((long) ENTER.MH.invokeExact(c, Uapi.SYS_io_uring_enter, (long) ringFd,
                    Integer.toUnsignedLong(toSubmit), Integer.toUnsignedLong(minComplete), Integer.toUnsignedLong(flags),
                    arg, argSize), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int ioUringRegister(int ringFd, int opcode, MemorySegment arg, int nrArgs) {
        MemorySegment c = CAPTURE.get();
        try {
            return (int) check((long) REGISTER.MH.invokeExact(c, Uapi.SYS_io_uring_register, (long) ringFd,
                    Integer.toUnsignedLong(opcode), arg, Integer.toUnsignedLong(nrArgs)), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) MMAP.MH.invokeExact(c, addr, length, prot, flags, fd, offset), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int munmap(long addr, long length) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) MUNMAP.MH.invokeExact(c, addr, length), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int madvise(long addr, long length, int advice) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) MADVISE.MH.invokeExact(c, addr, length, advice), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int eventfd(int initval, int flags) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) EVENTFD.MH.invokeExact(c, initval, flags), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int poll(MemorySegment fds, int nfds, int timeoutMillis) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) POLL.MH.invokeExact(c, fds, (long) nfds, timeoutMillis), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int ioctl(int fd, long request, MemorySegment arg) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) IOCTL.MH.invokeExact(c, fd, request, arg), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int fcntl(int fd, int cmd, int arg) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) FCNTL.MH.invokeExact(c, fd, cmd, arg), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int pipe2(MemorySegment fds, int flags) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) PIPE2.MH.invokeExact(c, fds, flags), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int open(MemorySegment path, int flags, int mode) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) OPEN.MH.invokeExact(c, path, flags, mode), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int close(int fd) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) CLOSE.MH.invokeExact(c, fd), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long read(int fd, MemorySegment buf, long count) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) READ.MH.invokeExact(c, fd, buf, count), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long write(int fd, MemorySegment buf, long count) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) WRITE.MH.invokeExact(c, fd, buf, count), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long pread(int fd, MemorySegment buf, long count, long offset) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) PREAD.MH.invokeExact(c, fd, buf, count, offset), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long pwrite(int fd, MemorySegment buf, long count, long offset) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) PWRITE.MH.invokeExact(c, fd, buf, count, offset), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long preadv2(int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) PREADV2.MH.invokeExact(c, fd, iov, iovcnt, offset, flags), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public long pwritev2(int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((long) PWRITEV2.MH.invokeExact(c, fd, iov, iovcnt, offset, flags), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int fsync(int fd) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) FSYNC.MH.invokeExact(c, fd), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int fdatasync(int fd) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) FDATASYNC.MH.invokeExact(c, fd), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int ftruncate(int fd, long length) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) FTRUNCATE.MH.invokeExact(c, fd, length), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int fallocate(int fd, int mode, long offset, long length) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) FALLOCATE.MH.invokeExact(c, fd, mode, offset, length), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int fadvise(int fd, long offset, long length, int advice) {
        MemorySegment c = CAPTURE.get();
        try {
            // posix_fadvise returns the error number itself and leaves errno alone.
            return -(int) FADVISE.MH.invokeExact(c, fd, offset, length, advice);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int syncFileRange(int fd, long offset, long nbytes, int flags) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) SYNC_FILE_RANGE.MH.invokeExact(c, fd, offset, nbytes, flags), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }

    @Override
    public int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxbuf) {
        MemorySegment c = CAPTURE.get();
        try {
            return check((int) STATX.MH.invokeExact(c, dirfd, path, flags, mask, statxbuf), c);
        } catch (Throwable t) {
            throw linkage(t);
        }
    }
}
