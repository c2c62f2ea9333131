package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Seed 004: count the newlines of a 10,000-line CSV ({@code 0,1,...,9} per line), opening the file each time.
 * Every variant must count exactly 10,000 or the benchmark fails.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class BufferingBenchmark {

    static final int LINES = 10_000;

    Path csv;
    int size;
    IoUring ring;
    Arena arena;
    MemorySegment path;
    MemorySegment whole;
    MemorySegment chunk;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        csv = JmhFiles.root().resolve("lines-10000.csv");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            for (int j = 0; j < 10; j++) {
                b.append(j).append(j < 9 ? ',' : '\n');
            }
        }
        byte[] bytes = b.toString().getBytes(StandardCharsets.US_ASCII);
        if (!Files.exists(csv) || Files.size(csv) != bytes.length) {
            Files.write(csv, bytes);
        }
        size = bytes.length;
        ring = IoUring.open(8);
        arena = Arena.ofConfined();
        path = arena.allocateFrom(csv.toString());
        whole = arena.allocate(size, 4096);
        chunk = arena.allocate(8192, 4096);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ring.close();
        arena.close();
    }

    @Benchmark
    public int noBuffering() throws IOException {
        try (InputStream in = new FileInputStream(csv.toFile())) {
            return expect(countByteAtATime(in));
        }
    }

    @Benchmark
    public int bufferedInputStream() throws IOException {
        try (InputStream in = new BufferedInputStream(new FileInputStream(csv.toFile()))) {
            return expect(countByteAtATime(in));
        }
    }

    @Benchmark
    public int manualBuffer8k() throws IOException {
        try (InputStream in = new FileInputStream(csv.toFile())) {
            return expect(countWithArray(in, new byte[8192]));
        }
    }

    @Benchmark
    public int fileSizeBuffer() throws IOException {
        try (InputStream in = new FileInputStream(csv.toFile())) {
            return expect(countWithArray(in, new byte[(int) Files.size(csv)]));
        }
    }

    /** The ring: open, one read of the whole file into native memory, close, then count. */
    @Benchmark
    public int ringWholeFile() throws IOException {
        int fd = RingFiles.open(ring, csv, RingFiles.O_RDONLY);
        int n;
        try {
            ring.nextSqe().read(FileTarget.fd(fd), whole, 0).userData(1);
            n = waitOne();
        } finally {
            RingFiles.close(ring, fd);
        }
        if (n != size) {
            throw new IOException("short read " + n);
        }
        return expect(count(whole, n));
    }

    /** The ring, 8 KiB at a time (the buffered-stream shape), one read in flight. */
    @Benchmark
    public int ring8k() throws IOException {
        int fd = RingFiles.open(ring, csv, RingFiles.O_RDONLY);
        int lines = 0;
        try {
            FileTarget t = FileTarget.fd(fd);
            long pos = 0;
            while (true) {
                ring.nextSqe().read(t, chunk, pos).userData(1);
                int n = waitOne();
                if (n < 0) {
                    throw new IOException("read failed: " + n);
                }
                if (n == 0) {
                    break;
                }
                lines += count(chunk, n);
                pos += n;
            }
        } finally {
            RingFiles.close(ring, fd);
        }
        return expect(lines);
    }

    private final int[] res = new int[1];

    private int waitOne() throws IOException {
        int got = 0;
        while (got == 0) {
            ring.submitAndWait(1);
            got = ring.reap((u, r, f) -> res[0] = r);
        }
        return res[0];
    }

    private static int count(MemorySegment s, int n) {
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) == '\n') {
                c++;
            }
        }
        return c;
    }

    private static int countByteAtATime(InputStream in) throws IOException {
        int c = 0;
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                c++;
            }
        }
        return c;
    }

    private static int countWithArray(InputStream in, byte[] buf) throws IOException {
        int c = 0;
        int n;
        while ((n = in.read(buf)) != -1) {
            for (int i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    c++;
                }
            }
        }
        return c;
    }

    private static int expect(int lines) {
        if (lines != LINES) {
            throw new IllegalStateException("counted " + lines + " newlines, expected " + LINES);
        }
        return lines;
    }
}
