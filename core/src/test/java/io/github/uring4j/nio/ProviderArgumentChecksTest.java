package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code null} path and another provider's path get from the provider exactly what they get from the built-in
 * one: {@code NullPointerException} before {@code ProviderMismatchException}, in every method.
 */
class ProviderArgumentChecksTest {
    static final FileSystemProvider BUILTIN = FileSystems.getDefault().provider();
    /** A path of another provider: the JDK's run-time image. */
    static final Path FOREIGN = Path.of(URI.create("jrt:/java.base"));

    final UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN);
    final FileSystem fs = provider.getFileSystem(URI.create("file:///"));

    @TempDir
    Path dir;

    /** One call of a provider's method with {@code arg} in one place and a path to a real file elsewhere. */
    interface Call {
        Object run(FileSystemProvider p, Path arg, Path file) throws Exception;
    }

    static Map<String, Call> calls() {
        Map<String, Call> c = new LinkedHashMap<>();
        c.put("newByteChannel", (p, a, f) -> p.newByteChannel(a, Set.of(StandardOpenOption.READ)));
        c.put("newFileChannel", (p, a, f) -> p.newFileChannel(a, Set.of(StandardOpenOption.READ)));
        c.put("newAsynchronousFileChannel",
                (p, a, f) -> p.newAsynchronousFileChannel(a, Set.of(StandardOpenOption.READ), null));
        c.put("newInputStream", (p, a, f) -> p.newInputStream(a));
        c.put("newOutputStream", (p, a, f) -> p.newOutputStream(a, StandardOpenOption.APPEND));
        c.put("newDirectoryStream", (p, a, f) -> p.newDirectoryStream(a, e -> true));
        c.put("newDirectoryStream null filter", (p, a, f) -> p.newDirectoryStream(a, null));
        c.put("createDirectory", (p, a, f) -> {
            p.createDirectory(a);
            return null;
        });
        c.put("createSymbolicLink link", (p, a, f) -> {
            p.createSymbolicLink(a, f);
            return null;
        });
        c.put("createSymbolicLink target", (p, a, f) -> {
            p.createSymbolicLink(f.resolveSibling("newlink"), a);
            return null;
        });
        c.put("createLink", (p, a, f) -> {
            p.createLink(a, f);
            return null;
        });
        c.put("delete", (p, a, f) -> {
            p.delete(a);
            return null;
        });
        c.put("deleteIfExists", (p, a, f) -> p.deleteIfExists(a));
        c.put("readSymbolicLink", (p, a, f) -> p.readSymbolicLink(a));
        c.put("copy source", (p, a, f) -> {
            p.copy(a, f);
            return null;
        });
        c.put("copy target", (p, a, f) -> {
            p.copy(f, a);
            return null;
        });
        c.put("move source", (p, a, f) -> {
            p.move(a, f);
            return null;
        });
        c.put("move target", (p, a, f) -> {
            p.move(f, a);
            return null;
        });
        c.put("isSameFile first", (p, a, f) -> p.isSameFile(a, f));
        c.put("isSameFile second", (p, a, f) -> p.isSameFile(f, a));
        c.put("isHidden", (p, a, f) -> p.isHidden(a));
        c.put("getFileStore", (p, a, f) -> p.getFileStore(a));
        c.put("checkAccess", (p, a, f) -> {
            p.checkAccess(a);
            return null;
        });
        c.put("getFileAttributeView", (p, a, f) -> p.getFileAttributeView(a, BasicFileAttributeView.class));
        c.put("readAttributes class", (p, a, f) -> p.readAttributes(a, BasicFileAttributes.class));
        c.put("readAttributes string", (p, a, f) -> p.readAttributes(a, "*"));
        c.put("setAttribute", (p, a, f) -> {
            p.setAttribute(a, "lastModifiedTime", FileTime.fromMillis(0));
            return null;
        });
        c.put("exists", (p, a, f) -> p.exists(a));
        c.put("readAttributesIfExists", (p, a, f) -> p.readAttributesIfExists(a, BasicFileAttributes.class));
        return c;
    }

    /** What the call did: the class of what it threw, or "returned". */
    static String outcome(Call call, FileSystemProvider p, Path arg, Path file) {
        try {
            Object r = call.run(p, arg, file);
            if (r instanceof AutoCloseable ac) {
                ac.close();
            }
            return "returned";
        } catch (Exception e) {
            return e.getClass().getName();
        }
    }

    @TestFactory
    Stream<DynamicTest> nullThenForeignPathThrowWhatTheBuiltinProviderThrows() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "content");
        Path ours = fs.getPath(file.toString());
        List<DynamicTest> tests = new ArrayList<>();
        calls().forEach((name, call) -> tests.add(DynamicTest.dynamicTest(name, () -> {
            assertEquals(outcome(call, BUILTIN, null, file), outcome(call, provider, null, ours), "null");
            assertEquals(outcome(call, BUILTIN, FOREIGN, file), outcome(call, provider, FOREIGN, ours),
                    "a jrt path");
            assertEquals("content", Files.readString(file), "the file is untouched");
        })));
        return tests.stream();
    }

    @Test
    void pathMethodsThrowWhatBuiltinPathsThrow() {
        Path b = dir;
        Path o = fs.getPath(dir.toString());
        List<Call> calls = List.of(
                (p, a, f) -> f.resolve(a),
                (p, a, f) -> f.resolve(a, a),
                (p, a, f) -> f.resolveSibling(a),
                (p, a, f) -> f.relativize(a),
                (p, a, f) -> f.startsWith(a),
                (p, a, f) -> f.endsWith(a),
                (p, a, f) -> f.compareTo(a),
                (p, a, f) -> f.register(null));
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            assertEquals(outcome(call, null, null, b), outcome(call, null, null, o), "call " + i + " with null");
            assertEquals(outcome(call, null, FOREIGN, b), outcome(call, null, FOREIGN, o),
                    "call " + i + " with a jrt path");
        }
    }

    /**
     * {@code newOutputStream} with {@code READ} and a {@code null} among its options, in either order: the JDK's
     * {@code IllegalArgumentException} ("READ not allowed") before the {@code NullPointerException} (before: a
     * {@code null} ahead of {@code READ} threw {@code NullPointerException}; found by a hostile probe).
     */
    @Test
    void readInTheOptionsOfAnOutputStreamIsRefusedBeforeANull() throws Exception {
        Path file = Files.writeString(dir.resolve("out"), "x");
        java.nio.file.OpenOption[][] cases = {{null, StandardOpenOption.READ}, {StandardOpenOption.READ, null},
            {null, StandardOpenOption.APPEND}};
        for (java.nio.file.OpenOption[] options : cases) {
            assertEquals(outcome(() -> BUILTIN.newOutputStream(file, options)),
                    outcome(() -> provider.newOutputStream(fs.getPath(file.toString()), options)),
                    java.util.Arrays.toString(options));
        }
    }

    /**
     * {@code UringFiles}' opens of a zip file system's path with a {@code null} option, or a {@code null} set, fail as
     * {@code FileChannel.open} and {@code AsynchronousFileChannel.open} do: the zip provider's answer (it refuses an
     * asynchronous channel with {@code UnsupportedOperationException}), not a {@code NullPointerException} of uring4j's
     * made before the call reached it (found by a hostile probe); on the default file system a {@code null} option is
     * still a {@code NullPointerException}, and a scattering read's {@code null} buffer says which one it is.
     */
    @Test
    void nullOptionsOfAnotherFileSystemsPathAreItsProvidersToRefuse() throws Exception {
        Path zip = dir.resolve("z.zip");
        try (FileSystem z = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
            Path inside = Files.writeString(z.getPath("/f"), "x");
            java.nio.file.OpenOption none = null;
            assertEquals(kind(() -> java.nio.channels.AsynchronousFileChannel.open(inside, none)),
                    kind(() -> UringFiles.newAsynchronousFileChannel(inside, none)));
            Set<java.nio.file.OpenOption> noSet = null;
            assertEquals(kind(() -> java.nio.channels.AsynchronousFileChannel.open(inside, noSet, null)),
                    kind(() -> UringFiles.newAsynchronousFileChannel(inside, noSet, null)));
            assertEquals(kind(() -> java.nio.channels.FileChannel.open(inside, none)),
                    kind(() -> UringFiles.newFileChannel(inside, none)));
            assertEquals("java.lang.UnsupportedOperationException",
                    kind(() -> UringFiles.newAsynchronousFileChannel(inside, none)));
        }
        Path file = Files.writeString(dir.resolve("plain"), "abc");
        java.nio.file.OpenOption none = null;
        assertEquals("java.lang.NullPointerException", kind(() -> UringFiles.newFileChannel(file, none)));
        assertEquals("java.lang.NullPointerException", kind(() -> UringFiles.newAsynchronousFileChannel(file, none)));
        try (java.nio.channels.FileChannel ch = UringFiles.newFileChannel(file, StandardOpenOption.READ)) {
            NullPointerException e = org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class,
                    () -> ch.read(new java.nio.ByteBuffer[] {java.nio.ByteBuffer.allocate(1), null}));
            assertEquals("buffer 1 of the array is null", e.getMessage());
        }
    }

    private static String kind(Conform.Action a) {
        String o = outcome(a);
        return o.equals("ok") ? o : o.substring(0, o.indexOf(':'));
    }

    private static String outcome(Conform.Action a) {
        try {
            Object o = a.run();
            if (o instanceof java.io.Closeable c) {
                c.close();
            }
            return "ok";
        } catch (Throwable t) {
            return t.getClass().getName() + ": " + t.getMessage();
        }
    }
}
