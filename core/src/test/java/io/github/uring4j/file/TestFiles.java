package io.github.uring4j.file;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.LeanCalls;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Helpers shared by the file-layer tests. */
public final class TestFiles {
    private TestFiles() {
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed + (i >>> 8));
        }
        return b;
    }

    static Path fifo(Path dir, String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name);
        Process pr = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        if (pr.waitFor() != 0) {
            throw new IOException("mkfifo failed");
        }
        return p;
    }

    /**
     * Skips the test where {@code p} is on tmpfs (a test directory under a {@code /tmp} in memory): what it checks is a
     * disk file system's answer, and {@code why} says what tmpfs does instead.
     */
    public static void assumeNotInMemory(Path p, String why) throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.getFileStore(p).type().equals("tmpfs"),
                () -> p.getParent() + " is on tmpfs: " + why);
    }

    /**
     * Skips the test where the file system of {@code dir} serves no read from the page cache on the caller's thread:
     * one that refuses {@code RWF_NOWAIT} reads (overlayfs, a container's own file system) and does not keep its files
     * in memory (tmpfs, whose reads are plain ones there).
     */
    public static void assumeCallerReads(Path dir) throws IOException {
        Path probe = Files.write(Files.createTempFile(dir, "nowait-probe", ".bin"), new byte[4096]);
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment capture = io.github.uring4j.linux.LeanCalls.allocateCapture(a);
            java.lang.foreign.MemorySegment iov = a.allocate(16, 8);
            iov.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, a.allocate(4096).address());
            iov.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, 4096);
            int fd = io.github.uring4j.linux.LeanCalls.open(capture, a.allocateFrom(probe.toString()),
                    io.github.uring4j.linux.Uapi.O_RDONLY | io.github.uring4j.linux.Uapi.O_CLOEXEC, 0);
            try {
                long n = io.github.uring4j.linux.LeanCalls.preadv2(capture, fd, iov, 1, 0,
                        io.github.uring4j.linux.Uapi.RWF_NOWAIT);
                boolean inMemory = io.github.uring4j.linux.LeanCalls.inMemory(capture, fd,
                        a.allocate(io.github.uring4j.linux.LeanCalls.STATFS_SIZE, 8));
                org.junit.jupiter.api.Assumptions.assumeTrue(n != -io.github.uring4j.linux.Errno.EOPNOTSUPP || inMemory,
                        () -> dir + " is on a file system that refuses RWF_NOWAIT reads: they go to the loop");
            } finally {
                io.github.uring4j.linux.LeanCalls.close(capture, fd);
            }
        } finally {
            Files.delete(probe);
        }
    }

    /**
     * Skips the test where the file system of {@code dir} takes a write at {@code position} (XFS and tmpfs hold files
     * of up to 8 EiB, ext4 of 16 TiB): the test checks how a refused position is answered.
     */
    public static void assumeRefusesPosition(Path dir, long position) throws IOException {
        Path probe = Files.createTempFile(dir, "position-probe", ".bin");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(probe,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(16), position);
            org.junit.jupiter.api.Assumptions.abort(Files.getFileStore(probe).type() + " at " + dir
                    + " takes a write at " + position + ": no position to refuse");
        } catch (IOException refused) {
            // what the test needs
        } finally {
            Files.delete(probe);
        }
    }

    /**
     * Size and CRC32C of {@code p}'s bytes, with {@code [zeroFrom, zeroTo)} read as zeros; of a file over 64 MiB (a
     * sparse one, written near the largest offset a file system takes: tmpfs takes 8 EiB) only its first and last
     * 32 MiB are read.
     */
    public static String digest(Path p, long zeroFrom, long zeroTo) throws IOException {
        long size = Files.size(p);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        long part = 32L << 20;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p)) {
            for (long[] range : size <= 2 * part ? new long[][] {{0, size}}
                    : new long[][] {{0, part}, {size - part, size}}) {
                ByteBuffer b = ByteBuffer.allocate((int) (range[1] - range[0]));
                while (b.hasRemaining() && ch.read(b, range[0] + b.position()) > 0) {
                    // until the range is read
                }
                byte[] a = b.array();
                for (long at = Math.max(zeroFrom, range[0]); at < Math.min(zeroTo, range[0] + b.position()); at++) {
                    a[(int) (at - range[0])] = 0;
                }
                crc.update(a, 0, b.position());
            }
        }
        return size + " bytes, crc " + Long.toHexString(crc.getValue());
    }

    /**
     * A file system of {@code bytes} of its own (ext4 in an image under {@code dir}, loop-mounted), to fill up; the
     * test is skipped where one cannot be made (not root, no loop devices, no mkfs). {@link #unmount} removes it.
     */
    public static Path smallFileSystem(Path dir, long bytes) throws Exception {
        return smallFileSystem(dir, bytes, "ext4");
    }

    /** As {@link #smallFileSystem(Path, long)}, of {@code type} ({@code mkfs.<type>}: "ext4", "xfs"). */
    public static Path smallFileSystem(Path dir, long bytes, String type) throws Exception {
        Path image = dir.resolve("small-" + type + ".img");
        Path mountPoint = Files.createDirectories(dir.resolve("small-" + type));
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(bytes);
        }
        String why = run("mkfs." + type, "-q", type.equals("xfs") ? "-f" : "-F", image.toString()); // force: a new image
        if (why == null) {
            why = run("mount", "-o", "loop", image.toString(), mountPoint.toString());
        }
        String reason = why;
        org.junit.jupiter.api.Assumptions.assumeTrue(reason == null,
                () -> "no small file system to fill here: " + reason);
        return mountPoint;
    }

    /**
     * An overlayfs of the test's own (a container's file system is one), its layers under {@code dir}; skipped where
     * none can be mounted (not root, no overlay support). {@link #unmount} removes it.
     */
    public static Path overlay(Path dir) throws Exception {
        Path lower = Files.createDirectories(dir.resolve("ov-lower"));
        Path upper = Files.createDirectories(dir.resolve("ov-upper"));
        Path work = Files.createDirectories(dir.resolve("ov-work"));
        Path merged = Files.createDirectories(dir.resolve("ov-merged"));
        String why = run("mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + lower + ",upperdir=" + upper
                + ",workdir=" + work, merged.toString());
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, () -> "no overlayfs here: " + why);
        return merged;
    }

    /**
     * A block device of the test's own: a loop device over an image of {@code bytes} under {@code dir}, its bytes
     * {@code content} repeated; the test is skipped where none can be attached (not root, no loop devices).
     * {@link #detach} removes it.
     */
    public static Path loopDevice(Path dir, long bytes, byte[] content) throws Exception {
        Path image = dir.resolve("block.img");
        try (FileChannel ch = FileChannel.open(image, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (long at = 0; at < bytes; at += content.length) {
                ch.write(ByteBuffer.wrap(content, 0, (int) Math.min(content.length, bytes - at)), at);
            }
        }
        String out;
        try {
            Process p = new ProcessBuilder("losetup", "-f", "--show", image.toString()).redirectErrorStream(true)
                    .start();
            out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            boolean ok = p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0
                    && out.startsWith("/dev/");
            String why = out;
            org.junit.jupiter.api.Assumptions.assumeTrue(ok, () -> "no loop device here: " + why);
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort("no losetup here: " + e.getMessage());
            return null;
        }
        return Path.of(out);
    }

    public static void detach(Path device) throws Exception {
        String why = run("losetup", "-d", device.toString());
        if (why != null) {
            throw new IOException("cannot detach " + device + ": " + why);
        }
    }

    public static void unmount(Path mountPoint) throws Exception {
        String why = run("umount", "-l", mountPoint.toString());
        if (why != null) {
            throw new IOException("cannot unmount " + mountPoint + ": " + why);
        }
    }

    /** Runs a command: null when it exits 0, else what it said. */
    private static String run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return String.join(" ", command) + ": did not end in 60 s";
            }
            return p.exitValue() == 0 ? null
                    : String.join(" ", command) + ": exit " + p.exitValue() + ": " + out.trim();
        } catch (IOException e) {
            return String.join(" ", command) + ": " + e.getMessage();
        }
    }

    /**
     * Drops {@code p}'s pages from the page cache (written to the device first), so that a copy of it reads the
     * device: as a large copy from the device is made (by several threads at once), not as one from the cache.
     */
    public static void evict(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p,
                StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = LeanCalls.allocateCapture(a);
            int fd = LeanCalls.open(capture, a.allocateFrom(p.toString()),
                    Uapi.O_RDONLY | Uapi.O_CLOEXEC, 0);
            if (fd < 0) {
                throw new IOException("cannot open " + p + ": " + Errno.name(-fd));
            }
            try {
                int r = Syscalls.system().fadvise(fd, 0, 0,
                        Uapi.POSIX_FADV_DONTNEED);
                if (r != 0) {
                    throw new IOException("posix_fadvise DONTNEED of " + p + ": " + Errno.name(-r));
                }
            } finally {
                LeanCalls.close(capture, fd);
            }
        }
    }

    static int openFds() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }

    static List<String> fdTargets() throws IOException {
        List<String> out = new ArrayList<>();
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    out.add(p.getFileName() + " -> " + Files.readSymbolicLink(p));
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return out;
    }

    /** Code run on an event loop by {@link #onLoop}. */
    public interface LoopBody {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} on the event loop that completes a read of {@code f} (in its {@code CompletionHandler}, which
     * always runs there): the future ends with null when the body returned, with what it threw otherwise, and
     * exceptionally when the read failed.
     */
    public static CompletableFuture<Throwable> onLoop(AsyncFile f, LoopBody body) {
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        f.read(ByteBuffer.allocateDirect(16), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer n, Object a) {
                try {
                    body.run();
                    seen.complete(null);
                } catch (Throwable e) {
                    seen.complete(e);
                }
            }

            @Override
            public void failed(Throwable e, Object a) {
                seen.completeExceptionally(e);
            }
        });
        return seen;
    }

    /** A handler that completes {@code f} with the operation's result or failure. */
    public static <V, A> java.nio.channels.CompletionHandler<V, A> into(CompletableFuture<V> f) {
        return new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(V v, A a) {
                f.complete(v);
            }

            @Override
            public void failed(Throwable e, A a) {
                f.completeExceptionally(e);
            }
        };
    }

    /** The cause behind a failed future. */
    static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("operation did not complete in 30 s", e);
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        } catch (CompletionException e) {
            throw e;
        }
    }

    static ByteBuffer direct(byte[] b) {
        ByteBuffer d = ByteBuffer.allocateDirect(b.length);
        d.put(b).flip();
        return d;
    }
}
