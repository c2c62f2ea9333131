package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.data.BlockData;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Data for the JMH benchmarks, outside the repository: {@code -During4j.jmh.dir} or
 * {@code java.io.tmpdir/uring4j-jmh}. Files are written once and reused while their size matches.
 */
final class JmhFiles {

    private JmhFiles() {
    }

    static Path root() throws IOException {
        Path p = Path.of(System.getProperty("uring4j.jmh.dir", Path.of(System.getProperty("java.io.tmpdir"), "uring4j-jmh").toString()));
        Files.createDirectories(p);
        return p;
    }

    /** A file of {@code size} bytes holding {@link BlockData} of {@code fileId}; kept when it already has that size. */
    static Path blockFile(Path file, int fileId, long size) throws IOException {
        if (Files.isRegularFile(file) && Files.size(file) == size) {
            return file;
        }
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        int chunk = (int) Math.min(size, 1 << 20);
        try (Arena a = Arena.ofConfined();
             FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            MemorySegment buf = a.allocate(chunk, 4096);
            ByteBuffer bb = buf.asByteBuffer();
            for (long off = 0; off < size; off += chunk) {
                int len = (int) Math.min(chunk, size - off);
                BlockData.fill(buf, 0, fileId, off, len);
                bb.clear().limit(len);
                while (bb.hasRemaining()) {
                    ch.write(bb, off + bb.position());
                }
            }
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    /** Throws when {@code len} bytes at {@code buf[0]} are not file {@code fileId} at {@code offset}; else a word to consume. */
    static long check(MemorySegment buf, int fileId, long offset, int len) {
        return check(buf, 0, fileId, offset, len);
    }

    /** As {@link #check(MemorySegment, int, long, int)} for the bytes at {@code buf[bufOffset]}. */
    static long check(MemorySegment buf, long bufOffset, int fileId, long offset, int len) {
        long bad = BlockData.verify(buf, bufOffset, fileId, offset, len);
        if (bad >= 0) {
            throw new IllegalStateException("wrong data in file " + fileId + " at byte " + bad);
        }
        return buf.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, bufOffset);
    }

    /** Checks the first word of every 4 KiB block in {@code len} bytes (each block's identity) and returns a sum to consume. */
    static long checkBlocks(MemorySegment buf, int fileId, long offset, long len) {
        // every word of every block (the first word of each only, before: the claim is every byte)
        long bad = BlockData.verify(buf, 0, fileId, offset, len);
        if (bad >= 0) {
            throw new IllegalStateException("wrong data in file " + fileId + " at byte " + bad);
        }
        return buf.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }
}
