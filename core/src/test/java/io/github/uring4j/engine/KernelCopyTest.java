package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A copy split into pieces on several threads: every byte where it belongs, and where it stopped, said right. */
class KernelCopyTest {
    @TempDir
    Path dir;

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A descriptor of {@code p} opened with {@code flags}, closed with the block. */
    private record Fd(int fd) implements AutoCloseable {
        static Fd open(Path p, int flags) throws IOException {
            try (Arena a = Arena.ofConfined()) {
                int fd = LeanCalls.open(LeanCalls.allocateCapture(a), a.allocateFrom(p.toString()),
                        flags | Uapi.O_CLOEXEC, 0644);
                if (fd < 0) {
                    throw new IOException(Errno.name(-fd) + " opening " + p);
                }
                return new Fd(fd);
            }
        }

        /** The file position of the descriptor. */
        long position() {
            try (Arena a = Arena.ofConfined()) {
                return LeanCalls.lseek(LeanCalls.allocateCapture(a), fd, 0, Uapi.SEEK_CUR);
            }
        }

        @Override
        public void close() {
            try (Arena a = Arena.ofConfined()) {
                LeanCalls.close(LeanCalls.allocateCapture(a), fd);
            }
        }
    }

    @Test
    void piecesOnSeveralThreadsCopyEveryByteToItsOffset() throws Exception {
        byte[] data = random(1_000_003, 1); // not a whole number of pieces
        Path src = Files.write(dir.resolve("src"), data);
        Path dst = dir.resolve("dst");
        Files.write(dst, new byte[] {1, 2, 3});
        try (Fd in = Fd.open(src, Uapi.O_RDONLY);
                Fd out = Fd.open(dst, Uapi.O_RDWR | Uapi.O_CREAT)) {
            KernelCopy.Result r = KernelCopy.copy(in.fd(), 17, out.fd(), 5, data.length - 17, 65_536, 4, false);
            assertNotNull(r);
            assertEquals(data.length - 17, r.copied());
            assertEquals(0, r.errno());
            assertTrue(r.calls() >= (data.length - 17) / 65_536, "calls " + r.calls());
            assertEquals(0, in.position(), "the source's position stays");
            assertEquals(0, out.position(), "the target's position stays");
        }
        byte[] got = Files.readAllBytes(dst);
        assertEquals(5 + data.length - 17, got.length);
        assertArrayEquals(new byte[] {1, 2, 3, 0, 0}, Arrays.copyOf(got, 5));
        assertArrayEquals(Arrays.copyOfRange(data, 17, data.length), Arrays.copyOfRange(got, 5, got.length));
    }

    @Test
    void aSourceThatEndsEarlyStopsTheCopyAtItsEndWithoutAnError() throws Exception {
        byte[] data = random(300_000, 2);
        Path src = Files.write(dir.resolve("short"), data);
        Path dst = dir.resolve("dst");
        try (Fd in = Fd.open(src, Uapi.O_RDONLY);
                Fd out = Fd.open(dst, Uapi.O_RDWR | Uapi.O_CREAT)) {
            KernelCopy.Result r = KernelCopy.copy(in.fd(), 0, out.fd(), 0, 10_000_000, 65_536, 3, false);
            assertEquals(data.length, r.copied());
            assertEquals(0, r.errno());
        }
        assertArrayEquals(data, Files.readAllBytes(dst));
    }

    @Test
    void anErrorStopsTheCopyWhereItHappenedAndSaysWhich() throws Exception {
        Path src = Files.write(dir.resolve("src"), random(500_000, 3));
        Path dst = Files.write(dir.resolve("read-only-target"), new byte[0]);
        try (Fd in = Fd.open(src, Uapi.O_RDONLY);
                Fd out = Fd.open(dst, Uapi.O_RDONLY)) {
            KernelCopy.Result r = KernelCopy.copy(in.fd(), 0, out.fd(), 0, 500_000, 65_536, 4, false);
            assertEquals(0, r.copied());
            assertEquals(Errno.EBADF, r.errno(), Errno.name(r.errno()));
        }
        assertEquals(0, Files.size(dst));
    }

    @Test
    void oneFileIsLeftToTheCaller() throws Exception {
        Path p = Files.write(dir.resolve("self"), random(400_000, 4));
        try (Fd a = Fd.open(p, Uapi.O_RDWR);
                Fd b = Fd.open(p, Uapi.O_RDWR)) {
            assertNull(KernelCopy.copy(a.fd(), 0, b.fd(), 100_000, 300_000, 65_536, 4, false),
                    "two descriptors, one file");
            assertNull(KernelCopy.copy(a.fd(), 0, a.fd(), 300_000, 100_000, 65_536, 4, false));
        }
    }

