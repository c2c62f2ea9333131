package io.github.uring4j.nio;

/** The AsynchronousFileChannel contract on the JDK's own channel: the reference. */
class JdkAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    @Override
    Kind kind() {
        return Kind.JDK;
    }
}
