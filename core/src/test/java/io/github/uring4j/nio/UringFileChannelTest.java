package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The FileChannel contract on the channels {@link UringFiles} hands out. */
class UringFileChannelTest extends FileChannelContract {
    @Override
    Kind kind() {
        return Kind.URING;
    }

    /** uring4j parks a virtual reader and wakes it; while UringFiles still hands out the JDK's channel, the JDK's. */
    @Override
    boolean virtualReadersWaitForTheirRead(FileChannel ch) {
        return Conform.isJdkChannel(ch);
    }

    /**
     * uring4j's readers park on a ring read instead of pinning their carrier: 10,000 of them need no more carriers
     * than the scheduler starts for the processors (the JDK's channel grows to as many as 256 for O_DIRECT reads).
     */
    @Override
    void checkCarriers(int carriers, boolean direct) {
        if (io.github.uring4j.file.IoExecutor.defaultExecutor().backend() == io.github.uring4j.file.Backend.IO_URING) {
            int cores = Runtime.getRuntime().availableProcessors();
            assertTrue(carriers <= cores, carriers + " carrier threads for " + cores + " processors");
        }
    }

    /**
     * A transfer from a channel that is not ours reads before it writes; when the write fails, a {@code FileChannel}
     * source gets back what was read and not written (the JDK's channel keeps its 8 KiB buffer's worth consumed).
     */
    @Test
    void aFailedTransferFromGivesTheSourceBackWhatItDidNotWrite() throws Exception {
        Path p = file("f", pattern(10, 58));
        Path q = file("g", pattern(50_000, 59));
        io.github.uring4j.file.TestFiles.assumeRefusesPosition(p.getParent(), Long.MAX_VALUE - 1000);
        try (FileChannel ours = open(p, READ, WRITE); FileChannel jdk = FileChannel.open(q, READ)) {
            jdk.position(100);
            IOException e = assertThrows(IOException.class, () -> ours.transferFrom(jdk, Long.MAX_VALUE - 1000, 40_000));
            assertEquals(100, jdk.position(), "the source's position after " + e);
            assertEquals(10, ours.size());
        }
    }
}
