package io.github.uring4j.linux;

import java.lang.foreign.MemorySegment;

/**
 * The system calls uring4j makes, as plain numbers: each returns its result, or {@code -errno} on failure, and
 * never throws. {@link #system()} is the real kernel through libc; tests replace it to inject a result
 * ({@code EINTR}, a short count, {@code EPERM}, ...).
 * <p>
 * Addresses are passed as {@link MemorySegment}s where the kernel reads or writes through them, and as
 * {@code long}s where they only name a mapping ({@code mmap}, {@code munmap}, {@code madvise}).
 */
public interface Syscalls {

    /**
     * The running kernel, through libc.
     *
     * @throws IllegalCallerException when native access is denied ({@link NativeAccess#problem()} says why)
     */
    static Syscalls system() {
        String p = NativeAccess.problem();
        if (p != null) {
            throw new IllegalCallerException(p);
        }
        return LibcSyscalls.INSTANCE;
    }

    int ioUringSetup(int entries, MemorySegment params);

    /**
     * {@code io_uring_enter(2)}. {@code arg}/{@code argSize} are the sigset (or, with
     * {@code IORING_ENTER_EXT_ARG}, a {@code struct io_uring_getevents_arg}); {@link MemorySegment#NULL} and 0
     * for none.
     */
    int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize);

    int ioUringRegister(int ringFd, int opcode, MemorySegment arg, int nrArgs);

    /** Returns the address of the new mapping, or {@code -errno}. */
    long mmap(long addr, long length, int prot, int flags, int fd, long offset);

    int munmap(long addr, long length);

    int madvise(long addr, long length, int advice);

    int eventfd(int initval, int flags);

    int pipe2(MemorySegment fds, int flags);

    /** {@code poll(2)}: {@code fds} holds {@code nfds} {@code struct pollfd} ({@link Uapi#POLLFD_SIZE} bytes each). */
    int poll(MemorySegment fds, int nfds, int timeoutMillis);

    /** {@code ioctl(fd, request, arg)} with a pointer argument ({@code FIONREAD}, ...). */
    int ioctl(int fd, long request, MemorySegment arg);

    /** {@code fcntl(fd, cmd, arg)} with an integer argument ({@code F_SETFL}, ...). */
    int fcntl(int fd, int cmd, int arg);

    /** {@code open(2)}; {@code path} is a NUL-terminated string. */
    int open(MemorySegment path, int flags, int mode);

    int close(int fd);

    long read(int fd, MemorySegment buf, long count);

    long write(int fd, MemorySegment buf, long count);

    long pread(int fd, MemorySegment buf, long count, long offset);

    long pwrite(int fd, MemorySegment buf, long count, long offset);

    long preadv2(int fd, MemorySegment iov, int iovcnt, long offset, int flags);

    long pwritev2(int fd, MemorySegment iov, int iovcnt, long offset, int flags);

    int fsync(int fd);

    int fdatasync(int fd);

    int ftruncate(int fd, long length);

    int fallocate(int fd, int mode, long offset, long length);

    /** {@code posix_fadvise(2)}, also reported as {@code -errno}. */
    int fadvise(int fd, long offset, long length, int advice);

    int syncFileRange(int fd, long offset, long nbytes, int flags);

    int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxbuf);
}
