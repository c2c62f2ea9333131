package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the provider leaves to the built-in one behaves exactly as there: attributes, directory streams (secure
 * ones too), watch services with keys and watchables that keep their identity, links, copy, move, delete, walks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderFileOperationsTest {
    final UringFileSystemProvider provider = new UringFileSystemProvider(FileSystems.getDefault().provider());
    final FileSystem fs = provider.getFileSystem(URI.create("file:///"));

    @TempDir
    Path tmp;
    /** The temporary directory as the provider's path. */
    Path dir;

    @BeforeEach
    void ours() {
        dir = fs.getPath(tmp.toString());
    }

    private void assertOurs(Path p) {
        assertSame(fs, p.getFileSystem(), () -> p + " is not the provider's path");
    }

    @Test
    void attributesAreTheBuiltinOnes() throws Exception {
        Path b = Files.writeString(tmp.resolve("attrs"), "12345");
        Path o = dir.resolve("attrs");
        BasicFileAttributes ba = Files.readAttributes(b, BasicFileAttributes.class);
        BasicFileAttributes oa = Files.readAttributes(o, BasicFileAttributes.class);
        assertEquals(ba.size(), oa.size());
        assertEquals(ba.fileKey(), oa.fileKey());
        assertEquals(ba.lastModifiedTime(), oa.lastModifiedTime());
        assertEquals(ba.isRegularFile(), oa.isRegularFile());
        PosixFileAttributes pa = Files.readAttributes(o, PosixFileAttributes.class);
        assertEquals(Files.getPosixFilePermissions(b), pa.permissions());
        assertEquals(Files.getOwner(b), Files.getOwner(o));
        assertEquals(Files.readAttributes(b, "unix:ino,nlink,mode"), Files.readAttributes(o, "unix:ino,nlink,mode"));
        Files.setLastModifiedTime(o, FileTime.fromMillis(1_000_000_000_000L));
        assertEquals(FileTime.fromMillis(1_000_000_000_000L), Files.getLastModifiedTime(b));
        Files.setPosixFilePermissions(o, PosixFilePermissions.fromString("rw-r-----"));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(b)));
        Files.setAttribute(o, "posix:permissions", PosixFilePermissions.fromString("rw-------"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(b)));
        assertNotNull(Files.getFileAttributeView(o, BasicFileAttributeView.class));
        assertNotNull(Files.getFileAttributeView(o, PosixFileAttributeView.class));
        assertEquals(Files.getFileStore(b).name(), Files.getFileStore(o).name());
        assertEquals(Files.getFileStore(b).type(), Files.getFileStore(o).type());
        assertEquals(Files.size(b), Files.size(o));
        assertTrue(Files.exists(o) && Files.isRegularFile(o) && Files.isReadable(o) && Files.isWritable(o));
        assertFalse(Files.isDirectory(o) || Files.isSymbolicLink(o) || Files.isExecutable(o) || Files.isHidden(o));
        assertTrue(Files.isHidden(dir.resolve(".hidden")));
        assertTrue(Files.notExists(dir.resolve("none")));
        assertTrue(Files.isSameFile(o, b));
        assertEquals(Files.probeContentType(b), Files.probeContentType(o));
        UserDefinedFileAttributeView xattr = Files.getFileAttributeView(o, UserDefinedFileAttributeView.class);
        if (xattr != null && Files.getFileStore(o).supportsFileAttributeView(UserDefinedFileAttributeView.class)) {
            try {
                xattr.write("uring4j", java.nio.ByteBuffer.wrap(new byte[] {1, 2}));
                assertEquals(List.of("uring4j"), Files.getFileAttributeView(b, UserDefinedFileAttributeView.class)
                        .list());
            } catch (IOException e) {
                // the file system takes no user attributes after all (tmpfs without xattr support)
            }
        }
        assertThrows(NoSuchFileException.class, () -> Files.readAttributes(dir.resolve("none"),
                BasicFileAttributes.class));
    }

    @Test
    void directoryStreamsListTheProvidersPathsAndFilterThem() throws Exception {
        for (String n : List.of("a.txt", "b.txt", "c.md")) {
            Files.writeString(tmp.resolve(n), n);
        }
        Files.createDirectory(dir.resolve("sub"));
        List<Path> seen = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, p -> {
            seen.add(p);
            return p.toString().endsWith(".txt");
        })) {
            assertInstanceOf(SecureDirectoryStream.class, ds, "the built-in provider's stream is secure on Linux");
            List<Path> entries = new ArrayList<>();
            ds.forEach(entries::add);
            entries.forEach(this::assertOurs);
            assertEquals(new TreeSet<>(List.of(dir.resolve("a.txt"), dir.resolve("b.txt"))), new TreeSet<>(entries));
        }
        seen.forEach(this::assertOurs);
        assertEquals(4, seen.size());
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.{md,txt}")) {
            List<String> names = new ArrayList<>();
            ds.forEach(p -> names.add(p.getFileName().toString()));
            assertEquals(new TreeSet<>(List.of("a.txt", "b.txt", "c.md")), new TreeSet<>(names));
        }
        try (Stream<Path> list = Files.list(dir)) {
            assertEquals(4, list.peek(this::assertOurs).count());
        }
        assertThrows(java.nio.file.NotDirectoryException.class, () -> Files.newDirectoryStream(dir.resolve("a.txt")));
        DirectoryStream<Path> once = Files.newDirectoryStream(dir);
        once.iterator();
        assertThrows(IllegalStateException.class, once::iterator);
        once.close();
    }

    @Test
    void secureDirectoryStreamsWorkRelativeToTheirDirectory() throws Exception {
        Path sub = Files.createDirectories(dir.resolve("sub/inner"));
        Files.writeString(sub.resolve("f"), "inner file");
        Files.writeString(dir.resolve("sub/g"), "g");
        Files.createDirectory(dir.resolve("other"));
        try (SecureDirectoryStream<Path> top = (SecureDirectoryStream<Path>) Files.newDirectoryStream(dir);
             SecureDirectoryStream<Path> subStream = top.newDirectoryStream(fs.getPath("sub"));
             SecureDirectoryStream<Path> other = top.newDirectoryStream(Path.of("other"))) {
            List<Path> entries = new ArrayList<>();
            subStream.forEach(entries::add);
            entries.forEach(this::assertOurs);
            assertEquals(new TreeSet<>(List.of(dir.resolve("sub/g"), dir.resolve("sub/inner"))),
                    new TreeSet<>(entries));
            try (SecureDirectoryStream<Path> inner = subStream.newDirectoryStream(fs.getPath("inner"));
                 SeekableByteChannel ch = inner.newByteChannel(fs.getPath("f"), java.util.Set.of(
                         StandardOpenOption.READ))) {
                java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64);
                ch.read(buf);
                assertEquals("inner file", new String(buf.array(), 0, buf.position()));
                assertEquals(10, inner.getFileAttributeView(fs.getPath("f"), BasicFileAttributeView.class)
                        .readAttributes().size());
                assertTrue(inner.getFileAttributeView(BasicFileAttributeView.class).readAttributes().isDirectory());
            }
            subStream.move(fs.getPath("g"), other, fs.getPath("moved"));
            assertEquals("g", Files.readString(tmp.resolve("other/moved")));
            other.deleteFile(fs.getPath("moved"));
            assertFalse(Files.exists(tmp.resolve("other/moved")));
            subStream.deleteFile(fs.getPath("inner/f"));
            subStream.deleteDirectory(fs.getPath("inner"));
            assertFalse(Files.exists(tmp.resolve("sub/inner")));
            assertThrows(java.nio.file.ProviderMismatchException.class,
                    () -> subStream.deleteFile(Path.of(URI.create("jrt:/java.base"))));
        }
    }

    @Test
    @SuppressWarnings("unchecked") // a directory's events are about paths
    void watchKeysAndWatchablesKeepTheirIdentity() throws Exception {
        Path watched = Files.createDirectory(dir.resolve("watched"));
        try (WatchService ws = fs.newWatchService()) {
            WatchKey key = watched.register(ws, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_DELETE);
            assertSame(watched, key.watchable());
            assertSame(key, fs.getPath(watched.toString()).register(ws, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_DELETE),
                    "registering the same directory again gives the same key");
            assertSame(watched, key.watchable(), "and keeps the first path");
            Files.writeString(watched.resolve("new"), "x");
            WatchKey signalled = ws.poll(30, TimeUnit.SECONDS);
            assertSame(key, signalled);
            assertSame(watched, signalled.watchable());
            List<WatchEvent<?>> events = signalled.pollEvents();
            assertFalse(events.isEmpty());
            WatchEvent<Path> ev = (WatchEvent<Path>) events.get(0);
            assertSame(StandardWatchEventKinds.ENTRY_CREATE, ev.kind());
            assertOurs(ev.context());
            assertEquals(fs.getPath("new"), ev.context());
            assertEquals(dir.resolve("watched/new"), ((Path) signalled.watchable()).resolve(ev.context()));
            assertTrue(signalled.reset());
            Map<WatchKey, Path> byKey = new java.util.HashMap<>(Map.of(key, watched));
            Files.delete(watched.resolve("new"));
            WatchKey again = ws.take();
            assertSame(watched, byKey.get(again));
            assertSame(StandardWatchEventKinds.ENTRY_DELETE, again.pollEvents().get(0).kind());
            again.reset();
            key.cancel();
            assertFalse(key.isValid());
            assertFalse(again.reset());
        }
    }

    @Test
    void watchServiceOfAnotherFileSystemIsRefusedAsByTheBuiltinPath() throws Exception {
        try (WatchService builtinService = FileSystems.getDefault().newWatchService()) {
            WatchKey k = dir.register(builtinService, StandardWatchEventKinds.ENTRY_CREATE);
            assertEquals(tmp, k.watchable(), "a built-in watch service takes the path as the built-in path");
            assertThrows(NullPointerException.class, () -> dir.register(null, StandardWatchEventKinds.ENTRY_CREATE));
        }
        WatchService ours = fs.newWatchService();
        ours.close();
        {
            assertThrows(java.nio.file.ClosedWatchServiceException.class, ours::poll);
            assertThrows(java.nio.file.ClosedWatchServiceException.class,
                    () -> dir.register(ours, StandardWatchEventKinds.ENTRY_CREATE));
        }
    }

    @Test
    void linksCopiesMovesAndDeletesAreTheBuiltinOnes() throws Exception {
        Path a = Files.writeString(dir.resolve("a"), "alpha");
        Path hard = Files.createLink(dir.resolve("hard"), a);
        assertOurs(hard);
        assertTrue(Files.isSameFile(a, hard));
        assertEquals(2, Files.getAttribute(a, "unix:nlink"));
        Path sym = Files.createSymbolicLink(dir.resolve("sym"), fs.getPath("a"));
        assertTrue(Files.isSymbolicLink(sym));
        assertEquals("alpha", Files.readString(sym));
        assertEquals(fs.getPath("a"), Files.readSymbolicLink(sym));
        assertFalse(Files.exists(dir.resolve("dangling-target"), LinkOption.NOFOLLOW_LINKS));
        Path b = Files.copy(a, dir.resolve("b"));
        assertOurs(b);
        assertEquals("alpha", Files.readString(tmp.resolve("b")));
        assertThrows(FileAlreadyExistsException.class, () -> Files.copy(a, dir.resolve("b")));
        Files.writeString(a, "alpha2");
        Files.copy(a, b, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        assertEquals("alpha2", Files.readString(tmp.resolve("b")));
        assertEquals(Files.getLastModifiedTime(a), Files.getLastModifiedTime(b));
        Path c = Files.move(b, dir.resolve("c"), StandardCopyOption.ATOMIC_MOVE);
        assertOurs(c);
        assertFalse(Files.exists(tmp.resolve("b")));
        assertEquals("alpha2", Files.readString(tmp.resolve("c")));
        Path sub = Files.createDirectories(dir.resolve("x/y/z"));
        assertOurs(sub);
        Files.move(c, sub.resolve("c"));
        assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(dir.resolve("x/y/z")));
        Files.delete(sub.resolve("c"));
        assertTrue(Files.deleteIfExists(sub));
        assertFalse(Files.deleteIfExists(sub));
        assertThrows(NoSuchFileException.class, () -> Files.delete(sub));
        Path t = Files.createTempFile(dir, "pre", ".suf");
        assertOurs(t);
        // (its permissions, rw-------, are given only in the default file system: see the child JVM tests)
        Path td = Files.createTempDirectory(dir, "d");
        assertOurs(td);
        assertTrue(Files.isDirectory(tmp.resolve(td.getFileName().toString())));
    }

    @Test
    void walksFindsAndRecursiveDeletesSeeTheWholeTree() throws Exception {
        for (String f : List.of("r/a/1", "r/a/2", "r/b/c/3", "r/4")) {
            Path p = dir.resolve(f);
            Files.createDirectories(p.getParent());
            Files.writeString(p, f);
        }
        Path root = dir.resolve("r");
        try (Stream<Path> walk = Files.walk(root); Stream<Path> builtinWalk = Files.walk(tmp.resolve("r"))) {
            List<Path> ours = walk.peek(this::assertOurs).toList();
            assertEquals(builtinWalk.map(Path::toString).sorted().toList(), ours.stream().map(Path::toString)
                    .sorted().toList());
        }
        try (Stream<Path> found = Files.find(root, 10, (p, a) -> a.isRegularFile() && p.endsWith("3"))) {
            assertEquals(List.of(dir.resolve("r/b/c/3")), found.collect(Collectors.toList()));
        }
        List<String> visited = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                assertOurs(file);
                visited.add(root.relativize(file).toString());
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
        assertEquals(new TreeSet<>(List.of("a/1", "a/2", "b/c/3", "4")), new TreeSet<>(visited));
        assertFalse(Files.exists(tmp.resolve("r")));
    }

    @Test
    void accessChecksAnswerAsTheBuiltinProvider() throws Exception {
        Path f = Files.writeString(dir.resolve("ro"), "r");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("r--------"));
        Path b = tmp.resolve("ro");
        assertEquals(Files.isWritable(b), Files.isWritable(f));
        provider.checkAccess(f, java.nio.file.AccessMode.READ);
        Assumptions.assumeFalse(Files.isWritable(b), "running as root: every file is writable");
        assertThrows(java.nio.file.AccessDeniedException.class,
                () -> provider.checkAccess(f, java.nio.file.AccessMode.WRITE));
    }

    /**
     * The JDK's own ZIP file system (jdk.zipfs), unchanged, over the provider's paths: a ZIP of 200 entries made,
     * then updated in place and an entry deleted (zipfs writes a new file beside it and moves it over), then reopened:
     * every entry reads back, {@code java.util.zip.ZipFile} (which reads the file itself) agrees, and uring4j's
     * channels did the reading and writing.
     */
    @Test
    void theJdksZipFileSystemWorksOverTheProvidersPaths() throws Exception {
        Path zip = dir.resolve("t.zip");
        assertOurs(zip);
        long channelsBefore = UringFiles.statistics().uringChannels();
        java.util.Random r = new java.util.Random(1);
        Map<String, byte[]> want = new java.util.TreeMap<>();
        try (FileSystem z = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
            for (int i = 0; i < 200; i++) {
                byte[] b = new byte[r.nextInt(100_000)];
                r.nextBytes(b);
                if (i % 3 == 0) {
                    java.util.Arrays.fill(b, (byte) 'x'); // compressed well
                }
                String name = "/d" + (i % 7) + "/f" + i + ".bin";
                Files.createDirectories(z.getPath(name).getParent());
                Files.write(z.getPath(name), b);
                want.put(name, b);
            }
        }
        try (FileSystem z = FileSystems.newFileSystem(zip)) {
            Files.write(z.getPath("/d0/f0.bin"), "changed".getBytes());
            want.put("/d0/f0.bin", "changed".getBytes());
            Files.delete(z.getPath("/d1/f1.bin"));
            want.remove("/d1/f1.bin");
        }
        try (FileSystem z = FileSystems.newFileSystem(zip)) {
            for (Map.Entry<String, byte[]> e : want.entrySet()) {
                assertTrue(java.util.Arrays.equals(e.getValue(), Files.readAllBytes(z.getPath(e.getKey()))),
                        e.getKey());
            }
            try (Stream<Path> all = Files.walk(z.getPath("/"))) {
                assertEquals(want.size(), all.filter(Files::isRegularFile).count());
            }
        }
        try (java.util.zip.ZipFile zf = new java.util.zip.ZipFile(tmp.resolve("t.zip").toFile())) {
            for (Map.Entry<String, byte[]> e : want.entrySet()) {
                java.util.zip.ZipEntry entry = zf.getEntry(e.getKey().substring(1));
                assertNotNull(entry, e.getKey());
                try (java.io.InputStream in = zf.getInputStream(entry)) {
                    assertTrue(java.util.Arrays.equals(e.getValue(), in.readAllBytes()), e.getKey());
                }
            }
        }
        assertTrue(UringFiles.statistics().uringChannels() >= channelsBefore + 3,
                "uring4j's channels opened the ZIP: " + UringFiles.statistics());
    }
}
