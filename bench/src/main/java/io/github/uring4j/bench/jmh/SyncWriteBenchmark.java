package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.data.BlockData;
import com.sun.nio.file.ExtendedOpenOption;
import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.FileOption;
import io.github.uring4j.file.IoExecutor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * A log whose every 4 KiB record is on the device before the writer goes on (a write-ahead log committing each
 * record): the JDK's {@code FileChannel.write} + {@code force(false)} from one thread and from eight, beside
 * uring4j's {@code AsyncFile.writeAndSync} (one write linked to an {@code fdatasync}) one at a time and eight in
 * flight; and the eight-way pair again on a file opened {@code O_DIRECT} (a log that bypasses the page cache, as
 * databases keep theirs). Records cycle through a 64 MiB region of one file, written and synced before the first
 * record (a preallocated log segment), each record holding the block pattern of its offset; after every iteration the
 * records written are read back and checked.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
@State(Scope.Benchmark)
public class SyncWriteBenchmark {
    static final int RECORD = 4096;
    static final int RECORDS = 16384; // 64 MiB, then the log starts over
    static final int FILE_ID = 21;
    static final int IN_FLIGHT = 8;
    /** Records per lane in one invocation of the eight-in-flight way. */
    static final int LANE = 16;

    Path file;
    /** The log through the page cache: the buffered ways write with it, and every way's records are checked with it. */
    FileChannel channel;
    /** The log opened {@code O_DIRECT} for the ways whose names end in {@code Direct}; else null. */
    FileChannel directChannel;
    IoExecutor executor;
    AsyncFile async;
    final AtomicLong next = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws IOException {
        boolean direct = params.getBenchmark().endsWith("Direct");
        file = JmhFiles.root().resolve("sync-log.bin");
        Files.deleteIfExists(file);
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        // The log's region is written and on the device before the first record, as a log that preallocates its
        // segments has it: every record overwrites, and no way pays for growing the file while another does not.
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long off = 0; off < (long) RECORDS * RECORD; off += zeros.capacity()) {
            zeros.clear();
            while (zeros.hasRemaining()) {
                channel.write(zeros, off + zeros.position());
            }
        }
        channel.force(true);
        executor = IoExecutor.builder().loops(1).name("bench-sync").build();
        if (direct) {
            directChannel = FileChannel.open(file, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
            async = AsyncFile.open(executor, file, StandardOpenOption.WRITE, FileOption.DIRECT).join();
        } else {
            async = AsyncFile.open(executor, file, StandardOpenOption.WRITE).join();
        }
    }

    /** Every record written so far holds its offset's pattern. */
    @TearDown(Level.Iteration)
    public void check() throws IOException {
        long records = Math.min(next.get(), RECORDS);
        ByteBuffer bb = ByteBuffer.allocateDirect(1 << 20);
        MemorySegment seg = MemorySegment.ofBuffer(bb);
        for (long off = 0; off < records * RECORD; off += bb.capacity()) {
            bb.clear().limit((int) Math.min(bb.capacity(), records * RECORD - off));
            while (bb.hasRemaining()) {
                if (channel.read(bb, off + bb.position()) < 0) {
                    throw new IllegalStateException("the log ends at " + (off + bb.position()) + " of "
                            + records * RECORD);
                }
            }
            long bad = BlockData.verify(seg, 0, FILE_ID, off, bb.limit());
            if (bad >= 0) {
                throw new IllegalStateException("record at " + (bad / RECORD * RECORD) + " does not hold its data");
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        async.close();
        executor.close();
        if (directChannel != null) {
            directChannel.close();
        }
        channel.close();
        Files.deleteIfExists(file);
    }

    /** A direct buffer per writing thread, or per record in flight, aligned for {@code O_DIRECT}. */
    @State(Scope.Thread)
    public static class Buffers {
        final ByteBuffer[] records = new ByteBuffer[IN_FLIGHT];

        @Setup(Level.Trial)
        public void setUp() {
            for (int i = 0; i < records.length; i++) {
                records[i] = ByteBuffer.allocateDirect(2 * RECORD).alignedSlice(RECORD).limit(RECORD).slice();
            }
        }

        /** Buffer {@code i} filled with the record at the log's next offset; that offset. */
        long fill(SyncWriteBenchmark b, int i) {
            long off = (b.next.getAndIncrement() % RECORDS) * RECORD;
            records[i].clear();
            BlockData.fill(MemorySegment.ofBuffer(records[i]), 0, FILE_ID, off, RECORD);
            return off;
        }
    }

    private void writeForce(Buffers t, FileChannel c) throws IOException {
        long off = t.fill(this, 0);
        ByteBuffer b = t.records[0];
        while (b.hasRemaining()) {
            c.write(b, off + b.position());
        }
        c.force(false);
    }

    @Benchmark
    public void channelWriteForce(Buffers t) throws IOException {
        writeForce(t, channel);
    }

    @Benchmark
    @Threads(IN_FLIGHT)
    public void channelWriteForceEightThreads(Buffers t) throws IOException {
        writeForce(t, channel);
    }

    @Benchmark
    @Threads(IN_FLIGHT)
    public void channelWriteForceEightThreadsDirect(Buffers t) throws IOException {
        writeForce(t, directChannel);
    }

    @Benchmark
    public int asyncWriteAndSync(Buffers t) {
        long off = t.fill(this, 0);
        return written(async.writeAndSync(t.records[0], off).join(), RECORD);
    }

    /** Eight lanes of {@link #LANE} records each, a lane's next record written when its last is on the device. */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT * LANE)
    public int asyncWriteAndSyncEightInFlight(Buffers t) {
        @SuppressWarnings("unchecked")
        CompletableFuture<Integer>[] lanes = new CompletableFuture[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            lanes[i] = lane(t, i, LANE);
        }
        int n = 0;
        for (CompletableFuture<Integer> c : lanes) {
            n += c.join();
        }
        return written(n, IN_FLIGHT * LANE * RECORD);
    }

    /** {@link #asyncWriteAndSyncEightInFlight} on the log opened {@code O_DIRECT}. */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT * LANE)
    public int asyncWriteAndSyncEightInFlightDirect(Buffers t) {
        return asyncWriteAndSyncEightInFlight(t);
    }

    private CompletableFuture<Integer> lane(Buffers t, int i, int left) {
        long off = t.fill(this, i);
        return async.writeAndSync(t.records[i], off).thenCompose(n -> left == 1 ? CompletableFuture.completedFuture(n)
                : lane(t, i, left - 1).thenApply(m -> n + m));
    }

    private static int written(int n, int expected) {
        if (n != expected) {
            throw new IllegalStateException("writeAndSync wrote " + n + " of " + expected + " bytes");
        }
        return n;
    }
}
