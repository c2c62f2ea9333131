package io.github.uring4j.bench.jmh;

import java.io.IOException;
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
 * Seed 003's page cache vs {@code O_DIRECT}: one random 4 KiB read at a time through {@code FileChannel} and the
 * ring, buffered (from the page cache) or {@code O_DIRECT} (from the device). Every read is verified.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class PageCacheVsDirectBenchmark {

    @Param({"false", "true"})
    public boolean direct;

    RandomReadState s;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        s = new RandomReadState(direct);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        s.close();
    }

    @Benchmark
    public long channel() throws IOException {
        return s.channelRead(s.offset(0));
    }

    @Benchmark
    public long ring() throws IOException {
        return s.ringRead(s.offset(0));
    }
}
