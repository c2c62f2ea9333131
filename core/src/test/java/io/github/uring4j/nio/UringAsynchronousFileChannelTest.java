package io.github.uring4j.nio;

/** The AsynchronousFileChannel contract on the channels {@link UringFiles} hands out. */
class UringAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    @Override
    Kind kind() {
        return Kind.URING;
    }
}
