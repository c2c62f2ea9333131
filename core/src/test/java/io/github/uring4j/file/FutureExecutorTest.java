package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link IoExecutor.Builder#futureExecutor}: where futures complete, and so where plain chained stages run. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FutureExecutorTest {
    @TempDir
    Path dir;

    private static Thread[] loops(IoExecutor io) {
        return ((io.github.uring4j.engine.uring.UringBackend) io.backend).threads();
    }

    private static boolean onLoop(IoExecutor io, Thread t) {
        for (Thread l : loops(io)) {
            if (l == t) {
                return true;
            }
        }
        return false;
    }

    /**
     * A read of an empty pipe, with a stage recording its thread attached before the write that completes it (a
     * stage attached to a future already complete would run on the caller instead).
     */
    private static Thread completingThread(AsyncFile fifo) throws Exception {
        CompletableFuture<Thread> t = fifo.read(ByteBuffer.allocateDirect(4), 0).thenApply(n -> Thread.currentThread());
        assertEquals(4, get(fifo.write(ByteBuffer.wrap(new byte[4]), 0)));
        return get(t);
    }

    @Test
    void futuresCompleteOnTheNamedExecutorAndHandlersOnTheLoop() throws Exception {
        Path p = TestFiles.fifo(dir, "fifo");
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "named-completer"));
        try (IoExecutor io = UringExecutorTest.uring().futureExecutor(pool).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            assertEquals("named-completer", completingThread(f).getName());
            CompletableFuture<Thread> handlerThread = new CompletableFuture<>();
            f.read(ByteBuffer.allocateDirect(4), 0, null, UringExecutorTest.completesOn(handlerThread));
            assertEquals(4, get(f.write(ByteBuffer.wrap(new byte[4]), 0)));
            assertTrue(onLoop(io, get(handlerThread)), "handlers stay on the loop");
            // The executor refuses work once shut down: the future still completes, on the loop.
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            Thread after = completingThread(f);
            assertTrue(onLoop(io, after), "a refused hand-off completes on the loop: " + after);
            assertEquals(null, get(f.closeAsync()));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withoutAnExecutorFuturesCompleteOnTheLoop() throws Exception {
        Path p = TestFiles.fifo(dir, "fifo2");
        try (IoExecutor io = UringExecutorTest.uring().build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            Thread t = completingThread(f);
            assertTrue(onLoop(io, t), String.valueOf(t));
        }
    }
}
