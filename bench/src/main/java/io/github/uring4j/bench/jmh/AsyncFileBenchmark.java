package io.github.uring4j.bench.jmh;

import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.IoExecutor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The async API's cost per operation: batches of 32 cached 4 KiB random reads through {@code AsyncFile} with a
 * {@code CompletionHandler} (target: at most 64 B allocated per operation with {@code -prof gc}) and with
 * {@code CompletableFuture}s, beside JDK {@code AsynchronousFileChannel} doing the same. Every block is checked:
 * each 8-byte word of the file holds its own offset.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class AsyncFileBenchmark {
    static final int BATCH = 32;
    static final int BLOCK = 4096;
    static final long FILE_SIZE = 64L << 20;

    /**
     * Where the buffers live: memory the library holds goes to the kernel as it is ({@code direct}: {@code
     * ByteBuffer.allocateDirect}; {@code pool}: a registered {@code BufferPool}); a shared arena's memory, which its
     * owner may free at any moment, is copied through library memory ({@code sharedArena}).
     */
    @Param({"direct", "pool", "sharedArena"})
    public String memory;

    private Path file;
    private IoExecutor executor;
    private BufferPool pool;
    private Arena arena;
    private AsyncFile asyncFile;
    private AsynchronousFileChannel jdk;
    private final Slot[] slots = new Slot[BATCH];
    private final AtomicInteger done = new AtomicInteger();
    private volatile int failures;
    private long seed = 7;
    private volatile Thread waiter;

    /** One buffer in flight; also the attachment, so the handler path boxes nothing. */
    final class Slot {
        final ByteBuffer buf;
        long offset;

        Slot(ByteBuffer buf) {
            this.buf = buf.order(ByteOrder.LITTLE_ENDIAN);
        }

        void check(int n) {
            if (n != BLOCK || buf.getLong(0) != offset || buf.getLong(BLOCK - 8) != offset + BLOCK - 8) {
                failures++;
            }
        }
    }

    private final CompletionHandler<Integer, Slot> handler = new CompletionHandler<>() {
        @Override
        public void completed(Integer n, Slot slot) {
            slot.check(n);
            if (done.incrementAndGet() == BATCH) {
                LockSupport.unpark(waiter);
            }
        }

        @Override
        public void failed(Throwable exc, Slot slot) {
            failures++;
            if (done.incrementAndGet() == BATCH) {
                LockSupport.unpark(waiter);
            }
        }
    };

    @Setup(Level.Trial)
    public void setup() throws Exception {
        file = OffsetPatternFile.create("uring4j-async", FILE_SIZE);
        executor = IoExecutor.builder().loops(1).entries(128).name("jmh-loop").build();
        asyncFile = AsyncFile.open(executor, file, StandardOpenOption.READ).get();
        jdk = AsynchronousFileChannel.open(file, StandardOpenOption.READ);
        if (memory.equals("pool")) {
            pool = BufferPool.builder().bufferSize(BLOCK).count(BATCH).register(executor).build();
        } else if (memory.equals("sharedArena")) {
            arena = Arena.ofShared();
        }
        for (int i = 0; i < BATCH; i++) {
            slots[i] = new Slot(switch (memory) {
                case "pool" -> pool.acquireBuffer();
                case "sharedArena" -> arena.allocate(BLOCK, 4096).asByteBuffer();
                default -> ByteBuffer.allocateDirect(BLOCK + 4096).alignedSlice(4096).limit(BLOCK).slice();
            });
        }
    }

    private long nextOffset() {
        long x = OffsetPatternFile.xorshift(seed);
        seed = x;
        return Long.remainderUnsigned(x, FILE_SIZE / BLOCK) * BLOCK;
    }

    /** Parks until the last completion of the batch unparks us (the loop thread needs the CPU more than we do). */
    private void awaitBatch() {
        while (done.get() < BATCH) {
            LockSupport.park(this);
        }
        done.set(0);
    }

    @Setup(Level.Iteration)
    public void bindWaiter() {
        waiter = Thread.currentThread();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int asyncFileHandler() {
        for (Slot s : slots) {
            s.offset = nextOffset();
            s.buf.clear();
            asyncFile.read(s.buf, s.offset, s, handler);
        }
        awaitBatch();
        return failures;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int asyncFileFuture() {
        @SuppressWarnings("unchecked")
        CompletableFuture<Integer>[] fs = (CompletableFuture<Integer>[]) new CompletableFuture<?>[BATCH];
        for (int i = 0; i < BATCH; i++) {
            Slot s = slots[i];
            s.offset = nextOffset();
            s.buf.clear();
            fs[i] = asyncFile.read(s.buf, s.offset);
        }
        for (int i = 0; i < BATCH; i++) {
            slots[i].check(fs[i].join());
        }
        return failures;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int jdkAsynchronousFileChannel() {
        for (Slot s : slots) {
            s.offset = nextOffset();
            s.buf.clear();
            jdk.read(s.buf, s.offset, s, handler);
        }
        awaitBatch();
        return failures;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        asyncFile.close();
        jdk.close();
        if (pool != null) {
            for (Slot slot : slots) {
                pool.release(slot.buf);
            }
            pool.close();
        }
        executor.close();
        if (arena != null) {
            arena.close();
        }
        Files.deleteIfExists(file);
        if (failures != 0) {
            throw new IllegalStateException(failures + " reads returned wrong data");
        }
    }
}
