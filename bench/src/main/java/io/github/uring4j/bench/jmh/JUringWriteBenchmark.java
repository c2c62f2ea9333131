package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Seed 000's random-write table: the 2211 tasks of {@link JUringWorkload} as writes to a second set of 2211
 * files (so the read set stays intact), each write's byte count checked. Run at {@code -t 1}, {@code -t 8},
 * {@code -t 20} as the seed did. Besides the ring API (as JUring writes: ext4 hands every buffered write to an io-wq
 * worker) and pre-opened {@code FileChannel}s, {@code asyncFiles} writes through {@code AsyncFile}s on one
 * {@code IoExecutor} of 1 or 2 loops ({@code -p loops=}), which make buffered ext4 writes themselves.
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
        /** Write channels on {@link #paths}, shared by the benchmark's threads. */
        FileChannel[] channels;

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
            channels = JUringWorkload.channels(paths, StandardOpenOption.WRITE);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            JUringWorkload.close(channels);
        }
    }

    @State(Scope.Thread)
    public static class PerThread implements CqeHandler {
        IoUring ring;
        Arena arena;
        FileTarget[] fixed;
        MemorySegment source;
        boolean fixedBuffers;
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
            fixed = new FileTarget[JUringWorkload.FILES];
            for (int f = 0; f < fixed.length; f++) {
                fixed[f] = FileTarget.fixed(f);
            }
            JUringWorkload.registerFiles(ring, targets.paths, RingFiles.O_WRONLY, JUringWorkload.FILES);
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
            JUringWorkload.closeRingState(ring, arena);
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

    /**
     * The target files as {@code AsyncFile}s on one executor, shared by the benchmark's threads. {@code loops} 1 is
     * the default on machines of up to 7 cores; with 2, writes to different files run on two loops side by side, as
     * the ring's writes run on several io-wq workers.
     */
    @State(Scope.Benchmark)
    public static class AsyncTargets {
        @Param({"1", "2"})
        public int loops;

        IoExecutor io;
        AsyncFile[] files;

        @Setup(Level.Trial)
        public void setUp(Targets targets) throws IOException {
            io = IoExecutor.builder().loops(loops).name("bench-juring-write").build();
            files = new AsyncFile[targets.paths.length];
            for (int f = 0; f < files.length; f++) {
                files[f] = AsyncFile.open(io, targets.paths[f], StandardOpenOption.WRITE).join();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            for (AsyncFile f : files) {
                f.close();
            }
            io.close();
        }
    }

    /**
     * One invocation's writes through {@code AsyncFile}: {@code inFlight} at once, each completion handler (on a loop)
     * checking its byte count and issuing the next task.
     */
    static final class AsyncWrites implements CompletionHandler<Integer, Object> {
        private final JUringWorkload w;
        private final AsyncFile[] files;
        private final MemorySegment source;
        private final CountDownLatch done = new CountDownLatch(1);
        private Throwable failure;
        private int next;
        private int inFlight;
        private long written;

        AsyncWrites(JUringWorkload w, AsyncFile[] files, MemorySegment source) {
            this.w = w;
            this.files = files;
            this.source = source;
        }

        long run(int depth) throws Exception {
            synchronized (this) {
                while (inFlight < depth && next < JUringWorkload.TASKS) {
                    issue();
                }
            }
            done.await();
            synchronized (this) {
                if (failure != null) {
                    throw new IOException("async write failed", failure);
                }
                if (written != (long) JUringWorkload.TASKS * w.bufferSize) {
                    throw new IOException("wrote " + written + " bytes");
                }
                return written;
            }
        }

        private void issue() {
            int task = next++;
            inFlight++;
            files[w.taskFile[task]].write(source, w.taskOffset[task], null, this);
        }

        @Override
        public synchronized void completed(Integer n, Object unused) {
            inFlight--;
            if (n != w.bufferSize) {
                failure = new IOException("short write: " + n + " of " + w.bufferSize);
            } else {
                written += n;
            }
            if (failure == null && next < JUringWorkload.TASKS) {
                issue();
            } else if (inFlight == 0) {
                done.countDown();
            }
        }

        @Override
        public synchronized void failed(Throwable e, Object unused) {
            inFlight--;
            if (failure == null) {
                failure = e;
            }
            if (inFlight == 0) {
                done.countDown();
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public long asyncFiles(JUringWorkload w, PerThread t, AsyncTargets a) throws Exception {
        // the direct buffer's memory: the kernel reads it where it is (see the AsyncFile javadoc on arena memory)
        return new AsyncWrites(w, a.files, MemorySegment.ofBuffer(t.direct)).run(Math.min(w.inFlight, IN_FLIGHT));
    }

    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public long preOpenedFileChannels(JUringWorkload w, PerThread t, Targets targets) throws IOException {
        long written = 0;
        for (int task = 0; task < JUringWorkload.TASKS; task++) {
            ByteBuffer bb = t.direct.clear();
            long off = w.taskOffset[task];
            while (bb.hasRemaining()) {
                written += targets.channels[w.taskFile[task]].write(bb, off + bb.position());
            }
        }
        if (written != (long) JUringWorkload.TASKS * w.bufferSize) {
            throw new IOException("wrote " + written + " bytes");
        }
        return written;
    }
}
