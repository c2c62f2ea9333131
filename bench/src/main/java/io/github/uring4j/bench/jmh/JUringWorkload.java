package io.github.uring4j.bench.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The JUring workload: 2211 files and 2211 (file, offset) tasks drawn from a fixed seed, offsets random within
 * the file (512-byte aligned, so any buffer size can be checked and O_DIRECT could be used), one buffer size per
 * run. The seed used 5 MiB files; {@code fileSize} defaults to 1 MiB here to keep the data set at 2.2 GB.
 */
@State(Scope.Benchmark)
public class JUringWorkload {

    public static final int FILES = 2211;
    public static final int TASKS = 2211;

    @Param({"512", "4096", "16384", "65536"})
    public int bufferSize;

    @Param({"1048576"})
    public long fileSize;

    /**
     * Ring rows: operations in flight (the seed: 256), and never more than 2 MiB of buffers: at 16 KiB 128, at
     * 64 KiB 32.
     */
    @Param({"256"})
    public int inFlight;

    public Path[] paths;
    public int[] taskFile;
    public long[] taskOffset;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path dir = JmhFiles.root().resolve("juring-" + fileSize);
        paths = new Path[FILES];
        for (int f = 0; f < FILES; f++) {
            paths[f] = JmhFiles.blockFile(dir.resolve("file_" + f + ".bin"), f, fileSize);
        }
        SplittableRandom r = new SplittableRandom(2211);
        taskFile = new int[TASKS];
        taskOffset = new long[TASKS];
        long slots = (fileSize - bufferSize) / 512 + 1;
        for (int t = 0; t < TASKS; t++) {
            taskFile[t] = r.nextInt(FILES);
            taskOffset[t] = r.nextLong(slots) * 512;
        }
    }

    /** Releases what a ring state of the JUring benchmarks opened: registered files, descriptors, channels, ring, arena. */
    static void closeRingState(io.github.uring4j.ring.IoUring ring, int[] fds, java.nio.channels.FileChannel[] channels,
            java.lang.foreign.Arena arena) throws IOException {
        ring.unregisterFiles();
        for (int f = 0; f < fds.length; f++) {
            io.github.uring4j.bench.common.RingFiles.close(ring, fds[f]);
            channels[f].close();
        }
        ring.close();
        arena.close();
    }
}
