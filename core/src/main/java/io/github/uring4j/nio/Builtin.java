package io.github.uring4j.nio;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.spi.FileSystemProvider;

/**
 * The JDK's built-in provider of the default file system, whether or not {@code UringFileSystemProvider} is
 * installed in front of it, and the built-in path behind any path of the default file system.
 */
final class Builtin {
    private Builtin() {
    }

    /** A path that stands for a built-in one (the provider's paths). */
    interface Wrapped {
        /** The built-in path this one stands for. */
        Path builtin();
    }

    /**
     * A channel that can be told to ignore interrupts, as the JDK tells its own channel behind
     * {@code Files.readAllBytes}, {@code readString} and the streams of {@code newInputStream} and
     * {@code newOutputStream}: after {@link #setUninterruptible()} an interrupt neither closes the channel nor fails
     * the call. {@code UringFileSystemProvider} calls it on such channels; a channel that does not implement it is
     * shielded instead by clearing the caller's interrupt flag around each call (and setting it again after), which
     * covers an interrupt made before the call but not one that arrives during it.
     */
    interface Uninterruptible {
        /** From now on interrupts neither close this channel nor fail its calls. */
        void setUninterruptible();
    }

    /** Whether {@code ch} is one of the JDK's own classes (the built-in provider's channel). */
    static boolean isJdks(Object ch) {
        return ch.getClass().getModule() == Object.class.getModule();
    }

    /** Set once, by the installed {@code UringFileSystemProvider}'s constructor. */
    private static volatile FileSystemProvider installedOver;

    static void installedOver(FileSystemProvider builtin) {
        installedOver = builtin;
    }

    /** The built-in provider of the default file system. */
    static FileSystemProvider provider() {
        FileSystemProvider p = installedOver;
        return p != null ? p : FileSystems.getDefault().provider();
    }

    /** Whether {@code p} is a path of the default file system: a built-in one, or one of the provider's. */
    static boolean isDefault(Path p) {
        return p instanceof Wrapped || p.getFileSystem().provider() == provider();
    }

    /** The built-in path behind {@code p}: {@code p} itself when it is one. */
    static Path path(Path p) {
        return p instanceof Wrapped w ? w.builtin() : p;
    }
}
