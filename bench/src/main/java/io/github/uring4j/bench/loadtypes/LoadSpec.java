package io.github.uring4j.bench.loadtypes;

import io.github.uring4j.bench.data.BlockData;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * One measurement: a load type on a file of {@code size} bytes, {@code ioSize} bytes per operation, at the
 * given offsets. The file's content repeats with period {@code period}: byte {@code o} equals byte
 * {@code o % period} of {@link #pattern}, which holds {@link BlockData} of file 1. Writes copy from the pattern
 * at the same phase, so the file stays checkable after any write, and every read is verified against it.
 */
public record LoadSpec(Load load, Path file, long size, int ioSize, int period, long[] offsets, int depth,
                       boolean direct, boolean fsync, MemorySegment pattern) {

    public static final int PATTERN_FILE_ID = 1;

    public long bytes() {
        return (long) offsets.length * ioSize;
    }

    /** -1 when {@code len} bytes at {@code buf[bufOff]} are what the file holds at {@code fileOffset}, else the bad offset. */
    public long verify(MemorySegment buf, long bufOff, long fileOffset, int len) {
        long phase = fileOffset % period;
        return BlockData.verify(buf, bufOff, PATTERN_FILE_ID, phase, len);
    }
}
