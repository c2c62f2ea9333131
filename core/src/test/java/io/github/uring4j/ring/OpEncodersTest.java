package io.github.uring4j.ring;

import static io.github.uring4j.ring.Rings.bytes;
import static io.github.uring4j.ring.Rings.one;
import static io.github.uring4j.ring.Rings.pattern;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.OpenHow;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every encoder, run by the kernel against real files; what was written is read back and compared. */
class OpEncodersTest {
    private static final int AT_FDCWD = Uapi.AT_FDCWD;

    @TempDir
    Path dir;
    private IoUring ring;
    private Arena arena;

    @BeforeEach
    void open() throws Exception {
        ring = IoUring.open(32);
        arena = Arena.ofConfined();
    }

    @AfterEach
    void closeAll() {
        ring.close();
        arena.close();
    }

    private MemorySegment cstr(Path p) {
        return arena.allocateFrom(p.toString());
    }

    private MemorySegment buffer(byte[] content) {
        MemorySegment s = arena.allocate(content.length, 4096);
        MemorySegment.copy(MemorySegment.ofArray(content), 0, s, 0, content.length);
        return s;
    }

    private int openFile(Path p, int flags) throws Exception {
        ring.nextSqe().openat(AT_FDCWD, cstr(p), flags | Uapi.O_CLOEXEC, 0644).userData(99);
        int fd = one(ring).res();
        assertTrue(fd >= 0, "openat -> " + fd);
        return fd;
    }

    private void closeFd(int fd) throws Exception {
        ring.nextSqe().close(fd).userData(98);
        assertEquals(0, one(ring).res());
    }

    @Test
    void nopCompletesWithItsUserData() throws Exception {
        ring.nextSqe().nop().userData(0xCAFEBABEL);
        Rings.Cqe c = one(ring);
        assertEquals(0xCAFEBABEL, c.userData());
        assertEquals(0, c.res());
    }

    @Test
    void writeThenReadRoundTrip() throws Exception {
        Path f = dir.resolve("rw");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        byte[] data = pattern(8192, 1);
        ring.nextSqe().write(FileTarget.fd(fd), buffer(data), 4096).userData(1);
        assertEquals(8192, one(ring).res());
        MemorySegment in = arena.allocate(8192);
        ring.nextSqe().read(FileTarget.fd(fd), in, 4096).userData(2);
        assertEquals(8192, one(ring).res());
        assertArrayEquals(data, bytes(in));
        assertArrayEquals(data, Arrays.copyOfRange(Files.readAllBytes(f), 4096, 4096 + 8192));
        closeFd(fd);
    }

    @Test
    void readPastEndIsShortThenZero() throws Exception {
        Path f = dir.resolve("small");
        Files.write(f, pattern(1024, 2));
        int fd = openFile(f, Uapi.O_RDONLY);
        MemorySegment in = arena.allocate(4096);
        ring.nextSqe().read(FileTarget.fd(fd), in, 0).userData(1);
        assertEquals(1024, one(ring).res());
        ring.nextSqe().read(FileTarget.fd(fd), in, 1024).userData(2);
        assertEquals(0, one(ring).res());
        closeFd(fd);
    }

    @Test
    void vectoredWriteAndRead() throws Exception {
        Path f = dir.resolve("vec");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        byte[][] parts = {pattern(100, 3), pattern(4000, 4), pattern(333, 5)};
        IoVecArray out = IoVecArray.allocate(arena, 3);
        for (int i = 0; i < 3; i++) {
            out.set(i, buffer(parts[i]));
        }
        ring.nextSqe().writev(FileTarget.fd(fd), out, 3, 10).userData(1);
        assertEquals(4433, one(ring).res());
        IoVecArray in = IoVecArray.allocate(arena, 2);
        MemorySegment a = arena.allocate(2000);
        MemorySegment b = arena.allocate(2433);
        in.set(0, a).set(1, b);
        assertEquals(4433, in.totalLength(2));
        ring.nextSqe().readv(FileTarget.fd(fd), in, 2, 10).userData(2);
        assertEquals(4433, one(ring).res());
        byte[] all = new byte[4433];
        System.arraycopy(parts[0], 0, all, 0, 100);
        System.arraycopy(parts[1], 0, all, 100, 4000);
        System.arraycopy(parts[2], 0, all, 4100, 333);
        byte[] got = new byte[4433];
        System.arraycopy(bytes(a), 0, got, 0, 2000);
        System.arraycopy(bytes(b), 0, got, 2000, 2433);
        assertArrayEquals(all, got);
        closeFd(fd);
    }

