package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code Files} method the provider routes to {@link UringFiles} gives the bytes and results the built-in
 * provider gives, and the files it writes are the files the built-in provider writes: the same call runs once on a
 * built-in path and once on the provider's, each in a directory of its own, and what each returns or throws, and
 * what each leaves on disk, is compared.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderRoutedFilesTest {
    final UringFileSystemProvider provider = new UringFileSystemProvider(FileSystems.getDefault().provider());
    final FileSystem fs = provider.getFileSystem(URI.create("file:///"));

    @TempDir
    Path tmp;
    Path builtinDir;
    Path ourDir;

    @BeforeEach
    void dirs() throws Exception {
        builtinDir = Files.createDirectory(tmp.resolve("builtin"));
        ourDir = fs.getPath(Files.createDirectory(tmp.resolve("ours")).toString());
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed + (i >>> 9));
        }
        return b;
    }

    /** An operation on a directory whose outcome (value, or the class and message of what it threw) is compared. */
    interface Op {
        Object run(Path dir) throws Exception;
    }

    String outcome(Op op, Path dir) {
        return relative(rawOutcome(op, dir));
    }

    /** {@code s} with either directory written as DIR. */
    private String relative(String s) {
        return s.replace(tmp.resolve("builtin").toString(), "DIR").replace(tmp.resolve("ours").toString(), "DIR");
    }

    private static String rawOutcome(Op op, Path dir) {
        try {
            Object r = op.run(dir);
            if (r instanceof AutoCloseable c) {
                c.close();
                return "opened a " + (r instanceof FileChannel ? "FileChannel" : r instanceof InputStream
                        ? "InputStream" : r instanceof OutputStream ? "OutputStream" : c.getClass().getName());
            }
            return r instanceof byte[] b ? "bytes " + java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(b)) + " " + b.length
                    : String.valueOf(r);
        } catch (Exception e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    /** Runs {@code op} on both providers, asserts the same outcome and the same files left behind; returns it. */
    String same(Op op) throws Exception {
        String expected = outcome(op, builtinDir);
        String actual = outcome(op, ourDir);
        assertEquals(expected, actual);
        assertEquals(snapshot(builtinDir), snapshot(tmp.resolve("ours")), "the files left behind");
        return actual;
    }

    static List<String> snapshot(Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted().toList()) {
                String name = dir.relativize(p).toString();
                if (Files.isRegularFile(p)) {
                    out.add(name + " " + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)) + " "
                            + java.util.Arrays.hashCode(Files.readAllBytes(p)) + " " + Files.size(p));
                } else {
                    out.add(name + "/");
                }
            }
        }
        return out;
    }

    @Test
    void writeAndReadWholeFiles() throws Exception {
        byte[] big = pattern(3 * 1024 * 1024 + 17, 5);
        assertTrue(same(d -> Files.readAllBytes(Files.write(d.resolve("big"), big))).startsWith("bytes "));
        same(d -> Files.readAllBytes(d.resolve("big")));
        same(d -> Files.readAllBytes(Files.write(d.resolve("empty"), new byte[0])));
        same(d -> Files.readString(Files.writeString(d.resolve("s"), "grüße, ring\n", StandardCharsets.UTF_8)));
        same(d -> Files.readString(Files.writeString(d.resolve("latin"), "grüße", StandardCharsets.ISO_8859_1),
                StandardCharsets.ISO_8859_1));
        same(d -> Files.readString(d.resolve("latin"))); // malformed UTF-8
        same(d -> Files.writeString(d.resolve("unmappable"), "\u20ac", StandardCharsets.US_ASCII));
        same(d -> Files.write(d.resolve("s"), "appended".getBytes(), StandardOpenOption.APPEND));
        same(d -> Files.readString(d.resolve("s")));
        same(d -> Files.write(d.resolve("s"), "x".getBytes(), StandardOpenOption.CREATE_NEW));
        same(d -> Files.write(d.resolve("s"), "new".getBytes()));
        same(d -> Files.readAllBytes(d.resolve("missing")));
        same(d -> Files.readAllBytes(d));
        same(d -> Files.write(d.resolve("missing/dir/f"), big));
        same(d -> Files.mismatch(d.resolve("big"), Files.write(d.resolve("big2"), pattern(big.length, 6))));
        same(d -> Files.mismatch(d.resolve("big"), d.resolve("big")));
        same(d -> Files.size(d.resolve("big")));
    }

    @Test
    void linesReadersAndWriters() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            lines.add("line " + i + " " + "x".repeat(i % 97));
        }
        same(d -> Files.write(d.resolve("lines"), lines));
        same(d -> Files.readAllLines(d.resolve("lines")));
        same(d -> {
            try (Stream<String> s = Files.lines(d.resolve("lines"))) {
                return s.toList();
            }
        });
        same(d -> {
            try (Stream<String> s = Files.lines(d.resolve("lines"))) {
                return s.parallel().filter(l -> l.endsWith("x")).count();
            }
        });
        same(d -> {
            try (BufferedWriter w = Files.newBufferedWriter(d.resolve("w"), StandardCharsets.UTF_16,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                for (String l : lines) {
                    w.write(l);
                    w.newLine();
                }
            }
            try (BufferedReader r = Files.newBufferedReader(d.resolve("w"), StandardCharsets.UTF_16)) {
                return r.lines().toList();
            }
        });
        same(d -> Files.writeString(d.resolve("w"), "more", StandardCharsets.UTF_16, StandardOpenOption.APPEND));
        same(d -> Files.readString(d.resolve("w"), StandardCharsets.UTF_16));
    }

    @Test
    void streamOptionsAreCheckedAsByTheJdk() throws Exception {
        Files.writeString(builtinDir.resolve("f"), "abc");
        Files.writeString(tmp.resolve("ours/f"), "abc");
        same(d -> Files.newInputStream(d.resolve("f"), StandardOpenOption.WRITE));
        same(d -> Files.newInputStream(d.resolve("f"), StandardOpenOption.APPEND));
        same(d -> Files.newOutputStream(d.resolve("f"), StandardOpenOption.READ));
        same(d -> Files.newOutputStream(d.resolve("f"), StandardOpenOption.APPEND, StandardOpenOption.TRUNCATE_EXISTING));
        same(d -> Files.newOutputStream(d.resolve("f"), StandardOpenOption.CREATE_NEW));
        same(d -> Files.newOutputStream(d.resolve("nothere"), StandardOpenOption.WRITE));
        same(d -> Files.newOutputStream(d));
        same(d -> {
            try (InputStream in = Files.newInputStream(d.resolve("f"), StandardOpenOption.READ,
                    StandardOpenOption.CREATE, StandardOpenOption.DSYNC)) {
                return new String(in.readAllBytes());
            }
        });
        same(d -> {
            try (OutputStream out = Files.newOutputStream(d.resolve("f"), StandardOpenOption.APPEND)) {
                out.write('d');
                out.write("efg".getBytes(), 1, 2);
                out.write(new byte[0]);
            }
            return Files.readString(d.resolve("f"));
        });
        same(d -> {
            try (OutputStream out = Files.newOutputStream(d.resolve("f"))) {
                out.write("truncated".getBytes());
            }
            return Files.readString(d.resolve("f"));
        });
        same(d -> {
            try (OutputStream out = Files.newOutputStream(d.resolve("f"), StandardOpenOption.DELETE_ON_CLOSE,
                    StandardOpenOption.CREATE_NEW)) {
                out.write(1);
            }
            return "refused";
        });
        same(d -> {
            try (OutputStream out = Files.newOutputStream(d.resolve("tmp"), StandardOpenOption.DELETE_ON_CLOSE,
                    StandardOpenOption.CREATE_NEW)) {
                out.write(1);
                return Files.exists(d.resolve("tmp"));
            }
        });
        same(d -> Files.exists(d.resolve("tmp")));
        same(d -> {
            OutputStream out = Files.newOutputStream(d.resolve("closed"));
            out.close();
            out.close();
            out.write(1);
            return "written after close";
        });
    }

    @Test
    void streamsOfADirectoryAndOfALinkToOneWithDeleteOnCloseAsTheJdks() throws Exception {
        for (Path d : List.of(builtinDir, tmp.resolve("ours"))) {
            Files.createSymbolicLink(d.resolve("link"), Files.createDirectory(d.resolve("dir")));
        }
        // CREATE_NEW, which a stream ignores, makes the JDK follow the link that DELETE_ON_CLOSE would not: it opens
        // the directory, unlinks the link and gives its stream (ours unlinked it, then asked the JDK to open it again)
        same(d -> {
            try (InputStream in = Files.newInputStream(d.resolve("link"), StandardOpenOption.DELETE_ON_CLOSE,
                    StandardOpenOption.CREATE_NEW)) {
                return in.available() + " " + Files.exists(d.resolve("link"), java.nio.file.LinkOption.NOFOLLOW_LINKS);
            }
        });
        same(d -> Files.newInputStream(d.resolve("dir"), StandardOpenOption.DELETE_ON_CLOSE).read());
        same(d -> Files.newInputStream(d.resolve("dir"), StandardOpenOption.DELETE_ON_CLOSE));
        same(d -> {
            Files.createSymbolicLink(d.resolve("link2"), d.resolve("dir"));
            return Files.newInputStream(d.resolve("link2"), StandardOpenOption.DELETE_ON_CLOSE);
        });
    }

    @Test
    void inputStreamsSkipSeekAndTransferAsTheJdksStream() throws Exception {
        byte[] data = pattern(100_000, 3);
        Files.write(builtinDir.resolve("d"), data);
        Files.write(tmp.resolve("ours/d"), data);
        same(d -> {
            try (InputStream in = Files.newInputStream(d.resolve("d"))) {
                List<Object> r = new ArrayList<>();
                r.add(in.available());
                r.add(in.read());
                r.add(in.skip(1000));
                r.add(in.available());
                r.add(in.skip(-500));
                r.add(in.skip(-1_000_000));
                r.add(in.read(new byte[10], 3, 0));
                r.add(java.util.Arrays.hashCode(in.readNBytes(4096)));
                r.add(in.skip(Long.MAX_VALUE));
                r.add(in.available());
                r.add(in.read());
                r.add(in.readAllBytes().length);
                r.add(in.readNBytes(10).length);
                r.add(in.skip(-10));
                r.add(java.util.Arrays.hashCode(in.readAllBytes()));
                r.add(in.markSupported());
                return r;
            }
        });
        same(d -> {
            try (InputStream in = Files.newInputStream(d.resolve("d"))) {
                in.skip(99_000);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                long n = in.transferTo(out);
                return n + " " + java.util.Arrays.hashCode(out.toByteArray()) + " " + in.read();
            }
        });
        same(d -> {
            try (InputStream in = Files.newInputStream(d.resolve("d"));
                 OutputStream out = Files.newOutputStream(d.resolve("copy"))) {
                in.skip(7);
                out.write(new byte[] {9, 9});
                long n = in.transferTo(out);
                return n + " " + in.read() + " " + in.available();
            }
        });
        same(d -> Files.readAllBytes(d.resolve("copy")));
        same(d -> {
            InputStream in = Files.newInputStream(d.resolve("d"));
            in.close();
            in.close();
            return in.read(new byte[1]);
        });
        same(d -> {
            InputStream in = Files.newInputStream(d.resolve("d"));
            in.close();
            return in.available();
        });
        same(d -> {
            InputStream in = Files.newInputStream(d.resolve("d"));
            in.close();
            return in.skip(3);
        });
        same(d -> {
            try (InputStream in = Files.newInputStream(d.resolve("d"))) {
                return in.readNBytes(-1);
            }
        });
        same(d -> Files.copy(d.resolve("d"), new ByteArrayOutputStream()));
        same(d -> Files.copy(new ByteArrayInputStream(data), d.resolve("fromStream")));
        same(d -> Files.copy(new ByteArrayInputStream(data), d.resolve("fromStream")));
        same(d -> Files.readAllBytes(d.resolve("fromStream")));
    }

    @Test
    void readingAGrowingFileReadsToItsEnd() throws Exception {
        same(d -> {
            Path f = Files.write(d.resolve("grow"), pattern(5000, 1));
            try (InputStream in = Files.newInputStream(f);
                 OutputStream append = Files.newOutputStream(f, StandardOpenOption.APPEND)) {
                in.read(new byte[100]);
                append.write(pattern(70_000, 2));
                return in.available() + " " + java.util.Arrays.hashCode(in.readAllBytes());
            }
        });
    }

    /**
     * The provider tells a stream's channel the size it saw just before the open, so that a read ending there needs
     * no second call to find the end: what was appended or cut off after that look, and a skip before the first
     * read, must still read as on the JDK.
     */
    @Test
    void aStreamReadsWhatTheFileHoldsWhenItChangedAfterTheOpen() throws Exception {
        same(d -> {
            Path f = Files.write(d.resolve("grown"), pattern(3000, 4));
            try (InputStream in = Files.newInputStream(f);
                 OutputStream append = Files.newOutputStream(f, StandardOpenOption.APPEND)) {
                append.write(pattern(5000, 5));
                byte[] b = new byte[3000];
                return in.read(b) + " " + java.util.Arrays.hashCode(b) + " "
                        + java.util.Arrays.hashCode(in.readAllBytes()) + " " + in.read();
            }
        });
        same(d -> {
            Path f = Files.write(d.resolve("grownWhole"), pattern(3000, 6));
            try (InputStream in = Files.newInputStream(f);
                 OutputStream append = Files.newOutputStream(f, StandardOpenOption.APPEND)) {
                append.write(pattern(2000, 7));
                byte[] b = new byte[8192];
                int n = in.readNBytes(b, 0, b.length);
                return n + " " + java.util.Arrays.hashCode(java.util.Arrays.copyOf(b, n)) + " " + in.read();
            }
        });
        same(d -> {
            Path f = Files.write(d.resolve("cut"), pattern(10_000, 8));
            try (InputStream in = Files.newInputStream(f);
                 FileChannel cut = FileChannel.open(f, StandardOpenOption.WRITE)) {
                cut.truncate(2500);
                return java.util.Arrays.hashCode(in.readAllBytes()) + " " + in.read();
            }
        });
        same(d -> {
            Path f = Files.write(d.resolve("skipped"), pattern(3000, 9));
            try (InputStream in = Files.newInputStream(f)) {
                long skipped = in.skip(1000);
                byte[] b = new byte[8192];
                int n = in.read(b);
                return skipped + " " + n + " " + java.util.Arrays.hashCode(java.util.Arrays.copyOf(b, n)) + " "
                        + in.read(b);
            }
        });
    }

    /** Streams of a directory and of a device answer every call as the JDK's streams do. */
    @Test
    void streamsOfADirectoryAndADeviceAnswerAsTheJdks() throws Exception {
        same(d -> {
            Path dir = Files.createDirectory(d.resolve("dir"));
            List<String> r = new ArrayList<>();
            try (InputStream in = Files.newInputStream(dir)) {
                r.add(String.valueOf(in.available()));
                r.add(rawOutcome(x -> in.read(), d));
                r.add(rawOutcome(x -> in.readAllBytes(), d));
                r.add(rawOutcome(x -> in.skip(10), d));
            }
            return r;
        });
        same(d -> {
            List<Object> r = new ArrayList<>();
            try (InputStream in = Files.newInputStream(d.getFileSystem().getPath("/dev/zero"))) {
                r.add(in.read(new byte[100]));
                r.add(in.available());
                r.add(in.skip(1000));
                r.add(in.readNBytes(5000).length);
            }
            return r;
        });
    }

    /** Bad arguments and calls after a close, on the streams of both providers: the same answers and words. */
    @Test
    void streamsAnswerBadArgumentsAndCallsAfterACloseAsTheJdksDo() throws Exception {
        same(d -> {
            Path f = Files.write(d.resolve("f"), pattern(10, 3));
            List<String> r = new ArrayList<>();
            List<Op> ways = List.of(
                    x -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            return in.read(null, 0, 1);
                        }
                    }, x -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            return in.read(new byte[4], 3, 2);
                        }
                    }, x -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            return in.read(new byte[4], 4, 0) + " " + in.readNBytes(-1).length;
                        }
                    }, x -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            return in.transferTo(null);
                        }
                    }, x -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            in.skipNBytes(100);
                            return "skipped";
                        }
                    }, x -> {
                        try (InputStream in = Files.newInputStream(f)) {
                            in.mark(1);
                            return in.markSupported() + " " + rawOutcome(y -> {
                                in.reset();
                                return "reset";
                            }, x);
                        }
                    }, x -> {
                        InputStream in = Files.newInputStream(f);
                        in.close();
                        in.close();
                        return rawOutcome(y -> in.read(), x) + ", " + rawOutcome(y -> in.available(), x) + ", "
                                + rawOutcome(y -> in.skip(1), x) + ", " + rawOutcome(y -> in.readAllBytes(), x);
                    }, x -> {
                        try (OutputStream o = Files.newOutputStream(x.resolve("o"))) {
                            o.write(null, 0, 1);
                            return "wrote";
                        }
                    }, x -> {
                        try (OutputStream o = Files.newOutputStream(x.resolve("o"))) {
                            o.write(new byte[4], 3, 2);
                            return "wrote";
                        }
                    }, x -> {
                        OutputStream o = Files.newOutputStream(x.resolve("o"));
                        o.close();
                        o.close();
                        return rawOutcome(y -> {
                            o.flush();
                            return "flushed";
                        }, x) + ", " + rawOutcome(y -> {
                            o.write(1);
                            return "wrote";
                        }, x);
                    });
            for (Op way : ways) {
                r.add(rawOutcome(way, d));
            }
            return r;
        });
    }

    /** A file larger than an array can hold: the JDK's OutOfMemoryError and its words, with nothing read. */
    @Test
    void aFileLargerThanAnArrayFailsAsTheJdksDoes() throws Exception {
        same(d -> {
            Path big = d.resolve("sparse");
            try (FileChannel ch = FileChannel.open(big, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ch.truncate(0).write(ByteBuffer.wrap(new byte[] {1}), (3L << 30) - 1); // 3 GiB, one block on disk
            }
            List<String> r = new ArrayList<>();
            List<Op> ways = List.of(x -> Files.readAllBytes(big), x -> Files.readString(big), x -> {
                try (InputStream in = Files.newInputStream(big)) {
                    return in.readAllBytes();
                }
            }, x -> {
                try (InputStream in = Files.newInputStream(big)) {
                    in.skipNBytes(10);
                    return in.readAllBytes();
                }
            });
            for (Op way : ways) {
                try {
                    way.run(d);
                    r.add("read it all");
                } catch (OutOfMemoryError e) {
                    r.add(e.getClass().getName() + ": " + e.getMessage());
                }
            }
            Files.delete(big);
            return r;
        });
    }

    /**
     * A stream of a small file in the page cache reads it with as many read calls as the JDK's stream makes (one
     * for the bytes, one that finds the end), counted by the kernel for this thread ({@code syscr} of
     * {@code /proc/thread-self/io}; reading that file counts the same for both).
     */
    @Test
    void aStreamOfASmallCachedFileMakesNoMoreReadCallsThanTheJdksStream() throws Exception {
        byte[] data = pattern(3000, 10);
        Path builtinFile = Files.write(builtinDir.resolve("small"), data);
        Path ourFile = ourDir.resolve("small");
        Files.write(ourFile, data);
        long jdk = Long.MAX_VALUE;
        long ours = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) { // the least of five: the first rounds load and link code
            jdk = Math.min(jdk, readCallsToReadWhole(builtinFile, data));
            ours = Math.min(ours, readCallsToReadWhole(ourFile, data));
        }
        assertTrue(ours <= jdk, "read calls for a 3,000-byte file: ours " + ours + ", the JDK's " + jdk);
    }

    private static long readCallsToReadWhole(Path file, byte[] expected) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = new byte[8192];
            long before = readCalls();
            int n = in.read(b);
            int end = in.read(b);
            long calls = readCalls() - before;
            assertEquals(expected.length, n);
            assertArrayEquals(expected, java.util.Arrays.copyOf(b, n));
            assertEquals(-1, end);
            return calls;
        }
    }

    private static long readCalls() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
            if (line.startsWith("syscr:")) {
                return Long.parseLong(line.substring("syscr:".length()).trim());
            }
        }
        throw new AssertionError("no syscr in /proc/thread-self/io");
    }

    @Test
    void channelsOpenedByFilesAndTheChannelClassesReadAndWriteTheSameBytes() throws Exception {
        byte[] data = pattern(200_000, 9);
        same(d -> {
            try (SeekableByteChannel ch = Files.newByteChannel(d.resolve("bc"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.READ)) {
                ch.write(ByteBuffer.wrap(data));
                ch.position(1000);
                ByteBuffer b = ByteBuffer.allocate(5000);
                ch.read(b);
                ch.truncate(150_000);
                return ch.size() + " " + ch.position() + " " + java.util.Arrays.hashCode(b.array());
            }
        });
        same(d -> {
            try (FileChannel ch = FileChannel.open(d.resolve("bc"), StandardOpenOption.READ)) {
                assertInstanceOf(FileChannel.class, ch);
                ByteBuffer b = ByteBuffer.allocateDirect(10_000);
                ch.read(b, 140_000);
                MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                byte[] mapped = new byte[m.remaining()];
                m.get(mapped);
                return b.flip().remaining() + " " + java.util.Arrays.hashCode(mapped);
            }
        });
        same(d -> {
            try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(d.resolve("async"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
                int n = ch.write(ByteBuffer.wrap(data), 4096).get(30, TimeUnit.SECONDS);
                ByteBuffer b = ByteBuffer.allocate(data.length + 4096);
                int m = ch.read(b, 0).get(30, TimeUnit.SECONDS);
                return n + " " + m + " " + ch.size();
            }
        });
        same(d -> Files.readAllBytes(d.resolve("async")));
        same(d -> {
            try (SeekableByteChannel ch = Files.newByteChannel(d.resolve("async"))) {
                return ch instanceof FileChannel;
            }
        });
        same(d -> Files.newByteChannel(d.resolve("nothing"), StandardOpenOption.READ));
        same(d -> FileChannel.open(d.resolve("nothing"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.SPARSE).size());
        same(d -> FileChannel.open(d.resolve("nothing"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
        same(d -> Files.newByteChannel(d.resolve("perm"), java.util.Set.<OpenOption>of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-r-----"))).size());
        same(d -> Files.createFile(d.resolve("created"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------"))).getFileName());
    }

    @Test
    void theProvidersPathsReachTheProvider() throws Exception {
        Path p = ourDir.resolve("f");
        Files.writeString(p, "x");
        assertSame(provider, p.getFileSystem().provider());
        try (FileChannel ch = FileChannel.open(p)) {
            String name = ch.getClass().getName();
            assertTrue(name.equals("sun.nio.ch.FileChannelImpl") || name.equals(
                    "io.github.uring4j.nio.UringFileChannel"), name);
        }
        try (InputStream in = Files.newInputStream(p)) {
            assertSame(FileChannelInputStream.class, in.getClass(), "a regular file's stream is the provider's");
        }
        try (OutputStream out = Files.newOutputStream(p)) {
            assertSame(FileChannelOutputStream.class, out.getClass());
        }
        try (OutputStream out = Files.newOutputStream(fs.getPath("/dev/null"))) {
            assertSame(FileChannelOutputStream.class, out.getClass(), "a device's stream is the provider's too");
            out.write(new byte[100]);
        }
        try (InputStream in = Files.newInputStream(fs.getPath("/dev/null"))) {
            assertEquals(-1, in.read());
        }
        assertArrayEquals(new byte[0], Files.readAllBytes(fs.getPath("/dev/null")));
    }
}
