package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The provider's file system and paths, made in this JVM over the built-in provider, answer as the built-in ones. */
class ProviderPathsTest {
    static final FileSystemProvider BUILTIN = FileSystems.getDefault().provider();
    static final FileSystem BUILTIN_FS = FileSystems.getDefault();

    final UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN);
    final FileSystem fs = provider.getFileSystem(URI.create("file:///"));

    @TempDir
    Path dir;

    private void assertOurs(Path p) {
        assertSame(fs, p.getFileSystem(), () -> p + " is not the provider's path");
        assertSame(provider, p.getFileSystem().provider());
        assertInstanceOf(Builtin.Wrapped.class, p);
    }

    /** {@code ours} is the provider's path standing for {@code builtin}. */
    private void assertSamePath(Path builtin, Path ours) {
        if (builtin == null) {
            assertNull(ours);
            return;
        }
        assertOurs(ours);
        assertEquals(builtin, Builtin.path(ours));
        assertEquals(builtin.toString(), ours.toString());
    }

    @Test
    void theSchemeIsFileAndTheFileSystemIsOpenWritableAndUnclosable() throws Exception {
        assertEquals("file", provider.getScheme());
        assertSame(fs, provider.getFileSystem(URI.create("file:///")));
        assertSame(provider, fs.provider());
        assertTrue(fs.isOpen());
        assertFalse(fs.isReadOnly());
        assertEquals("/", fs.getSeparator());
        assertEquals(BUILTIN_FS.supportedFileAttributeViews(), fs.supportedFileAttributeViews());
        assertThrows(UnsupportedOperationException.class, fs::close);
        assertThrows(FileSystemAlreadyExistsException.class,
                () -> provider.newFileSystem(URI.create("file:///"), Map.of()));
        assertThrows(IllegalArgumentException.class, () -> provider.getFileSystem(URI.create("file:///tmp")));
        List<Path> roots = new ArrayList<>();
        fs.getRootDirectories().forEach(roots::add);
        assertEquals(1, roots.size());
        assertSamePath(Path.of("/"), roots.get(0));
        List<String> stores = new ArrayList<>();
        fs.getFileStores().forEach(s -> stores.add(s.name()));
        List<String> builtinStores = new ArrayList<>();
        BUILTIN_FS.getFileStores().forEach(s -> builtinStores.add(s.name()));
        assertEquals(builtinStores, stores);
    }

    @Test
    void everyPathOperationGivesTheBuiltinAnswerAsTheProvidersPath() throws Exception {
        for (String s : List.of("/a/b/../c/./d.txt", "rel/x/y", "", "/", "a", "../up", "/tmp//dup/")) {
            Path b = Path.of(s);
            Path o = fs.getPath(s);
            assertSamePath(b, o);
            assertEquals(b.isAbsolute(), o.isAbsolute());
            assertSamePath(b.getRoot(), o.getRoot());
            assertSamePath(b.getFileName(), o.getFileName());
            assertSamePath(b.getParent(), o.getParent());
            assertEquals(b.getNameCount(), o.getNameCount());
            for (int i = 0; i < b.getNameCount(); i++) {
                assertSamePath(b.getName(i), o.getName(i));
                assertSamePath(b.subpath(i, b.getNameCount()), o.subpath(i, o.getNameCount()));
            }
            List<Path> names = new ArrayList<>();
            o.iterator().forEachRemaining(names::add);
            assertEquals(b.getNameCount(), names.size());
            names.forEach(this::assertOurs);
            assertSamePath(b.normalize(), o.normalize());
            assertSamePath(b.toAbsolutePath(), o.toAbsolutePath());
            assertEquals(b.toUri(), o.toUri());
            assertSamePath(b.resolve("q"), o.resolve("q"));
            assertSamePath(b.resolve(Path.of("q/r")), o.resolve(fs.getPath("q/r")));
            assertSamePath(b.resolve(Path.of("/abs")), o.resolve(fs.getPath("/abs")));
            assertSamePath(b.resolve("q", "r", "s"), o.resolve("q", "r", "s"));
            assertSamePath(b.resolve(Path.of("q"), Path.of("r")), o.resolve(fs.getPath("q"), fs.getPath("r")));
            assertSamePath(b.resolveSibling("sib"), o.resolveSibling("sib"));
            assertSamePath(b.resolveSibling(Path.of("sib")), o.resolveSibling(fs.getPath("sib")));
            assertEquals(b.startsWith("/a"), o.startsWith("/a"));
            assertEquals(b.endsWith("d.txt"), o.endsWith("d.txt"));
            assertEquals(b.hashCode(), o.hashCode());
            assertEquals(fs.getPath(s), o);
            assertEquals(0, o.compareTo(fs.getPath(s)));
            assertEquals(Integer.signum(b.compareTo(Path.of("/m"))), Integer.signum(o.compareTo(fs.getPath("/m"))));
        }
        Path base = fs.getPath("/a/b");
        assertSamePath(Path.of("/a/b").relativize(Path.of("/a/c/d")), base.relativize(fs.getPath("/a/c/d")));
        assertTrue(fs.getPath("/a/b/c").startsWith(base));
        assertTrue(fs.getPath("/x/a/b").endsWith(fs.getPath("a/b")));
        assertFalse(base.startsWith(Path.of(URI.create("jrt:/java.base"))), "another provider's path");
    }

    @Test
    void builtinPathsMadeBeforeInstallationAreTakenAsArguments() throws Exception {
        Path base = fs.getPath("/a/b");
        assertSamePath(Path.of("/a/b/c"), base.resolve(Path.of("c")));
        assertSamePath(Path.of("c/d"), base.relativize(Path.of("/a/b/c/d")));
        assertTrue(fs.getPath("/a/b/c").startsWith(Path.of("/a")));
        assertEquals(0, base.compareTo(Path.of("/a/b")));
        assertNotEquals(base, Path.of("/a/b"), "equal only to paths of its own file system");
        Path file = Files.writeString(dir.resolve("f"), "x");
        assertTrue(provider.isSameFile(fs.getPath(file.toString()), file));
        assertEquals(1, provider.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).size());
        try (var in = provider.newInputStream(file)) {
            assertEquals('x', in.read());
        }
    }

    @Test
    void toRealPathAndSymbolicLinksAreTheProvidersPaths() throws Exception {
        Path target = Files.writeString(dir.resolve("target"), "t");
        Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("target"));
        Path ourLink = fs.getPath(link.toString());
        assertSamePath(link.toRealPath(), ourLink.toRealPath());
        assertSamePath(target.toRealPath(), ourLink.toRealPath());
        assertSamePath(Files.readSymbolicLink(link), Files.readSymbolicLink(ourLink));
        assertSamePath(link.toRealPath(java.nio.file.LinkOption.NOFOLLOW_LINKS),
                ourLink.toRealPath(java.nio.file.LinkOption.NOFOLLOW_LINKS));
        Path ourLink2 = Files.createSymbolicLink(fs.getPath(dir.toString(), "link2"), fs.getPath("target"));
        assertOurs(ourLink2);
        assertEquals(Path.of("target"), Files.readSymbolicLink(link.resolveSibling("link2")));
    }

    @Test
    void toFileAndBackNamesTheSameFile() throws Exception {
        Path p = fs.getPath(dir.toString(), "some", "file.txt");
        File f = p.toFile();
        assertEquals(new File(dir.toFile(), "some/file.txt"), f);
        assertEquals(p, fs.getPath(f.getPath()));
        assertSamePath(f.toPath(), fs.getPath(f.getPath()));
        assertSamePath(Path.of(p.toUri()), provider.getPath(p.toUri()));
        assertEquals(p, provider.getPath(p.toUri()));
    }

    @Test
    void pathMatchersMatchTheProvidersPaths() {
        PathMatcher glob = fs.getPathMatcher("glob:**/*.{txt,md}");
        assertTrue(glob.matches(fs.getPath("/a/b/c.txt")));
        assertTrue(glob.matches(Path.of("/a/b/c.md")));
        assertFalse(glob.matches(fs.getPath("/a/b/c.java")));
        PathMatcher regex = fs.getPathMatcher("regex:.*\\.java");
        assertTrue(regex.matches(fs.getPath("X.java")));
        assertThrows(UnsupportedOperationException.class, () -> fs.getPathMatcher("nope:x"));
        assertThrows(IllegalArgumentException.class, () -> fs.getPathMatcher("x"));
    }

    @Test
    void theNoArgumentConstructorWrapsTheDefaultProvider() throws Exception {
        UringFileSystemProvider other = new UringFileSystemProvider();
        Path p = other.getPath(URI.create("file:///tmp"));
        assertEquals("/tmp", p.toString());
        UringFileSystemProvider over = new UringFileSystemProvider(provider);
        Path q = over.getFileSystem(URI.create("file:///")).getPath("/tmp");
        assertSame(BUILTIN_FS, Builtin.path(q).getFileSystem(), "a provider over a provider wraps the built-in one");
        assertThrows(IllegalArgumentException.class,
                () -> new UringFileSystemProvider(Path.of(URI.create("jrt:/")).getFileSystem().provider()));
    }
}
