package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * Seed 003's heap vs direct buffers: read a whole file (from the page cache) into one buffer of its size — a heap
 * {@code ByteBuffer} (the JDK copies through a temporary direct buffer), a direct one, or native memory through
 * the ring. Every 4 KiB block's identity is checked.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC", "-Xmx2g"})
@State(Scope.Thread)
public class HeapVsDirectBenchmark {

    @Param({"1048576", "8388608", "67108864"})
    public int size;

    Path file;
    FileChannel ch;
    ByteBuffer heap;
    ByteBuffer direct;
    MemorySegment heapSeg;
    MemorySegment directSeg;
    Arena arena;
    MemorySegment nat;
    IoUring ring;
    int fd;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        file = JmhFiles.blockFile(JmhFiles.root().resolve("whole-" + size + ".bin"), 3, size);
        ch = FileChannel.open(file, StandardOpenOption.READ);
        heap = ByteBuffer.allocate(size);
        direct = ByteBuffer.allocateDirect(size);
        // Views made while position = 0 and limit = size: they keep covering the whole buffer.
        heapSeg = MemorySegment.ofBuffer(heap);
        directSeg = MemorySegment.ofBuffer(direct);
        arena = Arena.ofConfined();
        nat = arena.allocate(size, 4096);
        ring = IoUring.open(4);
        fd = RingFiles.open(ring, file, RingFiles.O_RDONLY);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        RingFiles.close(ring, fd);
        ring.close();
        arena.close();
        ch.close();
    }

    @Benchmark
    public long heapBuffer() throws IOException {
        heap.clear();
        JUringReadBenchmark.readFully(ch, heap, 0);
        return JmhFiles.checkBlocks(heapSeg, 3, 0, size);
    }

    @Benchmark
    public long directBuffer() throws IOException {
        direct.clear();
        JUringReadBenchmark.readFully(ch, direct, 0);
        return JmhFiles.checkBlocks(directSeg, 3, 0, size);
    }

    @Benchmark
    public long ringNative() throws IOException {
        long pos = 0;
        int[] res = new int[1];
        while (pos < size) {
            ring.nextSqe().read(FileTarget.fd(fd), nat.address() + pos, (int) (size - pos), pos).userData(1);
            ring.submitAndWait(1);
            ring.reap((u, r, f) -> res[0] = r);
            if (res[0] <= 0) {
                throw new IOException("read returned " + res[0]);
            }
            pos += res[0];
        }
        return JmhFiles.checkBlocks(nat, 3, 0, size);
    }
}
