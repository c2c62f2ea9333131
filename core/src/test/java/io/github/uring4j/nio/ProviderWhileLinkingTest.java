package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the provider links its native calls (a fresh JVM's first moments), the whole-file calls of {@code Files} are
 * served by the JDK's own channels and streams instead of waiting, and counted; a channel or stream the program
 * keeps is uring4j's. The test JVM runs with {@code uring4j.whileLinking=wait} (its other tests count uring4j's
 * channels), so these tests say what they want, and mark the provider as linking themselves.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderWhileLinkingTest {
    final UringFileSystemProvider provider = new UringFileSystemProvider(FileSystems.getDefault().provider());
    final FileSystem fs = provider.getFileSystem(URI.create("file:///"));

    @TempDir
    Path tmp;
    Path dir;
    private String property;

    @BeforeEach
    void linking() throws InterruptedException {
        dir = fs.getPath(tmp.toString());
        // the JVM's own link thread first ends (it started with the first provider made here)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (UringFiles.LINKING.get()) {
            assertTrue(System.nanoTime() < deadline, "the provider's link thread did not end in 30 s");
            Thread.sleep(5);
        }
        property = System.clearProperty(UringFiles.WHILE_LINKING);
        UringFiles.LINKING.set(true);
    }

    @AfterEach
    void linked() {
        UringFiles.LINKING.set(false);
        if (property != null) {
            System.setProperty(UringFiles.WHILE_LINKING, property);
        } else {
            System.clearProperty(UringFiles.WHILE_LINKING);
        }
    }

    private static long byJdk() {
        return UringFiles.statistics().jdkWhileLinking();
    }

    private static long ours() {
        return UringFiles.statistics().uringChannels();
    }

    @Test
    void wholeFileCallsAreTheJdksAndCountedEachOnce() throws Exception {
        byte[] data = new byte[100_000];
        new Random(3).nextBytes(data);
        Path a = dir.resolve("a.bin");
        Path t = dir.resolve("t.txt");
        long jdk = byJdk();
        long uring = ours();
        Files.write(a, data);
        assertEquals(jdk + 1, byJdk(), "Files.write");
        assertArrayEquals(data, Files.readAllBytes(a));
        assertEquals(jdk + 2, byJdk(), "Files.readAllBytes");
        Files.writeString(t, "one\ntwo\n");
        assertEquals("one\ntwo\n", Files.readString(t));
        assertEquals(List.of("one", "two"), Files.readAllLines(t));
        Files.write(t, List.of("three", "four"));
        assertEquals(List.of("three", "four"), Files.readAllLines(t));
        assertEquals(jdk + 7, byJdk(), "writeString, readString, readAllLines, write of lines, readAllLines");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(data.length, Files.copy(a, out));
        assertArrayEquals(data, out.toByteArray());
        Path b = dir.resolve("b.bin");
        assertEquals(data.length, Files.copy(new ByteArrayInputStream(data), b));
        assertEquals(-1, Files.mismatch(a, b));
        assertEquals(jdk + 7 + 2 + 2, byJdk(), "the copies to and from a stream, and the mismatch's two files");
        assertEquals(uring, ours(), "a whole-file call waited for the links");
    }

    @Test
    void whatTheProgramKeepsIsUringsAndWaitsForTheLinks() throws Exception {
        Path a = dir.resolve("a.bin");
        Files.write(a, new byte[] {1, 2, 3});
        long jdk = byJdk();
        long uring = ours();
        try (FileChannel ch = FileChannel.open(a, StandardOpenOption.READ);
                SeekableByteChannel sbc = Files.newByteChannel(a);
                InputStream in = Files.newInputStream(a);
                Reader r = Files.newBufferedReader(a);
                OutputStream os = Files.newOutputStream(dir.resolve("kept.bin"))) {
            assertInstanceOf(UringFileChannel.class, ch);
            assertInstanceOf(UringFileChannel.class, sbc);
            assertInstanceOf(FileChannelInputStream.class, in);
            assertInstanceOf(FileChannelOutputStream.class, os);
            assertEquals(1, in.read());
            assertEquals(1, r.read());
        }
        assertEquals(jdk, byJdk(), "a channel or stream the program keeps was the JDK's");
        assertEquals(uring + 5, ours());
    }

    /**
     * {@code Files.write} of lines runs the program's {@code Iterable}: a stream that the iterator opens and keeps is
     * the program's own, not part of the whole-file call, and so uring4j's.
     */
    @Test
    void aStreamOpenedByTheProgramInsideAWholeFileCallIsUrings() throws Exception {
        List<OutputStream> kept = new ArrayList<>();
        Path side = dir.resolve("side.bin");
        Iterable<String> lines = () -> new Iterator<>() {
            int i;

            @Override
            public boolean hasNext() {
                return i < 2;
            }

            @Override
            public String next() {
                if (i++ == 0) {
                    try {
                        kept.add(Files.newOutputStream(side));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                return "line " + i;
            }
        };
        long jdk = byJdk();
        Path t = dir.resolve("t.txt");
        Files.write(t, lines);
        try (OutputStream os = kept.get(0)) {
            assertInstanceOf(FileChannelOutputStream.class, os);
            os.write(7);
        }
        assertEquals(jdk + 1, byJdk(), "only the write of the lines");
        assertEquals(List.of("line 1", "line 2"), Files.readAllLines(t));
        assertArrayEquals(new byte[] {7}, Files.readAllBytes(side));
    }

    /** A value that is neither {@code jdk} nor {@code wait} (said once, as a warning) leaves the calls the JDK's. */
    @Test
    void anUnknownValueLeavesTheCallsTheJdks() throws Exception {
        System.setProperty(UringFiles.WHILE_LINKING, "later");
        Path a = dir.resolve("a.bin");
        long jdk = byJdk();
        Files.write(a, new byte[] {5});
        assertArrayEquals(new byte[] {5}, Files.readAllBytes(a));
        assertEquals(jdk + 2, byJdk());
    }

    @Test
    void waitMakesWholeFileCallsWaitForTheLinks() throws Exception {
        System.setProperty(UringFiles.WHILE_LINKING, "wait");
        Path a = dir.resolve("a.bin");
        long jdk = byJdk();
        long uring = ours();
        Files.write(a, "x".getBytes(StandardCharsets.US_ASCII));
        assertEquals("x", Files.readString(a));
        assertEquals(jdk, byJdk());
        assertEquals(uring + 2, ours());
        // and once linked, the calls are uring4j's again
        System.clearProperty(UringFiles.WHILE_LINKING);
        UringFiles.LINKING.set(false);
        assertEquals("x", Files.readString(a));
        assertEquals(jdk, byJdk());
        assertEquals(uring + 3, ours());
        assertFalse(UringFiles.whileLinking());
    }
}
