package io.github.uring4j.bench.jmh;

import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.nio.UringFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
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
 * One operation at a time, each awaited before the next, from one platform thread: a cached 4 KiB random read, and a
 * whole open + 4 KiB read + close of one file. The async APIs hand operations to another thread and back, so here
 * they pay the wake-ups that keeping many operations in flight hides. {@code AsyncFile} awaited with {@code join()}
 * as it comes (its reads first tried on the caller's thread, {@code IoExecutor.Builder.callerReads}; a wait spins
 * before it parks, {@code waitSpinMicros}); the same with every read through the loop ({@code ThroughLoop}); and
 * through the loop with the spin turned off ({@code Parked}). Beside them uring4j's {@code AsynchronousFileChannel},
 * the JDK's {@code AsynchronousFileChannel} (its own thread pool) and, for scale, the JDK's {@code FileChannel},
 * which makes the call on the caller's thread. Every block is checked: each 8-byte word of the file holds its own
 * offset.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class OneAtATimeBenchmark {
    static final int BLOCK = 4096;
    static final long FILE_SIZE = 64L << 20;

    private Path file;
    private IoExecutor spinning;
    private IoExecutor throughLoop;
    private IoExecutor parked;
    private AsyncFile spinningFile;
    private AsyncFile throughLoopFile;
    private AsyncFile parkedFile;
    private AsynchronousFileChannel jdkAsync;
    private AsynchronousFileChannel uringAsync;
    private FileChannel channel;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(2 * BLOCK).alignedSlice(BLOCK).limit(BLOCK).slice()
            .order(ByteOrder.LITTLE_ENDIAN);
    private long seed = 11;
    private long offset;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        file = OffsetPatternFile.create("uring4j-one", FILE_SIZE);
        spinning = IoExecutor.builder().loops(1).name("jmh-spinning").build();
        throughLoop = IoExecutor.builder().loops(1).callerReads(false).name("jmh-through-loop").build();
        parked = IoExecutor.builder().loops(1).callerReads(false).waitSpinMicros(0).name("jmh-parked").build();
        spinningFile = AsyncFile.open(spinning, file, StandardOpenOption.READ).join();
        throughLoopFile = AsyncFile.open(throughLoop, file, StandardOpenOption.READ).join();
        parkedFile = AsyncFile.open(parked, file, StandardOpenOption.READ).join();
        jdkAsync = AsynchronousFileChannel.open(file, StandardOpenOption.READ);
        uringAsync = UringFiles.newAsynchronousFileChannel(file, StandardOpenOption.READ);
        channel = FileChannel.open(file, StandardOpenOption.READ);
    }

    private ByteBuffer next() {
        long x = OffsetPatternFile.xorshift(seed);
        seed = x;
        offset = Long.remainderUnsigned(x, FILE_SIZE / BLOCK) * BLOCK;
        return buf.clear();
    }

    private long checked(int n) {
        if (n != BLOCK) {
            throw new IllegalStateException("read at " + offset + " returned " + n + " bytes");
        }
        // every word (each holds its own offset): the first and last only, before, where the claim is every byte
        for (int i = 0; i < BLOCK; i += 8) {
            if (buf.getLong(i) != offset + i) {
                throw new IllegalStateException("read at " + offset + " returned the wrong bytes at " + (offset + i));
            }
        }
        return offset;
    }

    @Benchmark
    public long readFileChannel() throws IOException {
        return checked(channel.read(next(), offset));
    }

    @Benchmark
    public long readJdkAsynchronousFileChannel() throws InterruptedException, ExecutionException {
        return checked(jdkAsync.read(next(), offset).get());
    }

    @Benchmark
    public long readUringAsynchronousFileChannel() throws InterruptedException, ExecutionException {
        return checked(uringAsync.read(next(), offset).get());
    }

    @Benchmark
    public long readAsyncFile() {
        return checked(spinningFile.read(next(), offset).join());
    }

    @Benchmark
    public long readAsyncFileThroughLoop() {
        return checked(throughLoopFile.read(next(), offset).join());
    }

    @Benchmark
    public long readAsyncFileParked() {
        return checked(parkedFile.read(next(), offset).join());
    }

    @Benchmark
    public long openReadCloseFileChannel() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return checked(ch.read(next(), offset));
        }
    }

    @Benchmark
    public long openReadCloseJdkAsynchronousFileChannel() throws Exception {
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(file, StandardOpenOption.READ)) {
            return checked(ch.read(next(), offset).get());
        }
    }

    @Benchmark
    public long openReadCloseUringAsynchronousFileChannel() throws Exception {
        try (AsynchronousFileChannel ch = UringFiles.newAsynchronousFileChannel(file, StandardOpenOption.READ)) {
            return checked(ch.read(next(), offset).get());
        }
    }

    @Benchmark
    public long openReadCloseAsyncFile() throws IOException {
        return openReadClose(spinning);
    }

    @Benchmark
    public long openReadCloseAsyncFileParked() throws IOException {
        return openReadClose(parked);
    }

    private long openReadClose(IoExecutor executor) throws IOException {
        try (AsyncFile f = AsyncFile.open(executor, file, StandardOpenOption.READ).join()) {
            return checked(f.read(next(), offset).join());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        spinningFile.close();
        throughLoopFile.close();
        parkedFile.close();
        jdkAsync.close();
        uringAsync.close();
        channel.close();
        spinning.close();
        throughLoop.close();
        parked.close();
        Files.deleteIfExists(file);
    }
}
