package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.ForwardingSyscalls;
import io.github.uring4j.linux.Uapi;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link HostileUseContract} on the thread-pool backend, and what only that backend's workers can meet. */
class HostileUseThreadsTest extends HostileUseContract {
    @Override
    Backend backend() {
        return Backend.THREADS;
    }

    /**
     * A cancel that comes while a worker reads a FIFO, after it looked whether the read was cancelled and before the
     * bytes moved (made certain here: the cancel is sent from inside the worker's call that counts the bytes, and
     * given 300 ms): the bytes are not lost. Either the cancel fails and the read gets them, or the cancel wins and
     * the next read gets them. Before, the cancel won and the bytes went to no one (seen once in CI).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCancelDuringAFifoReadLosesNoBytes() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoCancelRace");
        AtomicReference<CompletableFuture<Integer>> pending = new AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<Boolean> cancelled = new AtomicReference<>();
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public int ioctl(int fd, long request, MemorySegment arg) {
                if (request == Uapi.FIONREAD && armed.compareAndSet(true, false)) {
                    CompletableFuture<Integer> f;
                    while ((f = pending.get()) == null) {
                        Thread.onSpinWait();
                    }
                    CompletableFuture<Integer> read = f;
                    Thread canceller = Thread.ofPlatform().start(() -> cancelled.set(read.cancel(true)));
                    try {
                        canceller.join(300);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.ioctl(fd, request, arg);
            }
        };
        try (IoExecutor io = IoExecutor.builder().backend(Backend.THREADS).syscalls(sys).build();
                AsyncFile f = AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)
                        .get(10, TimeUnit.SECONDS);
                FileChannel w = FileChannel.open(fifo, StandardOpenOption.WRITE)) {
            w.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
            armed.set(true);
            ByteBuffer first = ByteBuffer.allocateDirect(16);
            CompletableFuture<Integer> read = f.read(first, 0);
            pending.set(read);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cancelled.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertFalse(armed.get(), "the worker never counted the FIFO's bytes: nothing was tested");
            if (Boolean.TRUE.equals(cancelled.get())) {
                ByteBuffer next = ByteBuffer.allocateDirect(16);
                assertEquals(5, f.read(next, 0).get(10, TimeUnit.SECONDS), "the bytes the cancelled read left");
                assertEquals("hello", StandardCharsets.US_ASCII.decode(next.flip()).toString());
            } else {
                assertEquals(Boolean.FALSE, cancelled.get(), "the cancel never returned");
                assertEquals(5, read.get(10, TimeUnit.SECONDS));
                assertEquals("hello", StandardCharsets.US_ASCII.decode(first.flip()).toString());
            }
            assertTrue(read.isDone());
        }
    }

    /**
     * A close that comes as the file's last call is ending (its system call returned, its end not yet through the
     * file's lock: made certain here by holding that lock, which the close takes again on the same thread), where that
     * call's handler closes the file: the worker tells the call first, then ends the close, so the handler's
     * {@code close()} must not wait for it, and a {@code join()} of the close there fails at once. Before, it waited for ever, and so did every other caller of the file's
     * close (found by the hostile stress test: a worker and the test's threads all waiting in {@code close()}).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aHandlerClosingItsFileAsItsLastCallEndsDoesNotWaitForItself() throws Exception {
        Path p = dir.resolve("lastCall");
        Files.write(p, TestFiles.pattern(4096, 3));
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<Thread> worker = new AtomicReference<>();
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ForwardingSyscalls sys = new ForwardingSyscalls() {
            @Override
            public long pread(int fd, MemorySegment buf, long count, long offset) {
                if (armed.compareAndSet(true, false)) {
                    worker.set(Thread.currentThread());
                    inCall.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.pread(fd, buf, count, offset);
            }
        };
        try (IoExecutor io = IoExecutor.builder().backend(Backend.THREADS).syscalls(sys).build()) {
            AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).get(10, TimeUnit.SECONDS);
            CompletableFuture<Integer> told = new CompletableFuture<>();
            CompletableFuture<Boolean> closedBeforeTold = new CompletableFuture<>();
            CompletableFuture<String> handlerClose = new CompletableFuture<>();
            CompletableFuture<String> handlerJoin = new CompletableFuture<>();
            armed.set(true);
            f.read(ByteBuffer.allocateDirect(4096), 0, null, new CompletionHandler<Integer, Void>() {
                @Override
                public void completed(Integer n, Void att) {
                    told.complete(n);
                    closeFromHere();
                }

                @Override
                public void failed(Throwable exc, Void att) {
                    told.completeExceptionally(exc);
                    closeFromHere();
                }

                private void closeFromHere() {
                    closedBeforeTold.complete(f.closeAsync().isDone()); // the close under way: the same future
                    try {
                        f.closeAsync().join();
                        handlerJoin.complete("returned");
                    } catch (IllegalStateException e) {
                        handlerJoin.complete("refused: " + e.getMessage());
                    } catch (Throwable e) {
                        handlerJoin.completeExceptionally(e);
                    }
                    try {
                        f.close();
                        handlerClose.complete("returned");
                    } catch (Throwable e) {
                        handlerClose.completeExceptionally(e);
                    }
                }
            });
            assertTrue(inCall.await(10, TimeUnit.SECONDS), "the read never reached its system call");
            Thread w = worker.get();
            CompletableFuture<Void> closing;
            synchronized (f.handle) {
                release.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (w.getState() != Thread.State.BLOCKED) { // the read's end, waiting for the file's lock
                    assertTrue(System.nanoTime() < deadline, "the worker never came to the file's lock: " + w.getState());
                    Thread.onSpinWait();
                }
                closing = f.closeAsync();
                assertFalse(closing.isDone(), "the close ended while the read's end was still to come");
            }
            String joined = handlerJoin.get(10, TimeUnit.SECONDS);
            assertTrue(joined.startsWith("refused: ") && joined.contains("would wait for ever"),
                    "a join of the close there, which would wait for ever, is refused: " + joined);
            assertEquals("returned", handlerClose.get(10, TimeUnit.SECONDS),
                    "the handler's close() waited for the close its own thread ends after it");
            assertEquals(4096, told.get(10, TimeUnit.SECONDS), "the read, told its own result");
            assertFalse(closedBeforeTold.get(), "the close ended before the file's last call was told");
            closing.get(10, TimeUnit.SECONDS);
            assertFalse(f.isOpen());
            f.close(); // and returns
        }
    }
}
