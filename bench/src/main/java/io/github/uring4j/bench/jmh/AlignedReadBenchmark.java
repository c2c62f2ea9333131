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
 * Seed 003's aligned vs unaligned reads: 4 KiB at a page boundary ({@code shift=0}) or 2 KiB past it (two pages
 * touched), from the page cache; latency percentiles from JMH's sample mode. Every read is verified.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class AlignedReadBenchmark {

    @Param({"0", "2048"})
    public int shift;

    RandomReadState s;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        s = new RandomReadState(false);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        s.close();
    }

    @Benchmark
    public long channel() throws IOException {
        return s.channelRead(s.offset(shift));
    }

    @Benchmark
    public long ring() throws IOException {
        return s.ringRead(s.offset(shift));
    }
}
