package io.github.uring4j.nio;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;

/**
 * A path of {@link UringFileSystem}: the built-in path it stands for, answering every question as that path does,
 * with every path it returns its own again. Arguments may be this file system's paths or built-in ones (those made
 * before the provider was installed); anything else goes to the built-in path as it is, which throws what the JDK
 * throws for it ({@code NullPointerException}, then {@code ProviderMismatchException}).
 */
final class UringPath implements Path, Builtin.Wrapped {
    private final UringFileSystem fs;
    private final Path builtin;

    UringPath(UringFileSystem fs, Path builtin) {
        this.fs = fs;
        this.builtin = builtin;
    }

    @Override
    public Path builtin() {
        return builtin;
    }

    private Path wrap(Path p) {
        return fs.wrap(p);
    }

    private static Path unwrap(Path p) {
        return Builtin.path(p);
    }

    @Override
    public UringFileSystem getFileSystem() {
        return fs;
    }

    @Override
    public boolean isAbsolute() {
        return builtin.isAbsolute();
    }

    @Override
    public Path getRoot() {
        return wrap(builtin.getRoot());
    }

    @Override
    public Path getFileName() {
        return wrap(builtin.getFileName());
    }

    @Override
    public Path getParent() {
        return wrap(builtin.getParent());
    }

    @Override
    public int getNameCount() {
        return builtin.getNameCount();
    }

    @Override
    public Path getName(int index) {
        return wrap(builtin.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
        return wrap(builtin.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
        return builtin.startsWith(unwrap(other));
    }

    @Override
    public boolean startsWith(String other) {
        return builtin.startsWith(other);
    }

    @Override
    public boolean endsWith(Path other) {
        return builtin.endsWith(unwrap(other));
    }

    @Override
    public boolean endsWith(String other) {
        return builtin.endsWith(other);
    }

    @Override
    public Path normalize() {
        return wrap(builtin.normalize());
    }

    @Override
    public Path resolve(Path other) {
        return wrap(builtin.resolve(unwrap(other)));
    }

    @Override
    public Path resolve(String other) {
        return wrap(builtin.resolve(other));
    }

    @Override
    public Path resolve(Path first, Path... more) {
        Path[] rest = new Path[more.length];
        for (int i = 0; i < more.length; i++) {
            rest[i] = unwrap(more[i]);
        }
        return wrap(builtin.resolve(unwrap(first), rest));
    }

    @Override
    public Path resolve(String first, String... more) {
        return wrap(builtin.resolve(first, more));
    }

    @Override
    public Path resolveSibling(Path other) {
        return wrap(builtin.resolveSibling(unwrap(other)));
    }

    @Override
    public Path resolveSibling(String other) {
        return wrap(builtin.resolveSibling(other));
    }

    @Override
    public Path relativize(Path other) {
        return wrap(builtin.relativize(unwrap(other)));
    }

    @Override
    public URI toUri() {
        return builtin.toUri();
    }

    @Override
    public Path toAbsolutePath() {
        return wrap(builtin.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
        return wrap(builtin.toRealPath(options));
    }

    /**
     * The {@code File} of this path, as {@code Path.toFile()} gives for the default file system: also when this
     * provider was made by hand and not installed, since the file it names is the same.
     */
    @Override
    public File toFile() {
        return new File(toString());
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers)
            throws IOException {
        if (watcher instanceof UringWatchService w) {
            return w.register(this, events, modifiers);
        }
        return builtin.register(watcher, events, modifiers);
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>... events) throws IOException {
        return register(watcher, events, new WatchEvent.Modifier[0]);
    }

    /** As the built-in path's: a path of another provider is a {@code ClassCastException}. */
    @Override
    public int compareTo(Path other) {
        return builtin.compareTo(unwrap(other));
    }

    /** Equal to a path of the same file system that stands for an equal built-in path. */
    @Override
    public boolean equals(Object other) {
        return other instanceof UringPath p && p.fs == fs && builtin.equals(p.builtin);
    }

    @Override
    public int hashCode() {
        return builtin.hashCode();
    }

    @Override
    public String toString() {
        return builtin.toString();
    }
}
