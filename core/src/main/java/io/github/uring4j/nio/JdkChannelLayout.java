package io.github.uring4j.nio;

import java.nio.channels.FileChannel;

/**
 * The instance fields of the JDK's own file channel ({@code sun.nio.ch.FileChannelImpl}), in its order and with
 * fields of its sizes, so that the JVM lays out {@link UringFileChannel} as it lays out the JDK's channel up to them.
 * Native code of some libraries reads the JDK channel's descriptor field through JNI from whatever
 * {@code FileChannel} it is handed, without looking at its class (Netty's epoll {@code sendfile} of a
 * {@code DefaultFileRegion}, behind Reactor Netty's and Spring WebFlux's static files): from our channel it took the
 * hash of a {@code String} for the descriptor number and sent the bytes of descriptor 0, the process's standard input,
 * as the file's. That place now holds a {@link Descriptor}, laid out as {@code java.io.FileDescriptor}, whose number is
 * the channel's descriptor while the channel is open and -1 once it is closed, as the JDK's. The other fields only
 * keep their places. The JVM lays out fields by their sizes and the order they are declared in, the same way for both
 * classes under every object layout (compressed pointers or not, compact object headers): a test reads a file through
 * Netty's native transport from one of our channels.
 */
abstract class JdkChannelLayout extends FileChannel {
    /** Where the JDK's channel has its {@code FileDescriptor fd}. */
    final Descriptor jdkDescriptor;
    // the JDK's writable, readable, sync, parent, path, threads, positionLock, uninterruptible, direct, alignment,
    // closer and fileLockTable
    private final boolean place1;
    private final boolean place2;
    private final boolean place3;
    private final Object place4;
    private final Object place5;
    private final Object place6;
    private final Object place7;
    private volatile boolean place8;
    private final boolean place9;
    private final int place10;
    private final Object place11;
    private volatile Object place12;

    JdkChannelLayout(int fd) {
        this.jdkDescriptor = new Descriptor(fd);
        this.place1 = false;
        this.place2 = false;
        this.place3 = false;
        this.place4 = null;
        this.place5 = null;
        this.place6 = null;
        this.place7 = null;
        this.place9 = false;
        this.place10 = 0;
        this.place11 = null;
    }

    /**
     * The fields of {@code java.io.FileDescriptor} ({@code int fd}, {@code long handle}, {@code parent},
     * {@code otherParents}, {@code closed}, {@code append}, {@code cleanup}), of which only the number is used.
     */
    static final class Descriptor {
        volatile int fd;
        private final long place1;
        private final Object place2;
        private final Object place3;
        private final boolean place4;
        private final boolean place5;
        private final Object place6;

        Descriptor(int fd) {
            this.fd = fd;
            this.place1 = -1;
            this.place2 = null;
            this.place3 = null;
            this.place4 = false;
            this.place5 = false;
            this.place6 = null;
        }
    }
}
