package io.github.uring4j.nio;

import java.nio.channels.FileChannel;

/** The FileChannel contract on the JDK's own channel: the reference the other runs are judged against. */
class JdkFileChannelTest extends FileChannelContract {
    @Override
    Kind kind() {
        return Kind.JDK;
    }

    @Override
    boolean virtualReadersWaitForTheirRead(FileChannel ch) {
        return true;
    }
}
