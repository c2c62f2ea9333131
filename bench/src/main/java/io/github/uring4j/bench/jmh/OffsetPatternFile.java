package io.github.uring4j.bench.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The data of {@link RingLoopBenchmark} and {@link AsyncFileBenchmark}: a temporary file whose every 8-byte
 * little-endian word holds its own offset, so a block read from the wrong place never passes the check.
 */
final class OffsetPatternFile {
    private OffsetPatternFile() {
    }

    static Path create(String prefix, long size) throws IOException {
        // under the JMH data directory (the report's --dir), not the system's /tmp: an interrupted run left it there
        Path file = Files.createTempFile(JmhFiles.root(), prefix, ".dat");
        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (long off = 0; off < size; off += b.capacity()) {
                b.clear();
                for (int i = 0; i < b.capacity(); i += 8) {
                    b.putLong(i, off + i);
                }
                while (b.hasRemaining()) {
                    ch.write(b, off + b.position());
                }
            }
        }
        return file;
    }

    /** One xorshift step, for random block numbers without allocation. */
    static long xorshift(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }
}
