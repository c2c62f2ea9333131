package io.github.uring4j.bench.loadtypes;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.ring.IoUring;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/**
 * A {@code MemorySegment} mapping of the whole file: reads are verified in place (no copy, which is the point of
 * a mapping), writes copy the pattern in; an append first sizes the file, then fills the mapping in order.
 * Random loads get {@code MADV_RANDOM}, sequential ones {@code MADV_SEQUENTIAL} (values 1 and 2).
 */
public final class MmapLoad implements LoadStrategy {

    @Override
    public String name() {
        return "mmap";
    }

    @Override
    public String unsupported(LoadSpec s) {
        return s.direct() ? "a mapping always goes through the page cache" : null;
    }

    @Override
    public long run(LoadSpec s) throws Exception {
        if (s.load() == Load.APPEND_WRITE) {
            try (RandomAccessFile raf = new RandomAccessFile(s.file().toFile(), "rw")) {
                raf.setLength(0);
                raf.setLength(s.size());
            }
        }
        boolean write = s.load().write;
        try (Arena arena = Arena.ofConfined();
             FileChannel ch = write ? FileChannel.open(s.file(), StandardOpenOption.READ, StandardOpenOption.WRITE)
                     : FileChannel.open(s.file(), StandardOpenOption.READ)) {
            MemorySegment map = ch.map(write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0, s.size(), arena);
            try (IoUring ring = IoUring.open(4)) {
                RingFiles.madvise(ring, map, s.load().random ? RingFiles.MADV_RANDOM : 2);
            }
            long t0 = System.nanoTime();
            for (long off : s.offsets()) {
                if (write) {
                    MemorySegment.copy(s.pattern(), off % s.period(), map, off, s.ioSize());
                } else {
                    long bad = s.verify(map, off, off, s.ioSize());
                    if (bad >= 0) {
                        throw new LoadStrategy.VerificationError(name(), s, bad);
                    }
                }
            }
            if (write && s.fsync()) {
                map.force();
            }
            return System.nanoTime() - t0;
        }
    }
}
