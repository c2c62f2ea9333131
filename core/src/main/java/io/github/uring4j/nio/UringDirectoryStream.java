package io.github.uring4j.nio;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.util.Iterator;
import java.util.Set;

/**
 * The built-in directory stream with this file system's paths as its entries (and in its filter). A
 * {@link SecureDirectoryStream} stays one: see {@link Secure}.
 */
class UringDirectoryStream implements DirectoryStream<Path> {
    final UringFileSystem fs;
    final DirectoryStream<Path> builtin;

    UringDirectoryStream(UringFileSystem fs, DirectoryStream<Path> builtin) {
        this.fs = fs;
        this.builtin = builtin;
    }

    static DirectoryStream<Path> of(UringFileSystem fs, DirectoryStream<Path> builtin) {
        return builtin instanceof SecureDirectoryStream<Path> s ? new Secure(fs, s)
                : new UringDirectoryStream(fs, builtin);
    }

    /** {@code filter} for the built-in stream: it sees the entries as this file system's paths. */
    static DirectoryStream.Filter<Path> filter(UringFileSystem fs, DirectoryStream.Filter<? super Path> filter) {
        if (filter == null) {
            return null;
        }
        return entry -> filter.accept(fs.wrap(entry));
    }

    @Override
    public Iterator<Path> iterator() {
        Iterator<Path> it = builtin.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Path next() {
                return fs.wrap(it.next());
            }

            @Override
            public void remove() {
                it.remove();
            }
        };
    }

    @Override
    public void close() throws IOException {
        builtin.close();
    }

    /**
     * The built-in {@code SecureDirectoryStream}: operations relative to the open directory stay on the built-in
     * provider (they name files relative to the directory's descriptor, which {@link UringFiles} does not take), so
     * {@code newByteChannel} here gives the JDK's own channel.
     */
    static final class Secure extends UringDirectoryStream implements SecureDirectoryStream<Path> {
        private final SecureDirectoryStream<Path> secure;

        Secure(UringFileSystem fs, SecureDirectoryStream<Path> builtin) {
            super(fs, builtin);
            this.secure = builtin;
        }

        @Override
        public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options) throws IOException {
            return new Secure(fs, secure.newDirectoryStream(Builtin.path(path), options));
        }

        @Override
        public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options,
                FileAttribute<?>... attrs) throws IOException {
            return secure.newByteChannel(Builtin.path(path), options, attrs);
        }

        @Override
        public void deleteFile(Path path) throws IOException {
            secure.deleteFile(Builtin.path(path));
        }

        @Override
        public void deleteDirectory(Path path) throws IOException {
            secure.deleteDirectory(Builtin.path(path));
        }

        @Override
        public void move(Path srcpath, SecureDirectoryStream<Path> targetdir, Path targetpath) throws IOException {
            SecureDirectoryStream<Path> target = targetdir instanceof Secure s ? s.secure : targetdir;
            secure.move(Builtin.path(srcpath), target, Builtin.path(targetpath));
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
            return secure.getFileAttributeView(type);
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type,
                LinkOption... options) {
            return secure.getFileAttributeView(Builtin.path(path), type, options);
        }
    }
}
