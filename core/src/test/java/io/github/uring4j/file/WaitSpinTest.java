package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waits that spin before they park ({@link IoExecutor.Builder#waitSpinMicros}) return what parked waits return, on
 * both backends: the bytes, the timeouts, the interrupts, the closes. The longest spin (one second) is used where a
 * wait must not spin for its whole budget: a timed wait ends at its own timeout, an interrupted thread throws.
 */
class WaitSpinTest {
    @TempDir
    Path dir;

    @Test
    void theBuilderTakesZeroToOneSecond() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IoExecutor.builder().waitSpinMicros(-1));
        assertTrue(e.getMessage().contains("waitSpinMicros"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IoExecutor.builder().waitSpinMicros(1_000_001));
        IoExecutor.builder().waitSpinMicros(0).waitSpinMicros(1_000_000);
    }

    @Test
    void spinningAndParkedWaitsReadTheSameBytesOnBothBackends() throws Exception {
        Path p = dir.resolve("data");
        byte[] data = TestFiles.pattern(1 << 20, 3);
        Files.write(p, data);
        for (Backend backend : Backend.values()) {
            if (backend == Backend.AUTO) {
                continue;
            }
            for (long spin : new long[] {0, 50, 1_000_000}) {
                try (IoExecutor io = IoExecutor.builder().backend(backend).loops(1).waitSpinMicros(spin).build()) {
                    SplittableRandom r = new SplittableRandom(spin);
                    ByteBuffer b = ByteBuffer.allocateDirect(4096);
                    for (int i = 0; i < 300; i++) {
                        // a whole open + read + close each time: the close's wait spins too
                        try (AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).join()) {
                            int off = r.nextInt(data.length - 4096);
                            int n = i % 2 == 0 ? f.read(b.clear(), off).join() : f.read(b.clear(), off).get();
                            assertEquals(4096, n);
                            byte[] got = new byte[4096];
                            b.flip().get(got);
                            assertArrayEquals(Arrays.copyOfRange(data, off, off + 4096), got,
                                    backend + ", spin " + spin + ", read " + i);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aTimedWaitEndsAtItsTimeoutAndAnInterruptedOneThrowsThoughTheSpinIsASecond() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifo");
        try (IoExecutor io = UringExecutorTest.uring().waitSpinMicros(1_000_000).build();
                AsyncFile f = AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join()) {
            CompletableFuture<Integer> never = f.read(ByteBuffer.allocateDirect(16), 0);
            assertThrows(TimeoutException.class, () -> never.get(1, TimeUnit.MILLISECONDS));
            assertThrows(TimeoutException.class, () -> never.get(0, TimeUnit.NANOSECONDS));
            assertThrows(TimeoutException.class, () -> never.get(-5, TimeUnit.SECONDS));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    never.get();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            t.start();
            t.join();
            assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
            // interrupted while it waits (spinning or parked): it throws, as a parked wait does
            CompletableFuture<Throwable> second = new CompletableFuture<>();
            Thread w = new Thread(() -> {
                try {
                    never.get();
                    second.complete(null);
                } catch (Throwable e) {
                    second.complete(e);
                }
            });
            w.start();
            w.interrupt();
            assertTrue(second.get(30, TimeUnit.SECONDS) instanceof InterruptedException);
            assertFalse(never.isDone());
            f.close(); // the read fails with the close, which the spinning close waits for
            CompletionException e = assertThrows(CompletionException.class, never::join);
            assertTrue(e.getCause() instanceof AsynchronousCloseException, String.valueOf(e.getCause()));
        }
    }

    @Test
    void virtualThreadsWaitWithoutSpinningAndGetTheirBytes() throws Exception {
        Path p = dir.resolve("v");
        byte[] data = TestFiles.pattern(64 * 4096, 5);
        Files.write(p, data);
        try (IoExecutor io = UringExecutorTest.uring().waitSpinMicros(1_000_000).build();
                AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).join()) {
            Thread[] ts = new Thread[64];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int i = 0; i < ts.length; i++) {
                int block = i;
                ts[i] = Thread.ofVirtual().start(() -> {
                    try {
                        ByteBuffer b = ByteBuffer.allocate(4096);
                        assertEquals(4096, f.read(b, block * 4096L).join());
                        assertArrayEquals(Arrays.copyOfRange(data, block * 4096, block * 4096 + 4096), b.array());
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            for (Thread t : ts) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }
}
