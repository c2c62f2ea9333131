package io.github.uring4j.bench.iops;

import io.github.uring4j.bench.UsageError;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The verification pattern of {@code iops}: every 8-byte little-endian word holds a mix of its own file offset, so
 * a block read from the wrong place, torn, or zeroed never passes.
 */
final class PatternFile {
    private PatternFile() {
    }

    static long word(long offset) {
        long z = offset + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 27);
    }

    static void create(Path f, long size) throws IOException {
        if (size % 8 != 0) {
            throw new UsageError("--create size must be a multiple of 8 bytes");
        }
        Path parent = f.toAbsolutePath().getParent();
        java.nio.file.Files.createDirectories(parent);
        long free = java.nio.file.Files.getFileStore(parent).getUsableSpace();
        if (free < size + (64L << 20)) {
            throw new UsageError("not enough disk space for " + f + ": need " + size + " bytes, " + free + " free");
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long off = 0;
            while (off < size) {
                buf.clear();
                int n = (int) Math.min(buf.capacity(), size - off);
                for (int i = 0; i < n; i += 8) {
                    buf.putLong(i, word(off + i));
                }
                buf.limit(n);
                while (buf.hasRemaining()) {
                    off += ch.write(buf, off);
                }
            }
            ch.force(false);
        }
    }

    /** Fills {@code block} as the pattern has it at {@code offset} (for writes). */
    static void fill(MemorySegment block, long offset) {
        long n = block.byteSize();
        for (long i = 0; i < n; i += 8) {
            block.set(ValueLayout.JAVA_LONG_UNALIGNED, i, word(offset + i));
        }
    }

    /**
     * Checks {@code block} read from {@code offset}: level 1 the first and last word, level 2 every word. Returns
     * -1 when it matches, else the offset of the first bad word.
     */
    static long check(MemorySegment block, long offset, int level) {
        long n = block.byteSize();
        if (level >= 2) {
            for (long i = 0; i < n; i += 8) {
                if (block.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != word(offset + i)) {
                    return offset + i;
                }
            }
            return -1;
        }
        if (block.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != word(offset)) {
            return offset;
        }
        long last = n - 8;
        if (block.get(ValueLayout.JAVA_LONG_UNALIGNED, last) != word(offset + last)) {
            return offset + last;
        }
        return -1;
    }
}
