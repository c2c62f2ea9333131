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

    /** The built-in path behind {@code p}: {@code p} itself when it is one. */
    static Path path(Path p) {
        return p instanceof Wrapped w ? w.builtin() : p;
    }
}
