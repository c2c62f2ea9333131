package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    @Test
    void aPoolWhoseBufferTheJdkStillWritesIsFreedOnceTheWriteEnds() throws Exception {
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            ByteBuffer fill = ByteBuffer.allocate(4096);
            sink.configureBlocking(false);
            while (sink.write(fill.clear()) > 0) {
                // until the pipe is full
            }
            sink.configureBlocking(true);
            BufferPool pool = BufferPool.create(4096, 1);
            java.lang.foreign.MemorySegment segment = pool.acquire();
            ByteBuffer b = segment.asByteBuffer();
            CompletableFuture<Integer> write = CompletableFuture.supplyAsync(() -> {
                try {
                    return sink.write(b);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Thread.sleep(200); // the write waits for room, holding the buffer's memory
            assertFalse(write.isDone(), "the write waits for room");
            pool.release(segment); // given back while the JDK still writes from it: the program's mistake
            pool.close(); // returns: the memory is freed later
            assertTrue(segment.scope().isAlive(), "freed under the JDK's write");
            ByteBuffer drain = ByteBuffer.allocate(1 << 16);
            while (!write.isDone()) {
                source.read(drain.clear());
            }
            assertTrue(write.get() > 0);
            BufferPool.create(4096, 1).close(); // a later pool: the deferred close is tried again
            assertFalse(segment.scope().isAlive(), "the memory is freed once the write has ended");
        }
    }
}
