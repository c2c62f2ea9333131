package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.ring.IoUring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

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
     * Ring rows: operations in flight (the seed: 256), and never more buffers than
     * {@code IoExecutor.defaultInFlightBytes()} (512 KiB with 2 MiB of L2 cache per core: at 16 KiB 32, at 64 KiB 8).
     */
    @Param({"256"})
    public int inFlight;

    public Path[] paths;
    public int[] taskFile;
    public long[] taskOffset;
    /** Read channels on {@link #paths}, shared by the benchmark's threads. */
    public FileChannel[] channels;

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
        channels = channels(paths, StandardOpenOption.READ);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        close(channels);
    }

    /**
     * Registers {@code paths} in slots {@code 0..paths.length-1} of a sparse file table of {@code tableSize} slots,
     * each opened with {@code flags} and its descriptor closed once the ring holds the file: a ring per JMH thread
     * then costs no descriptors (with a descriptor per file per thread, {@code -t 8} needed 35,000 and failed with
     * {@code EMFILE} under a limit of 20,000).
     */
    static void registerFiles(IoUring ring, Path[] paths, int flags, int tableSize) throws IOException {
        ring.registerFilesSparse(tableSize);
        for (int f = 0; f < paths.length; f++) {
            int fd = RingFiles.open(ring, paths[f], flags);
            try {
                ring.updateFiles(f, fd);
            } finally {
                RingFiles.close(ring, fd);
            }
        }
    }

    /** Opens a channel on each of {@code paths} (shared by a benchmark's threads, as a server shares its files). */
    static FileChannel[] channels(Path[] paths, OpenOption option) throws IOException {
        FileChannel[] channels = new FileChannel[paths.length];
        try {
            for (int f = 0; f < paths.length; f++) {
                channels[f] = FileChannel.open(paths[f], option);
            }
        } catch (IOException | RuntimeException e) {
            close(channels);
            throw e;
        }
        return channels;
    }

    static void close(FileChannel[] channels) throws IOException {
        for (FileChannel ch : channels) {
            if (ch != null) {
                ch.close();
            }
        }
    }

    /** Releases what a ring state of the JUring benchmarks holds: its registered files, the ring, the arena. */
    static void closeRingState(IoUring ring, Arena arena) throws IOException {
        ring.unregisterFiles();
        ring.close();
        arena.close();
    }
}
