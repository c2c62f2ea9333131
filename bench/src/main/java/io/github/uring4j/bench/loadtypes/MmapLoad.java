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
 * Random loads get {@code MADV_RANDOM}, sequential ones {@code MADV_SEQUENTIAL} (values 1 and 2). The file is
 * mapped once for all of a case's turns (appends: once per pass, each pass being a new file).
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

    // The mapping of the file being read or overwritten, kept for all of a case's turns as a program keeps its
    // mapping (mapping again for each turn would time a page fault for most operations of a short turn).
    private Arena arena;
    private MemorySegment map;

    @Override
    public long run(LoadSpec s) throws Exception {
        boolean write = s.load().write;
        if (s.load() == Load.APPEND_WRITE) {
            // An append makes a new file each pass: size it, map it, fill the mapping in order.
            unmap();
            try (RandomAccessFile raf = new RandomAccessFile(s.file().toFile(), "rw")) {
                raf.setLength(0);
                raf.setLength(s.size());
            }
        }
        if (map == null) {
            Arena a = Arena.ofShared();
            try (FileChannel ch = write ? FileChannel.open(s.file(), StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(s.file(), StandardOpenOption.READ)) {
                map = ch.map(write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0, s.size(), a);
                try (IoUring ring = IoUring.open(4)) {
                    RingFiles.madvise(ring, map, s.load().random ? RingFiles.MADV_RANDOM : 2);
                }
            } catch (Exception | Error e) {
                map = null;
                a.close();
                throw e;
            }
            arena = a;
        }
        MemorySegment m = map;
        long t0 = System.nanoTime();
        for (long off : s.offsets()) {
            if (write) {
                MemorySegment.copy(s.pattern(), off % s.period(), m, off, s.ioSize());
            } else {
                long bad = s.verify(m, off, off, s.ioSize());
                if (bad >= 0) {
                    throw new LoadStrategy.VerificationError(name(), s, bad);
                }
            }
        }
        if (write && s.fsync()) {
            m.force();
        }
        long t = System.nanoTime() - t0;
        if (s.load() == Load.APPEND_WRITE) {
            unmap();
        }
        return t;
    }

    /**
     * No: an append through the mapping fills the page cache one 4 KiB page fault at a time, and the strategy whose
     * pass came next wrote at half its rate (channel append-write 256M: 4.6 GB/s after the async strategy, 2.0–2.5
     * after mmap; perf: ext4's per-block buffer-head work, as for pages allocated one by one), so mmap's turns run
     * after the others'.
     */
    @Override
    public boolean takesTurns() {
        return false;
    }

    private void unmap() {
        if (arena != null) {
            map = null;
            arena.close();
            arena = null;
        }
    }

    @Override
    public void close() {
        unmap();
    }
}
