package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pool closed while one of its buffers, given back already, is still in a write of the JDK's own channel (which
 * holds the buffer's memory for the call, and refuses the close of its arena meanwhile): the close returns, and the
 * memory is freed by a later pool's build once that write has ended (the close threw "Session is acquired by 1
 * clients", out of the build of an unrelated pool when that build released the dropped one, and the memory was never
 * freed; found by a hostile probe).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BufferPoolInUseByTheJdkTest {
    /** {@code write(2)} by number: the JDK's pipe writes with it. */
    private static final String WRITE = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> "1";
        case "aarch64" -> "64";
        default -> null;
    };
    private static final String WRITER = "jdk-pipe-writer";

    @Test
    void aPoolWhoseBufferTheJdkStillWritesIsFreedOnceTheWriteEnds() throws Exception {
        Assumptions.assumeTrue(WRITE != null, "no system-call number for write here");
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            ByteBuffer fill = ByteBuffer.allocate(4096);
            sink.configureBlocking(false);
            while (sink.write(fill.clear()) > 0) {
                // until the pipe is full
            }
            sink.configureBlocking(true);
            BufferPool pool = BufferPool.create(4096, 1);
            MemorySegment segment = pool.acquire();
            ByteBuffer b = segment.asByteBuffer();
            AtomicInteger written = new AtomicInteger(-1);
            Thread writer = Thread.ofPlatform().name(WRITER).start(() -> {
                try {
                    written.set(sink.write(b));
                } catch (java.io.IOException e) {
                    written.set(-2);
                }
            });
            while (!inWrite()) {
                Thread.sleep(5); // until the writer waits in write(2) for room, holding the buffer's memory
            }
            pool.release(segment); // given back while the JDK still writes from it: the program's mistake
            pool.close(); // returns: the memory is freed later
            assertTrue(segment.scope().isAlive(), "freed under the JDK's write");
            source.configureBlocking(false);
            ByteBuffer drain = ByteBuffer.allocate(1 << 16);
            while (writer.isAlive()) {
                source.read(drain.clear());
                Thread.sleep(1);
            }
            assertEquals(4096, written.get());
            BufferPool.create(4096, 1).close(); // a later pool: the deferred close is tried again
            assertFalse(segment.scope().isAlive(), "the memory is freed once the write has ended");
        }
    }

    /** Whether the writer thread sits in {@code write(2)} ({@code /proc/self/task/<tid>/syscall}). */
    private static boolean inWrite() throws java.io.IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).trim().equals(WRITER)) {
                        return Files.readString(task.resolve("syscall")).startsWith(WRITE + " ");
                    }
                } catch (java.io.IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return false;
    }
}
