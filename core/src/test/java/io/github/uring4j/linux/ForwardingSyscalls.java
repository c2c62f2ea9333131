package io.github.uring4j.linux;

import java.lang.foreign.MemorySegment;

/** A {@link Syscalls} that passes everything to another; tests override the one call they want to fake. */
public class ForwardingSyscalls implements Syscalls {
    protected final Syscalls next;

    public ForwardingSyscalls() {
        this(Syscalls.system());
    }

    public ForwardingSyscalls(Syscalls next) {
        this.next = next;
    }

    @Override
    public int ioUringSetup(int entries, MemorySegment params) {
        return next.ioUringSetup(entries, params);
    }

    @Override
    public int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
        return next.ioUringEnter(ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    @Override
    public int ioUringRegister(int ringFd, int opcode, MemorySegment arg, int nrArgs) {
        return next.ioUringRegister(ringFd, opcode, arg, nrArgs);
    }

    @Override
    public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        return next.mmap(addr, length, prot, flags, fd, offset);
    }

    @Override
    public int munmap(long addr, long length) {
        return next.munmap(addr, length);
    }

    @Override
    public int madvise(long addr, long length, int advice) {
        return next.madvise(addr, length, advice);
    }

    @Override
    public int eventfd(int initval, int flags) {
        return next.eventfd(initval, flags);
    }

    @Override
    public int poll(MemorySegment fds, int nfds, int timeoutMillis) {
        return next.poll(fds, nfds, timeoutMillis);
    }

    @Override
    public int ioctl(int fd, long request, MemorySegment arg) {
        return next.ioctl(fd, request, arg);
    }

    @Override
    public int fcntl(int fd, int cmd, int arg) {
        return next.fcntl(fd, cmd, arg);
    }

    @Override
    public int pipe2(MemorySegment fds, int flags) {
        return next.pipe2(fds, flags);
    }

    @Override
    public int open(MemorySegment path, int flags, int mode) {
        return next.open(path, flags, mode);
    }

    @Override
    public int close(int fd) {
        return next.close(fd);
    }

    @Override
    public long read(int fd, MemorySegment buf, long count) {
        return next.read(fd, buf, count);
    }

    @Override
    public long write(int fd, MemorySegment buf, long count) {
        return next.write(fd, buf, count);
    }

    @Override
    public long pread(int fd, MemorySegment buf, long count, long offset) {
        return next.pread(fd, buf, count, offset);
    }

    @Override
    public long pwrite(int fd, MemorySegment buf, long count, long offset) {
        return next.pwrite(fd, buf, count, offset);
    }

    @Override
    public long preadv2(int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        return next.preadv2(fd, iov, iovcnt, offset, flags);
    }

    @Override
    public long pwritev2(int fd, MemorySegment iov, int iovcnt, long offset, int flags) {
        return next.pwritev2(fd, iov, iovcnt, offset, flags);
    }

    @Override
    public int fsync(int fd) {
        return next.fsync(fd);
    }

    @Override
    public int fdatasync(int fd) {
        return next.fdatasync(fd);
    }

    @Override
    public int ftruncate(int fd, long length) {
        return next.ftruncate(fd, length);
    }

    @Override
    public int fallocate(int fd, int mode, long offset, long length) {
        return next.fallocate(fd, mode, offset, length);
    }

    @Override
    public int fadvise(int fd, long offset, long length, int advice) {
        return next.fadvise(fd, offset, length, advice);
    }

    @Override
    public int syncFileRange(int fd, long offset, long nbytes, int flags) {
        return next.syncFileRange(fd, offset, nbytes, flags);
    }

    @Override
    public int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxbuf) {
        return next.statx(dirfd, path, flags, mask, statxbuf);
    }
}
