package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Seed 003's file copy: a naive read/write loop through a 1 MiB direct buffer, {@code transferTo}
 * ({@code sendfile}/{@code copy_file_range} in the JDK), and the ring's {@code SPLICE} file -> pipe -> file, each
 * pair linked. The copy is checked after every iteration (size and every block).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class TransferBenchmark {

    static final int CHUNK = 1 << 20;
    /** A pipe holds 64 KiB by default: one splice pair moves at most that much. */
    static final int PIPE_CHUNK = 1 << 16;

    @Param({"8388608", "67108864"})
    public int size;

    Path src;
    Path dst;
    ByteBuffer buf;
    IoUring ring;
    Arena arena;
    int[] pipe = new int[2];

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        src = JmhFiles.blockFile(JmhFiles.root().resolve("copy-src-" + size + ".bin"), 4, size);
        dst = JmhFiles.root().resolve("copy-dst-" + size + ".bin");
        buf = ByteBuffer.allocateDirect(CHUNK);
        ring = IoUring.open(64);
        arena = Arena.ofConfined();
        // A FIFO is a pipe with a name: opened read-write, one descriptor serves both ends of the splices.
        Path fifo = JmhFiles.root().resolve("splice-" + ProcessHandle.current().pid() + ".fifo");
        Files.deleteIfExists(fifo);
        try {
            if (new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor() != 0) {
                throw new IOException("mkfifo " + fifo + " failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        int fd = RingFiles.open(ring, fifo, RingFiles.O_RDWR);
        Files.delete(fifo);
        pipe[0] = fd;
        pipe[1] = fd;
    }

    @TearDown(Level.Iteration)
    public void checkCopy() throws IOException {
        if (Files.size(dst) != size) {
            throw new IllegalStateException("copy has " + Files.size(dst) + " bytes, expected " + size);
        }
        try (Arena a = Arena.ofConfined(); FileChannel ch = FileChannel.open(dst, StandardOpenOption.READ)) {
            MemorySegment whole = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, a);
            long bad = BlockData.verify(whole, 0, 4, 0, size);
            if (bad >= 0) {
                throw new IllegalStateException("copy differs at byte " + bad);
            }
        }
        Files.delete(dst);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        RingFiles.close(ring, pipe[0]);
        ring.close();
        arena.close();
    }

    @Benchmark
    public long naiveCopy() throws IOException {
        long total = 0;
        try (FileChannel in = FileChannel.open(src, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(dst, StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (in.read(buf.clear()) > 0) {
                buf.flip();
                while (buf.hasRemaining()) {
                    total += out.write(buf);
                }
            }
        }
        return total;
    }

    @Benchmark
    public long transferTo() throws IOException {
        long total = 0;
        try (FileChannel in = FileChannel.open(src, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(dst, StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            while (total < size) {
                total += in.transferTo(total, size - total, out);
            }
        }
        return total;
    }

    @Benchmark
    public long ringSplice() throws IOException {
        int in = RingFiles.open(ring, src, RingFiles.O_RDONLY);
        int out = RingFiles.open(ring, dst, RingFiles.O_WRONLY | RingFiles.O_CREAT | RingFiles.O_TRUNC);
        long total = 0;
        int[] res = new int[2];
        try {
            FileTarget fin = FileTarget.fd(in);
            FileTarget fout = FileTarget.fd(out);
            FileTarget pr = FileTarget.fd(pipe[0]);
            FileTarget pw = FileTarget.fd(pipe[1]);
            while (total < size) {
                int len = (int) Math.min(PIPE_CHUNK, size - total);
                ring.nextSqe().splice(fin, total, pw, -1, len, 0).userData(0).link();
                ring.nextSqe().splice(pr, -1, fout, total, len, 0).userData(1);
                ring.submitAndWait(2);
                int got = 0;
                while (got < 2) {
                    got += ring.reap((u, r, f) -> res[(int) u] = r);
                    if (got < 2) {
                        ring.submitAndWait(1);
                    }
                }
                if (res[0] != len || res[1] != len) {
                    throw new IOException("splice moved " + res[0] + "/" + res[1] + " of " + len);
                }
                total += len;
            }
        } finally {
            RingFiles.close(ring, in);
            RingFiles.close(ring, out);
        }
        return total;
    }
}
