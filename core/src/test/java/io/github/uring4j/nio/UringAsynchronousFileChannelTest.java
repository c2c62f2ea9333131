package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.await;
import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The AsynchronousFileChannel contract on the channels {@link UringFiles} hands out, and what only they do. */
class UringAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    @Override
    Kind kind() {
        return Kind.URING;
    }

    /**
     * Channels dropped without {@code close()} after a read and a write each: once unreachable, every descriptor
     * comes back. (The JDK's own {@code AsynchronousFileChannel} keeps them: 300 were still open a minute after, on
     * JDK 25; its {@code FileChannel} gives them back, which {@code FileChannelContract} shows for both.)
     */
    @Test
    void channelsDroppedWithoutCloseGiveTheirDescriptorsBackOnceUnreachable() throws Exception {
        Path p = file("f", pattern(4096, 99));
        for (int i = 0; i < 300; i++) {
            AsynchronousFileChannel ch = open(p, READ, WRITE);
            assertEquals(100, await(ch.read(ByteBuffer.allocate(100), 0)));
            assertEquals(1, await(ch.write(ByteBuffer.wrap(new byte[] {pattern(4096, 99)[i]}), i)));
        }
        List<String> open = Conform.fdsUnderAfterCollection(dir);
        assertEquals(0, open.size(), "descriptors of dropped channels a minute after they were dropped: " + open.size());
        assertArrayEquals(pattern(4096, 99), Files.readAllBytes(p));
    }
}
