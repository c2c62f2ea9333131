package io.github.uring4j.bench.read;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.ring.IoUring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/**
 * Memory-mapped files ({@code FileChannel.map} into a {@code MemorySegment}) advised {@code MADV_RANDOM} through
 * {@code IORING_OP_MADVISE}, so a fault reads one page rather than a read-ahead window. A "read" copies the block
 * out of the mapping into the worker's buffer (that is where the page faults happen), then verifies the copy.
 */
public final class MmapStrategy implements ReadStrategy {

    @Override
    public String name() {
        return "mmap";
    }

    @Override
    public String unsupported(ReadConfig cfg) {
        return cfg.direct() ? "a mapping always goes through the page cache (no O_DIRECT)" : null;
    }

    @Override
    public Session open(DataSet ds, ReadConfig cfg) throws IOException {
        Arena arena = Arena.ofShared();
        MemorySegment[] maps = new MemorySegment[ds.files()];
        try (IoUring ring = IoUring.open(4)) {
            for (int f = 0; f < maps.length; f++) {
                try (FileChannel ch = FileChannel.open(ds.file(f), StandardOpenOption.READ)) {
                    maps[f] = ch.map(FileChannel.MapMode.READ_ONLY, 0, ds.fileSize(), arena);
                }
                RingFiles.madvise(ring, maps[f], RingFiles.MADV_RANDOM);
            }
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
        return new Session() {
            @Override
            public void run(int worker, WorkerContext ctx) {
                try (Arena mine = Arena.ofConfined()) {
                    MemorySegment buf = mine.allocate(BlockData.BLOCK_SIZE, 4096);
                    long end = ctx.end();
                    long now = System.nanoTime();
                    while (now < end) {
                        int f = ctx.randomFile();
                        long off = ctx.randomBlock() * BlockData.BLOCK_SIZE;
                        long t0 = System.nanoTime();
                        MemorySegment.copy(maps[f], off, buf, 0, BlockData.BLOCK_SIZE);
                        now = System.nanoTime();
                        ctx.completed(t0, now, f, off, BlockData.BLOCK_SIZE, buf, 0);
                    }
                }
            }

            @Override
            public void close() {
                arena.close();
            }
        };
    }
}
