package io.github.uring4j.bench.jmh;

import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.SetupFlag;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The ring API's steady-state loop: prepare a batch of SQEs, submit, reap through a {@link CqeHandler}. Run with
 * {@code -prof gc}: the allocation rate per operation must be 0 B. Reads are 4 KiB at random block offsets of a
 * cached 64 MiB file whose every 8-byte word holds its own offset, and each one is checked.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class RingLoopBenchmark {
    static final int BATCH = 32;
    static final int BLOCK = 4096;
    static final long FILE_SIZE = 64L << 20;

    private Path file;
    private Arena arena;
    private IoUring ring;
    private MemorySegment buffers;
    private final long[] offsets = new long[BATCH];
    private long seed = 42;
    private long checked;
    private int failures;
    /** Made once, as an application keeps one per file: a target built per call would be the loop's only allocation. */
    private final FileTarget file0 = FileTarget.fixed(0);
    private final CqeHandler verify = this::onCompletion;
    private final CqeHandler countNop = this::countNop;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        file = OffsetPatternFile.create("uring4j-ringloop", FILE_SIZE);
        arena = Arena.ofConfined();
        ring = IoUring.open(IoUring.options().entries(BATCH * 2).flags(SetupFlag.SINGLE_ISSUER | SetupFlag.DEFER_TASKRUN));
        ring.nextSqe().openat(-100, arena.allocateFrom(file.toString()), 0, 0).userData(0);
        ring.submitAndWait(1);
        int[] fd = {-1};
        ring.reap((ud, res, fl) -> fd[0] = res);
        if (fd[0] < 0) {
            throw new IOException("open failed: " + fd[0]);
        }
        ring.registerFiles(fd[0]);
        buffers = arena.allocate((long) BATCH * BLOCK, 4096);
        ring.registerBuffers(buffers);
    }

    private void onCompletion(long userData, int res, int flags) {
        int slot = (int) userData;
        long first = buffers.get(ValueLayout.JAVA_LONG, (long) slot * BLOCK);
        long last = buffers.get(ValueLayout.JAVA_LONG, (long) slot * BLOCK + BLOCK - 8);
        if (res != BLOCK || first != offsets[slot] || last != offsets[slot] + BLOCK - 8) {
            failures++;
        }
        checked++;
    }

    private long nextOffset() {
        long x = OffsetPatternFile.xorshift(seed);
        seed = x;
        return Long.remainderUnsigned(x, FILE_SIZE / BLOCK) * BLOCK;
    }

    /** One batch of 32 fixed-buffer reads on a registered file: prepare, submit-and-wait, reap. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long readBatch() throws IOException {
        long base = buffers.address();
        FileTarget f = file0;
        for (int i = 0; i < BATCH; i++) {
            long off = nextOffset();
            offsets[i] = off;
            ring.nextSqe().readFixed(f, base + (long) i * BLOCK, BLOCK, off, 0).userData(i);
        }
        ring.submitAndWait(BATCH);
        int n = 0;
        while (n < BATCH) {
            n += ring.reap(verify);
            if (n < BATCH) {
                ring.submitAndWait(BATCH - n);
            }
        }
        return checked;
    }

    /** The same loop with NOPs: the library's own overhead per operation. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long nopBatch() throws IOException {
        for (int i = 0; i < BATCH; i++) {
            ring.nextSqe().nop().userData(i);
        }
        ring.submitAndWait(BATCH);
        int n = 0;
        while (n < BATCH) {
            n += ring.reap(countNop);
        }
        return checked;
    }

    private void countNop(long userData, int res, int flags) {
        if (res != 0) {
            failures++;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        ring.close();
        arena.close();
        Files.deleteIfExists(file);
        if (failures != 0) {
            throw new IllegalStateException(failures + " reads returned wrong data");
        }
    }
}
