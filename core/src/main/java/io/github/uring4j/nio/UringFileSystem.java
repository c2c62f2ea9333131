package io.github.uring4j.nio;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The default file system seen through {@link UringFileSystemProvider}: the built-in one, except that its paths
 * and watch services are this provider's, so that the JDK's {@code Files} and channels come back to it.
 */
final class UringFileSystem extends FileSystem {
    private final UringFileSystemProvider provider;
    private final FileSystem builtin;

    UringFileSystem(UringFileSystemProvider provider, FileSystem builtin) {
        this.provider = provider;
        this.builtin = builtin;
    }

    FileSystem builtin() {
        return builtin;
    }

    /** {@code p} as a path of this file system ({@code null} stays {@code null}). */
    Path wrap(Path p) {
        if (p == null || p instanceof UringPath u && u.getFileSystem() == this) {
            return p;
        }
        return new UringPath(this, Builtin.path(p));
    }

    @Override
    public UringFileSystemProvider provider() {
        return provider;
    }

    /** As the built-in file system's: the default file system cannot be closed. */
    @Override
    public void close() throws IOException {
        builtin.close();
    }

    @Override
    public boolean isOpen() {
        return builtin.isOpen();
    }

    @Override
    public boolean isReadOnly() {
        return builtin.isReadOnly();
    }

    @Override
    public String getSeparator() {
        return builtin.getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        List<Path> roots = new ArrayList<>();
        for (Path root : builtin.getRootDirectories()) {
            roots.add(wrap(root));
        }
        return roots;
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return builtin.getFileStores();
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return builtin.supportedFileAttributeViews();
    }

    @Override
    public Path getPath(String first, String... more) {
        return wrap(builtin.getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        PathMatcher matcher = builtin.getPathMatcher(syntaxAndPattern);
        return path -> matcher.matches(Builtin.path(path));
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return builtin.getUserPrincipalLookupService();
    }

    @Override
    public WatchService newWatchService() throws IOException {
        return new UringWatchService(this, builtin.newWatchService());
    }
}
