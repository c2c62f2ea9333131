package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Seed 000's random-read table: each invocation works through the 2211 tasks of {@link JUringWorkload}, every
 * read checked against the file's hash and consumed. Ring rows keep up to {@code inFlight} (at most 256) reads in flight.
 * Run at 1 and 2 threads ({@code -t 1}, {@code -t 2}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class JUringReadBenchmark {

    static final int IN_FLIGHT = 256;
    /** Bytes of buffers the ring rows keep in flight at most: {@code IoExecutor.Builder.inFlightBytes}' default. */
    static final long CACHED_BYTES = IoExecutor.defaultInFlightBytes();

    /** Per-thread: a ring with every file registered and a buffer per in-flight slot (the channels are shared). */
    @State(Scope.Thread)
    public static class PerThread implements CqeHandler {
        IoUring ring;
        Arena arena;
        FileTarget[] fixed;
        MemorySegment buffers;
        boolean fixedBuffers;
        MemorySegment[] pathSegs;
        ByteBuffer direct;
        MemorySegment directSeg;
        int[] slotTask;
        int[] resOf;
        int[] done;
        int nDone;
        int[] closed;
        int nClosed;
        int openError;
        int[] freeSlots;
        int nFree;
        JUringWorkload w;

        @Setup(Level.Trial)
        public void setUp(JUringWorkload w) throws IOException {
            this.w = w;
            arena = Arena.ofConfined();
            ring = IoUring.open(IoUring.options().entries(1024).cqEntries(4096));
            pathSegs = new MemorySegment[JUringWorkload.FILES];
            for (int f = 0; f < pathSegs.length; f++) {
                pathSegs[f] = arena.allocateFrom(w.paths[f].toString());
            }
            // Slots 0..FILES-1: the pre-opened files; FILES..FILES+IN_FLIGHT-1: targets of OPENAT direct.
            JUringWorkload.registerFiles(ring, w.paths, RingFiles.O_RDONLY, JUringWorkload.FILES + IN_FLIGHT);
            fixed = new FileTarget[JUringWorkload.FILES + IN_FLIGHT];
            for (int i = 0; i < fixed.length; i++) {
                fixed[i] = FileTarget.fixed(i);
            }
            buffers = arena.allocate((long) IN_FLIGHT * w.bufferSize, 4096);
            try {
                ring.registerBuffers(buffers);
                fixedBuffers = true;
            } catch (UringException e) {
                fixedBuffers = false;
            }
            direct = io.github.uring4j.bench.common.Buffers.alignedDirect(w.bufferSize);
            directSeg = MemorySegment.ofBuffer(direct);
            slotTask = new int[IN_FLIGHT];
            resOf = new int[IN_FLIGHT];
            done = new int[4 * IN_FLIGHT];
            closed = new int[4 * IN_FLIGHT];
            freeSlots = new int[IN_FLIGHT];
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            JUringWorkload.closeRingState(ring, arena);
        }

        @Override
        public void handle(long userData, int res, int flags) {
            // user_data = slot << 2 | kind (0 read, 1 open, 2 close)
            int slot = (int) (userData >>> 2);
            int kind = (int) (userData & 3);
            if (kind == 0) {
                resOf[slot] = res;
                done[nDone++] = slot;
            } else if (kind == 2) {
                closed[nClosed++] = slot;
            } else if (res < 0) {
                openError = res;
            }
        }

        void resetSlots(int inFlight) {
            // At most CACHED_BYTES of buffers in flight as well: the kernel copies cached data with the CPU, and 256
            // buffers of 64 KiB (16 MiB) fall out of its caches (registered files at 64 KiB: 0.93x pre-opened channels
            // with 256 in flight, 1.21x with 32, in one JMH run).
            int n = (int) Math.min(Math.min(inFlight, IN_FLIGHT), Math.max(1, CACHED_BYTES / w.bufferSize));
            for (int i = 0; i < n; i++) {
                freeSlots[i] = i;
            }
            nFree = n;
        }

        long slotOffset(int slot) {
            return (long) slot * w.bufferSize;
        }

        long slotAddress(int slot) {
            return buffers.address() + (long) slot * w.bufferSize;
        }
    }

    /** Reads on the registered files, up to 256 in flight, into registered buffers. */
    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public void registeredFiles(JUringWorkload w, PerThread t, Blackhole bh) throws IOException {
        IoUring ring = t.ring;
        t.resetSlots(w.inFlight);
        int next = 0;
        int inFlight = 0;
        int len = w.bufferSize;
        while (next < JUringWorkload.TASKS || inFlight > 0) {
            while (t.nFree > 0 && next < JUringWorkload.TASKS) {
                int slot = t.freeSlots[--t.nFree];
                int task = next++;
                t.slotTask[slot] = task;
                if (t.fixedBuffers) {
                    ring.nextSqe().readFixed(t.fixed[w.taskFile[task]], t.slotAddress(slot), len, w.taskOffset[task], 0)
                            .userData((long) slot << 2);
                } else {
                    ring.nextSqe().read(t.fixed[w.taskFile[task]], t.slotAddress(slot), len, w.taskOffset[task])
                            .userData((long) slot << 2);
                }
                inFlight++;
            }
            ring.submitAndWait(1);
            t.nDone = 0;
            ring.reap(t);
            for (int i = 0; i < t.nDone; i++) {
                int slot = t.done[i];
                int task = t.slotTask[slot];
                checkRes(t.resOf[slot], len);
                bh.consume(JmhFiles.check(t.buffers, t.slotOffset(slot), w.taskFile[task], w.taskOffset[task], len));
                t.freeSlots[t.nFree++] = slot;
                inFlight--;
            }
        }
    }

    /** The JDK: positional reads on channels opened beforehand. */
    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public void preOpenedFileChannels(JUringWorkload w, PerThread t, Blackhole bh) throws IOException {
        ByteBuffer bb = t.direct;
        for (int task = 0; task < JUringWorkload.TASKS; task++) {
            bb.clear();
            readFully(w.channels[w.taskFile[task]], bb, w.taskOffset[task]);
            bh.consume(JmhFiles.check(t.directSeg, w.taskFile[task], w.taskOffset[task], w.bufferSize));
        }
    }

    /**
     * io_uring per task: OPENAT straight into a registered slot, linked to a READ on that slot (into a registered
     * buffer, as the registered-files row reads), linked to a CLOSE of the slot; up to 256 tasks (768 SQEs) in
     * flight. With unregistered buffers (the kernel's copy then goes through {@code copy_to_user}) this row ran at
     * 1.04-1.15 times the JDK's open/read/close at one thread; registered, 1.10-1.32 times in the same session.
     */
    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public void ringOpenReadClose(JUringWorkload w, PerThread t, Blackhole bh) throws IOException {
        IoUring ring = t.ring;
        t.resetSlots(w.inFlight);
        int next = 0;
        int inFlight = 0;
        int len = w.bufferSize;
        int base = JUringWorkload.FILES;
        while (next < JUringWorkload.TASKS || inFlight > 0) {
            while (t.nFree > 0 && next < JUringWorkload.TASKS) {
                int slot = t.freeSlots[--t.nFree];
                int task = next++;
                t.slotTask[slot] = task;
                int fileSlot = base + slot;
                // No O_CLOEXEC: a registered slot is no descriptor, and the kernel rejects the flag (EINVAL) there.
                ring.nextSqe().openatDirect(RingFiles.AT_FDCWD, t.pathSegs[w.taskFile[task]], RingFiles.O_RDONLY, 0,
                        fileSlot).userData((long) slot << 2 | 1).link();
                if (t.fixedBuffers) {
                    ring.nextSqe().readFixed(t.fixed[fileSlot], t.slotAddress(slot), len, w.taskOffset[task], 0)
                            .userData((long) slot << 2).link();
                } else {
                    ring.nextSqe().read(t.fixed[fileSlot], t.slotAddress(slot), len, w.taskOffset[task])
                            .userData((long) slot << 2).link();
                }
                ring.nextSqe().closeFixed(fileSlot).userData((long) slot << 2 | 2);
                inFlight++;
            }
            ring.submitAndWait(1);
            t.nDone = 0;
            t.nClosed = 0;
            ring.reap(t);
            for (int i = 0; i < t.nDone; i++) {
                int slot = t.done[i];
                int task = t.slotTask[slot];
                if (t.openError < 0) {
                    throw new IOException("OPENAT of " + w.paths[w.taskFile[task]] + " failed: "
                            + io.github.uring4j.ErrnoException.name(-t.openError));
                }
                checkRes(t.resOf[slot], len);
                bh.consume(JmhFiles.check(t.buffers, t.slotOffset(slot), w.taskFile[task], w.taskOffset[task], len));
            }
            // A slot is reused only once its CLOSE completed: an OPENAT into a slot whose CLOSE is still pending
            // could have its new file closed.
            for (int i = 0; i < t.nClosed; i++) {
                t.freeSlots[t.nFree++] = t.closed[i];
                inFlight--;
            }
        }
    }

    /** The JDK: open, read, close per task. */
    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public void fileChannelOpenReadClose(JUringWorkload w, PerThread t, Blackhole bh) throws IOException {
        ByteBuffer bb = t.direct;
        for (int task = 0; task < JUringWorkload.TASKS; task++) {
            try (FileChannel ch = FileChannel.open(w.paths[w.taskFile[task]], StandardOpenOption.READ)) {
                bb.clear();
                readFully(ch, bb, w.taskOffset[task]);
            }
            bh.consume(JmhFiles.check(t.directSeg, w.taskFile[task], w.taskOffset[task], w.bufferSize));
        }
    }

    /** The JDK on virtual threads: one virtual thread per task doing open, read, close. */
    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public void fileChannelOpenReadCloseOnVirtualThreads(JUringWorkload w, Blackhole bh) throws Exception {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            @SuppressWarnings("unchecked")
            Future<Long>[] fs = (Future<Long>[]) new Future<?>[JUringWorkload.TASKS];
            for (int task = 0; task < JUringWorkload.TASKS; task++) {
                int tk = task;
                fs[task] = ex.submit(() -> {
                    ByteBuffer bb = ByteBuffer.allocateDirect(w.bufferSize);
                    MemorySegment seg = MemorySegment.ofBuffer(bb);
                    try (FileChannel ch = FileChannel.open(w.paths[w.taskFile[tk]], StandardOpenOption.READ)) {
                        readFully(ch, bb, w.taskOffset[tk]);
                    }
                    return JmhFiles.check(seg, w.taskFile[tk], w.taskOffset[tk], w.bufferSize);
                });
            }
            for (Future<Long> f : fs) {
                bh.consume(f.get());
            }
        }
    }

    /** The async API for the virtual-thread row: one executor, and a buffer per task carved from one slab. */
    @State(Scope.Benchmark)
    public static class AsyncState {
        io.github.uring4j.file.IoExecutor executor;
        MemorySegment slab;

        @Setup(Level.Trial)
        public void setUp(JUringWorkload w) throws IOException {
            executor = io.github.uring4j.file.IoExecutor.builder().loops(1).entries(512).name("jmh-juring").build();
            // An automatic arena: the library holds its memory, so reads go straight into it (no copy).
            slab = Arena.ofAuto().allocate((long) JUringWorkload.TASKS * w.bufferSize, 4096);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            executor.close();
        }
    }

    /**
     * uring4j's blocking use on virtual threads (until the drop-in channel lands): one virtual thread per task
     * opening, reading and closing through {@code AsyncFile}, each step awaited with {@code join()}.
     */
    @Benchmark
    @OperationsPerInvocation(JUringWorkload.TASKS)
    public void asyncOpenReadCloseOnVirtualThreads(JUringWorkload w, AsyncState a, Blackhole bh) throws Exception {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            @SuppressWarnings("unchecked")
            Future<Long>[] fs = (Future<Long>[]) new Future<?>[JUringWorkload.TASKS];
            for (int task = 0; task < JUringWorkload.TASKS; task++) {
                int tk = task;
                fs[task] = ex.submit(() -> {
                    MemorySegment buf = a.slab.asSlice((long) tk * w.bufferSize, w.bufferSize);
                    try (io.github.uring4j.file.AsyncFile f = io.github.uring4j.file.AsyncFile
                            .open(a.executor, w.paths[w.taskFile[tk]], StandardOpenOption.READ).join()) {
                        int n = f.readFully(buf, w.taskOffset[tk]).join();
                        checkRes(n, w.bufferSize);
                    }
                    return JmhFiles.check(buf, w.taskFile[tk], w.taskOffset[tk], w.bufferSize);
                });
            }
            for (Future<Long> f : fs) {
                bh.consume(f.get());
            }
        }
    }

    static void readFully(FileChannel ch, ByteBuffer bb, long offset) throws IOException {
        while (bb.hasRemaining()) {
            if (ch.read(bb, offset + bb.position()) < 0) {
                throw new IOException("unexpected end of file at " + (offset + bb.position()));
            }
        }
    }

    static void checkRes(int res, int len) throws IOException {
        if (res != len) {
            throw new IOException(res < 0 ? "read failed: " + io.github.uring4j.ErrnoException.name(-res) : "short read: " + res + " of " + len);
        }
    }
}