    @Test
    void fixedBufferWriteAndRead() throws Exception {
        Path f = dir.resolve("fixed");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        MemorySegment region = arena.allocate(16384, 4096);
        ring.registerBuffers(region);
        byte[] data = pattern(4096, 6);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, region, 4096, 4096);
        ring.nextSqe().writeFixed(FileTarget.fd(fd), region.asSlice(4096, 4096), 0, 0).userData(1);
        assertEquals(4096, one(ring).res());
        ring.nextSqe().readFixed(FileTarget.fd(fd), region.address() + 8192, 4096, 0, 0).userData(2);
        assertEquals(4096, one(ring).res());
        assertArrayEquals(data, bytes(region.asSlice(8192, 4096)));
        ring.unregisterBuffers();
        // Without registered buffers the kernel would answer EFAULT; the ring refuses before submitting.
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ring.nextSqe().readFixed(FileTarget.fd(fd), region.asSlice(0, 4096), 0, 0));
        assertEquals(0, ring.sqPending());
        closeFd(fd);
    }

    @Test
    void openatReportsMissingFilesAndCreates() throws Exception {
        ring.nextSqe().openat(AT_FDCWD, cstr(dir.resolve("absent")), Uapi.O_RDONLY, 0).userData(1);
        assertEquals(-Errno.ENOENT, one(ring).res());
        Path f = dir.resolve("made");
        int fd = openFile(f, Uapi.O_WRONLY | Uapi.O_CREAT | Uapi.O_EXCL);
        assertTrue(Files.exists(f));
        closeFd(fd);
        ring.nextSqe().openat(AT_FDCWD, cstr(f), Uapi.O_WRONLY | Uapi.O_CREAT | Uapi.O_EXCL, 0644).userData(2);
        assertEquals(-Errno.EEXIST, one(ring).res());
        ring.nextSqe().close(fd).userData(3);
        assertEquals(-Errno.EBADF, one(ring).res(), "closing twice");
    }

    @Test
    void openat2HonoursResolveFlags() throws Exception {
        Path target = dir.resolve("target");
        Files.write(target, pattern(10, 7));
        Path link = dir.resolve("link");
        Files.createSymbolicLink(link, target);
        MemorySegment how = arena.allocate(OpenHow.LAYOUT);
        how.set(JAVA_LONG, OpenHow.FLAGS, Uapi.O_RDONLY | Uapi.O_CLOEXEC);
        how.set(JAVA_LONG, OpenHow.RESOLVE, OpenHow.RESOLVE_NO_SYMLINKS);
        ring.nextSqe().openat2(AT_FDCWD, cstr(link), how).userData(1);
        assertEquals(-Errno.ELOOP, one(ring).res());
        ring.nextSqe().openat2(AT_FDCWD, cstr(target), how).userData(2);
        int fd = one(ring).res();
        assertTrue(fd >= 0);
        closeFd(fd);
    }

    @Test
    void openIntoARegisteredSlotReadAndCloseTheSlot() throws Exception {
        Path f = dir.resolve("slot");
        byte[] data = pattern(4096, 8);
        Files.write(f, data);
        ring.registerFilesSparse(4);
        ring.nextSqe().openatDirect(AT_FDCWD, cstr(f), Uapi.O_RDONLY, 0, 2).userData(1);
        assertEquals(0, one(ring).res());
        MemorySegment in = arena.allocate(4096);
        ring.nextSqe().read(FileTarget.fixed(2), in, 0).userData(2);
        assertEquals(4096, one(ring).res());
        assertArrayEquals(data, bytes(in));
        ring.nextSqe().closeFixed(2).userData(3);
        assertEquals(0, one(ring).res());
        ring.nextSqe().read(FileTarget.fixed(2), in, 0).userData(4);
        assertEquals(-Errno.EBADF, one(ring).res(), "the slot is empty after CLOSE");
        // Kernel-chosen slot.
        ring.nextSqe().openatDirect(AT_FDCWD, cstr(f), Uapi.O_RDONLY, 0, -1).userData(5);
        int slot = one(ring).res();
        assertTrue(slot >= 0 && slot < 4, "allocated slot " + slot);
    }

    @Test
    void fsyncAndFdatasyncAndSyncFileRange() throws Exception {
        Path f = dir.resolve("sync");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        ring.nextSqe().write(FileTarget.fd(fd), buffer(pattern(4096, 9)), 0).userData(1);
        assertEquals(4096, one(ring).res());
        ring.nextSqe().fsync(FileTarget.fd(fd), false).userData(2);
        assertEquals(0, one(ring).res());
        ring.nextSqe().fsync(FileTarget.fd(fd), true).userData(3);
        assertEquals(0, one(ring).res());
        ring.nextSqe().syncFileRange(FileTarget.fd(fd), 0, 4096,
                Uapi.SYNC_FILE_RANGE_WAIT_BEFORE | Uapi.SYNC_FILE_RANGE_WRITE | Uapi.SYNC_FILE_RANGE_WAIT_AFTER).userData(4);
        assertEquals(0, one(ring).res());
        ring.nextSqe().fsync(FileTarget.fd(12345), false).userData(5);
        assertEquals(-Errno.EBADF, one(ring).res());
        closeFd(fd);
    }

    @Test
    void fallocateFadviseFtruncateAndStatx() throws Exception {
        Path f = dir.resolve("sized");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        ring.nextSqe().fallocate(FileTarget.fd(fd), 0, 0, 1 << 20).userData(1);
        assertEquals(0, one(ring).res());
        assertEquals(1 << 20, Files.size(f));
        ring.nextSqe().fadvise(FileTarget.fd(fd), 0, 0, Uapi.POSIX_FADV_RANDOM).userData(2);
        assertEquals(0, one(ring).res());
        assumeTrue(ring.probe().supports(Opcode.FTRUNCATE), "IORING_OP_FTRUNCATE needs Linux 6.9");
        ring.nextSqe().ftruncate(FileTarget.fd(fd), 12345).userData(3);
        assertEquals(0, one(ring).res());
        assertEquals(12345, Files.size(f));
        StatxBuffer st = StatxBuffer.allocate(arena);
        ring.nextSqe().statx(AT_FDCWD, cstr(f), 0, StatxBuffer.MASK_BASIC | StatxBuffer.MASK_DIOALIGN, st.segment())
                .userData(4);
        assertEquals(0, one(ring).res());
        assertEquals(12345, st.size());
        assertTrue(st.isRegularFile());
        assertTrue(st.blockSize() > 0);
        // statx of the open descriptor itself: empty path with AT_EMPTY_PATH
        StatxBuffer st2 = StatxBuffer.allocate(arena);
        ring.nextSqe().statx(fd, arena.allocateFrom(""), Uapi.AT_EMPTY_PATH, StatxBuffer.MASK_SIZE, st2.segment())
                .userData(5);
        assertEquals(0, one(ring).res());
        assertEquals(12345, st2.size());
        closeFd(fd);
    }

    @Test
    void madviseOnMappedMemory() throws Exception {
        MemorySegment region = arena.allocate(8192, 4096);
        ring.nextSqe().madvise(region, Uapi.MADV_WILLNEED).userData(1);
        assertEquals(0, one(ring).res());
    }

    @Test
    void mkdirRenameAndUnlink() throws Exception {
        Path d = dir.resolve("sub");
        ring.nextSqe().mkdirat(AT_FDCWD, cstr(d), 0755).userData(1);
        assertEquals(0, one(ring).res());
        assertTrue(Files.isDirectory(d));
        Path a = d.resolve("a");
        Files.write(a, pattern(5, 1));
        Path b = d.resolve("b");
        ring.nextSqe().renameat(AT_FDCWD, cstr(a), AT_FDCWD, cstr(b), 0).userData(2);
        assertEquals(0, one(ring).res());
        assertFalse(Files.exists(a));
        assertTrue(Files.exists(b));
        ring.nextSqe().unlinkat(AT_FDCWD, cstr(d), Uapi.AT_REMOVEDIR).userData(3);
        assertEquals(-Errno.ENOTEMPTY, one(ring).res());
        ring.nextSqe().unlinkat(AT_FDCWD, cstr(b), 0).userData(4);
        assertEquals(0, one(ring).res());
        ring.nextSqe().unlinkat(AT_FDCWD, cstr(d), Uapi.AT_REMOVEDIR).userData(5);
        assertEquals(0, one(ring).res());
        assertFalse(Files.exists(d));
    }

    @Test
    void spliceFromAFileIntoAPipe() throws Exception {
        Path f = dir.resolve("splice");
        byte[] data = pattern(10000, 11);
        Files.write(f, data);
        int fd = openFile(f, Uapi.O_RDONLY);
        int[] p = Rings.pipe();
        ring.nextSqe().splice(FileTarget.fd(fd), 1000, FileTarget.fd(p[1]), -1, 4000, 0).userData(1);
        assertEquals(4000, one(ring).res());
        MemorySegment in = arena.allocate(4000);
        assertEquals(4000, Syscalls.system().read(p[0], in, 4000));
        assertArrayEquals(Arrays.copyOfRange(data, 1000, 5000), bytes(in));
        Rings.close(p[0]);
        Rings.close(p[1]);
        closeFd(fd);
    }

    @Test
    void timeoutExpiresOrCompletesOnCount() throws Exception {
        MemorySegment ts = Timespec.allocate(arena, Duration.ofMillis(20));
        ring.nextSqe().timeout(ts, 0, 0).userData(1);
        assertEquals(-Errno.ETIME, one(ring).res());
        MemorySegment longTs = Timespec.allocate(arena, Duration.ofSeconds(30));
        ring.nextSqe().timeout(longTs, 1, 0).userData(2);
        ring.nextSqe().nop().userData(3);
        Map<Long, Rings.Cqe> c = Rings.all(ring, 2);
        assertEquals(0, c.get(2L).res(), "count reached");
        assertEquals(0, c.get(3L).res());
    }

    @Test
    void linkTimeoutCancelsAStuckRead() throws Exception {
        int[] p = Rings.pipe();
        MemorySegment in = arena.allocate(16);
        ring.nextSqe().read(FileTarget.fd(p[0]), in, -1).link().userData(1);
        ring.nextSqe().linkTimeout(Timespec.allocate(arena, Duration.ofMillis(20)), 0).userData(2);
        Map<Long, Rings.Cqe> c = Rings.all(ring, 2);
        assertEquals(-Errno.ECANCELED, c.get(1L).res(), "the read is cancelled by its link timeout");
        assertEquals(-Errno.ETIME, c.get(2L).res());
        Rings.close(p[0]);
        Rings.close(p[1]);
    }

    @Test
    void asyncCancelByUserDataFileAndAny() throws Exception {
        int[] p = Rings.pipe();
        MemorySegment in = arena.allocate(16);
        ring.nextSqe().read(FileTarget.fd(p[0]), in, -1).userData(1);
        ring.submit();
        ring.nextSqe().cancel(1, 0).userData(2);
        Map<Long, Rings.Cqe> c = Rings.all(ring, 2);
        assertEquals(-Errno.ECANCELED, c.get(1L).res());
        assertEquals(0, c.get(2L).res());

        ring.nextSqe().read(FileTarget.fd(p[0]), in, -1).userData(3);
        ring.nextSqe().read(FileTarget.fd(p[0]), in, -1).userData(4);
        ring.submit();
        ring.nextSqe().cancelFile(FileTarget.fd(p[0])).userData(5);
        c = Rings.all(ring, 3);
        assertEquals(-Errno.ECANCELED, c.get(3L).res());
        assertEquals(-Errno.ECANCELED, c.get(4L).res());
        assertEquals(2, c.get(5L).res(), "cancelled two");

        ring.nextSqe().read(FileTarget.fd(p[0]), in, -1).userData(6);
        ring.submit();
        ring.nextSqe().cancelAll().userData(7);
        c = Rings.all(ring, 2);
        assertEquals(-Errno.ECANCELED, c.get(6L).res());
        ring.nextSqe().cancel(424242, 0).userData(8);
        assertEquals(-Errno.ENOENT, one(ring).res(), "nothing to cancel");
        Rings.close(p[0]);
        Rings.close(p[1]);
    }

    @Test
    void msgRingPostsOnAnotherRing() throws Exception {
        try (IoUring other = IoUring.open(8)) {
            ring.nextSqe().msgRing(other.fd(), 777, 0xABCDL, 0).userData(1);
            assertEquals(0, one(ring).res());
            other.waitCompletions(1, 5_000_000_000L);
            Rings.Cqe c = one(other);
            assertEquals(0xABCDL, c.userData());
            assertEquals(777, c.res());
        }
    }

    @Test
    void rwFlagsNowaitAndDsync() throws Exception {
        int[] p = Rings.pipe();
        MemorySegment in = arena.allocate(16);
        ring.nextSqe().read(FileTarget.fd(p[0]), in, -1).rwFlags(RwFlag.NOWAIT).userData(1);
        assertEquals(-Errno.EAGAIN, one(ring).res(), "RWF_NOWAIT on an empty pipe");
        Rings.close(p[0]);
        Rings.close(p[1]);
        Path f = dir.resolve("dsync");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        ring.nextSqe().write(FileTarget.fd(fd), buffer(pattern(512, 12)), 0).rwFlags(RwFlag.DSYNC).userData(2);
        assertEquals(512, one(ring).res());
        ring.nextSqe().write(FileTarget.fd(fd), buffer(pattern(512, 12)), 0).rwFlags(0x4000_0000).userData(3);
        assertEquals(-Errno.EOPNOTSUPP, one(ring).res(), "an unknown RWF_ flag is refused by the kernel");
        closeFd(fd);
    }

    @Test
    void linkedWriteThenReadSeesTheWrite() throws Exception {
        Path f = dir.resolve("linked");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT);
        byte[] data = pattern(4096, 13);
        MemorySegment in = arena.allocate(4096);
        ring.nextSqe().write(FileTarget.fd(fd), buffer(data), 0).link().userData(1);
        ring.nextSqe().fsync(FileTarget.fd(fd), true).link().userData(2);
        ring.nextSqe().read(FileTarget.fd(fd), in, 0).userData(3);
        Map<Long, Rings.Cqe> c = Rings.all(ring, 3);
        assertEquals(4096, c.get(1L).res());
        assertEquals(0, c.get(2L).res());
        assertEquals(4096, c.get(3L).res());
        assertArrayEquals(data, bytes(in));
        closeFd(fd);
    }

    @Test
    void aFailedLinkCancelsTheRestButAHardLinkGoesOn() throws Exception {
        ring.nextSqe().fsync(FileTarget.fd(54321), false).link().userData(1);
        ring.nextSqe().nop().userData(2);
        Map<Long, Rings.Cqe> c = Rings.all(ring, 2);
        assertEquals(-Errno.EBADF, c.get(1L).res());
        assertEquals(-Errno.ECANCELED, c.get(2L).res());
        ring.nextSqe().fsync(FileTarget.fd(54321), false).hardLink().userData(3);
        ring.nextSqe().nop().userData(4);
        c = Rings.all(ring, 2);
        assertEquals(-Errno.EBADF, c.get(3L).res());
        assertEquals(0, c.get(4L).res());
    }

    @Test
    void drainAsyncAndSkipSuccess() throws Exception {
        ring.nextSqe().nop().async().userData(1);
        ring.nextSqe().nop().drain().userData(2);
        ring.nextSqe().nop().skipSuccess().userData(3);
        ring.nextSqe().fsync(FileTarget.fd(54321), false).skipSuccess().userData(4);
        ring.nextSqe().nop().userData(5);
        Map<Long, Rings.Cqe> c = Rings.all(ring, 4);
        assertEquals(0, c.get(1L).res());
        assertEquals(0, c.get(2L).res());
        assertFalse(c.containsKey(3L), "a successful CQE_SKIP_SUCCESS entry posts nothing");
        assertEquals(-Errno.EBADF, c.get(4L).res(), "a failed one still does");
        assertEquals(0, c.get(5L).res());
        assertEquals(0, ring.cqReady());
    }

    @Test
    void refusedArgumentsNeverReachTheKernel() throws Exception {
        MemorySegment heap = MemorySegment.ofArray(new byte[4096]);
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ring.nextSqe().read(FileTarget.fd(0), heap, 0));
        assertTrue(e.getMessage().contains("native"), e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ring.nextSqe().nop().flags(Uapi.IOSQE_FIXED_FILE));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ring.nextSqe().readv(FileTarget.fd(0), IoVecArray.allocate(arena, 1), 2, 0));
        assertEquals(0, ring.sqPending(), "each refused entry was given back");
        ring.nextSqe().nop().userData(9);
        assertEquals(9, one(ring).userData(), "only the good entry is submitted");
        assertEquals(0, ring.cqReady());
    }

    @Test
    void writesThroughTheFilePositionWithOffsetMinusOne() throws Exception {
        Path f = dir.resolve("pos");
        int fd = openFile(f, Uapi.O_RDWR | Uapi.O_CREAT | Uapi.O_APPEND);
        ring.nextSqe().write(FileTarget.fd(fd), buffer(pattern(10, 1)), -1).userData(1);
        assertEquals(10, one(ring).res());
        ring.nextSqe().write(FileTarget.fd(fd), buffer(pattern(10, 2)), -1).userData(2);
        assertEquals(10, one(ring).res());
        byte[] all = Files.readAllBytes(f);
        assertEquals(20, all.length);
        assertArrayEquals(pattern(10, 2), Arrays.copyOfRange(all, 10, 20));
        assertEquals(pattern(10, 1)[3], all[3]);
        closeFd(fd);
    }
}
