package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Seed 003's read-ahead control: a 32 MiB file dropped from the page cache before every invocation, then read
 * once through the ring, either sequentially in 64 KiB pieces or as 2048 random 4 KiB blocks, after
 * {@code posix_fadvise} NORMAL, SEQUENTIAL or RANDOM on the same descriptor (the advice belongs to the open
 * file, so it must be the descriptor that reads). Single-shot: one cold pass per measurement; every block checked.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class FadviseBenchmark implements CqeHandler {

    static final long SIZE = 32L << 20;
    static final int SEQ = 64 << 10;
    static final int RANDOM_READS = 2048;

    @Param({"normal", "sequential", "random"})
    public String advice;

    @Param({"sequential", "random"})
    public String pattern;

    Path file;
    IoUring ring;
    Arena arena;
    MemorySegment buf;
    int fd = -1;
    int res;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        file = JmhFiles.blockFile(JmhFiles.root().resolve("fadvise-32m.bin"), 6, SIZE);
        ring = IoUring.open(8);
        arena = Arena.ofConfined();
        buf = arena.allocate(SEQ, 4096);
    }

    @Setup(Level.Invocation)
    public void coldOpen() throws IOException {
        RingFiles.dropFromPageCache(file);
        fd = RingFiles.open(ring, file, RingFiles.O_RDONLY);
        int a = switch (advice) {
            case "sequential" -> RingFiles.POSIX_FADV_SEQUENTIAL;
            case "random" -> RingFiles.POSIX_FADV_RANDOM;
            default -> RingFiles.POSIX_FADV_NORMAL;
        };
        RingFiles.fadvise(ring, fd, a);
    }

    @TearDown(Level.Invocation)
    public void closeFile() throws IOException {
        RingFiles.close(ring, fd);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ring.close();
        arena.close();
    }

    @Benchmark
    public long read() throws IOException {
        FileTarget t = FileTarget.fd(fd);
        long sum = 0;
        if (pattern.equals("sequential")) {
            for (long off = 0; off < SIZE; off += SEQ) {
                sum += readAt(t, off, SEQ);
            }
        } else {
            SplittableRandom r = new SplittableRandom(11);
            for (int i = 0; i < RANDOM_READS; i++) {
                sum += readAt(t, r.nextLong(SIZE / 4096) * 4096, 4096);
            }
        }
        return sum;
    }

    private long readAt(FileTarget t, long off, int len) throws IOException {
        ring.nextSqe().read(t, buf.address(), len, off).userData(1);
        ring.submitAndWait(1);
        ring.reap(this);
        JUringReadBenchmark.checkRes(res, len);
        return JmhFiles.checkBlocks(buf, 6, off, len);
    }

    @Override
    public void handle(long userData, int result, int flags) {
        res = result;
    }
}
