package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;

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
}
