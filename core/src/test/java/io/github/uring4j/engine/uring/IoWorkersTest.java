package io.github.uring4j.engine.uring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.uring4j.engine.ExecutorDoor;
import io.github.uring4j.file.Backend;
import io.github.uring4j.file.IoExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each loop's ring runs at most {@code ioWorkers} io-wq workers at once for blocking work on regular files
 * ({@code IORING_REGISTER_IOWQ_MAX_WORKERS}, asked on the loop's own thread, whose workers they are).
 */
class IoWorkersTest {
    /** The bounded limit of each loop's io-wq, asked on the loop (0, 0 changes nothing and says what it is). */
    private static int[] boundedLimits(IoExecutor io) throws Exception {
        UringBackend b = (UringBackend) ExecutorDoor.get().backend(io);
        EventLoop[] loops = b.loops();
        int[] out = new int[loops.length];
        for (int i = 0; i < loops.length; i++) {
            CompletableFuture<Integer> limit = new CompletableFuture<>();
            loops[i].enqueueMessage(new LoopMessage.Task(l -> limit.complete(l.ring.setIoWqMaxWorkers(0, 0)[0])));
            out[i] = limit.get(30, TimeUnit.SECONDS);
        }
        return out;
    }

    @Test
    void eachLoopsRingTakesTheLimitAsked() throws Exception {
        try (IoExecutor io = IoExecutor.builder().backend(Backend.IO_URING).loops(2).ioWorkers(20).build()) {
            assertArrayEquals(new int[] {20, 20}, boundedLimits(io), "the loops' bounded io-wq limits");
        }
        try (IoExecutor io = IoExecutor.builder().backend(Backend.IO_URING).build()) {
            assertArrayEquals(new int[] {64}, boundedLimits(io), "the default");
        }
    }

    @Test
    void badLimitsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> IoExecutor.builder().ioWorkers(-1));
        assertThrows(IllegalArgumentException.class, () -> IoExecutor.builder().ioWorkers(4097));
    }
}
