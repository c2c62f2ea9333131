package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Seed 000's random-write table: the 2211 tasks of {@link JUringWorkload} as writes to a second set of 2211
 * files (so the read set stays intact), each write's byte count checked. Run at {@code -t 1}, {@code -t 8},
 * {@code -t 20} as the seed did.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class JUringWriteBenchmark {

    static final int IN_FLIGHT = 256;

    /** The write targets: sparse files of the workload's size, made once. */
    @State(Scope.Benchmark)
    public static class Targets {
        Path[] paths;

        @Setup(Level.Trial)
        public void setUp(JUringWorkload w) throws IOException {
            Path dir = JmhFiles.root().resolve("juring-write-" + w.fileSize);
            Files.createDirectories(dir);
            paths = new Path[JUringWorkload.FILES];
            for (int f = 0; f < paths.length; f++) {
                paths[f] = dir.resolve("file_" + f + ".bin");
                try (RandomAccessFile raf = new RandomAccessFile(paths[f].toFile(), "rw")) {
                    raf.setLength(w.fileSize);
                }
            }
        }
    }

    @State(Scope.Thread)
    public static class PerThread implements CqeHandler {
        IoUring ring;
        Arena arena;
        int[] fds;
        FileTarget[] fixed;
        MemorySegment source;
        boolean fixedBuffers;
        FileChannel[] channels;
        ByteBuffer direct;
        int[] resOf = new int[IN_FLIGHT];
        int[] done = new int[IN_FLIGHT];
        int nDone;
        int[] freeSlots = new int[IN_FLIGHT];
        int nFree;

        @Setup(Level.Trial)
        public void setUp(JUringWorkload w, Targets targets) throws IOException {
            arena = Arena.ofConfined();
            ring = IoUring.open(IoUring.options().entries(IN_FLIGHT));
            fds = new int[JUringWorkload.FILES];
            channels = new FileChannel[JUringWorkload.FILES];
            fixed = new FileTarget[JUringWorkload.FILES];
            for (int f = 0; f < fds.length; f++) {
                fds[f] = RingFiles.open(ring, targets.paths[f], RingFiles.O_WRONLY);
                channels[f] = FileChannel.open(targets.paths[f], StandardOpenOption.WRITE);
                fixed[f] = FileTarget.fixed(f);
            }
            ring.registerFiles(fds);
            // Every in-flight write sends the same source bytes; the kernel only reads them.
            source = arena.allocate(w.bufferSize, 4096);
            BlockData.fill(source, 0, 0, 0, w.bufferSize);
            try {
                ring.registerBuffers(source);
                fixedBuffers = true;
            } catch (UringException e) {
                fixedBuffers = false;
            }
            direct = io.github.uring4j.bench.common.Buffers.alignedDirect(w.bufferSize);
            MemorySegment.ofBuffer(direct).copyFrom(source);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            JUringWorkload.closeRingState(ring, fds, channels, arena);
        }

        @Override
        public void handle(long userData, int res, int flags) {
            int slot = (int) userData;
            resOf[slot] = res;
            done[nDone++] = slot;
        }
    }

    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public long registeredFiles(JUringWorkload w, PerThread t) throws IOException {
        IoUring ring = t.ring;
        int n = Math.min(w.inFlight, IN_FLIGHT);
        for (int i = 0; i < n; i++) {
            t.freeSlots[i] = i;
        }
        t.nFree = n;
        int next = 0;
        int inFlight = 0;
        int len = w.bufferSize;
        long written = 0;
        long src = t.source.address();
        while (next < JUringWorkload.TASKS || inFlight > 0) {
            while (t.nFree > 0 && next < JUringWorkload.TASKS) {
                int slot = t.freeSlots[--t.nFree];
                int task = next++;
                if (t.fixedBuffers) {
                    ring.nextSqe().writeFixed(t.fixed[w.taskFile[task]], src, len, w.taskOffset[task], 0).userData(slot);
                } else {
                    ring.nextSqe().write(t.fixed[w.taskFile[task]], src, len, w.taskOffset[task]).userData(slot);
                }
                inFlight++;
            }
            ring.submitAndWait(1);
            t.nDone = 0;
            ring.reap(t);
            for (int i = 0; i < t.nDone; i++) {
                int slot = t.done[i];
                JUringReadBenchmark.checkRes(t.resOf[slot], len);
                written += len;
                t.freeSlots[t.nFree++] = slot;
                inFlight--;
            }
        }
        return written;
    }

    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public long preOpenedFileChannels(JUringWorkload w, PerThread t) throws IOException {
        long written = 0;
        for (int task = 0; task < JUringWorkload.TASKS; task++) {
            ByteBuffer bb = t.direct.clear();
            long off = w.taskOffset[task];
            while (bb.hasRemaining()) {
                written += t.channels[w.taskFile[task]].write(bb, off + bb.position());
            }
        }
        if (written != (long) JUringWorkload.TASKS * w.bufferSize) {
            throw new IOException("wrote " + written + " bytes");
        }
        return written;
    }
}