    @Test
    void aSourceInThePageCacheIsLeftWholeOneOnTheDeviceIsSplit() throws Exception {
        Path cached = Files.write(dir.resolve("cached"), random(1_000_000, 6)); // just written: in the page cache
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.getFileStore(cached).type().equals("overlay"),
                "cachestat sees no page of an overlayfs file (they are its backing file's)");
        Path sparse = dir.resolve("sparse");
        try (var f = java.nio.channels.FileChannel.open(sparse, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            f.truncate(0);
            f.write(java.nio.ByteBuffer.wrap(new byte[] {9}), 999_999); // a hole: no page of it is cached
        }
        Path dst = dir.resolve("dst");
        try (Fd c = Fd.open(cached, Uapi.O_RDONLY); Fd h = Fd.open(sparse, Uapi.O_RDONLY);
                Fd out = Fd.open(dst, Uapi.O_RDWR | Uapi.O_CREAT);
                Fd other = Fd.open(dir.resolve("other"), Uapi.O_RDWR | Uapi.O_CREAT)) {
            assertNull(KernelCopy.copy(c.fd(), 0, out.fd(), 0, 1_000_000, 65_536, 4, true), "cached: left whole");
            assertNotNull(KernelCopy.copy(c.fd(), 0, other.fd(), 0, 1_000_000, 65_536, 4, false));
            KernelCopy.Result r = KernelCopy.copy(h.fd(), 0, out.fd(), 0, 1_000_000, 65_536, 4, true);
            assertNotNull(r, "a hole is not in the page cache: split");
            assertEquals(1_000_000, r.copied());
            assertNull(KernelCopy.copy(h.fd(), 900_000, out.fd(), 0, 1_000_000, 65_536, 4, true),
                    "fewer than two pieces left in the source");
        }
        byte[] got = Files.readAllBytes(dst);
        assertEquals(1_000_000, got.length);
        byte[] want = new byte[1_000_000];
        want[999_999] = 9;
        assertArrayEquals(want, got);
    }

    @Test
    void aCopyIntoTheTargetsExistingBytesIsLeftWhole() throws Exception {
        Path src = Files.write(dir.resolve("src"), random(1_000_000, 7));
        Path dst = Files.write(dir.resolve("dst"), random(10_000, 8));
        try (Fd in = Fd.open(src, Uapi.O_RDONLY); Fd out = Fd.open(dst, Uapi.O_RDWR)) {
            assertNull(KernelCopy.copy(in.fd(), 0, out.fd(), 9_999, 1_000_000, 65_536, 4, false),
                    "starts inside the target: a copy that stopped early could not be undone");
            assertNotNull(KernelCopy.copy(in.fd(), 0, out.fd(), 10_000, 1_000_000, 65_536, 4, false),
                    "starts at its end");
        }
    }

    @Test
    void smallCopiesAreNotSplitAndBadArgumentsAreRefused() throws Exception {
        assertTrue(KernelCopy.splits(2 * KernelCopy.PIECE));
        assertTrue(!KernelCopy.splits(2 * KernelCopy.PIECE - 1));
        assertNull(KernelCopy.copy(0, 0, 1, 0, 4096));
        assertThrows(IllegalArgumentException.class, () -> KernelCopy.copy(-1, 0, 1, 0, 1L << 40));
        assertThrows(IllegalArgumentException.class, () -> KernelCopy.copy(0, -5, 1, 0, 1L << 40));
        assertThrows(IllegalArgumentException.class, () -> KernelCopy.copy(0, 0, 1, 0, 1L << 40, 0, 2, false));
    }

    @Test
    void anInterruptedCallerWaitsForItsHelpersAndKeepsItsInterrupt() throws Exception {
        byte[] data = random(2_000_000, 5);
        Path src = Files.write(dir.resolve("src"), data);
        Path dst = dir.resolve("dst");
        try (Fd in = Fd.open(src, Uapi.O_RDONLY);
                Fd out = Fd.open(dst, Uapi.O_RDWR | Uapi.O_CREAT)) {
            Thread.currentThread().interrupt();
            KernelCopy.Result r;
            try {
                r = KernelCopy.copy(in.fd(), 0, out.fd(), 0, data.length, 4096, 4, false);
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt status is kept (and cleared here)");
            }
            assertEquals(data.length, r.copied());
        }
        assertArrayEquals(data, Files.readAllBytes(dst));
    }
}
