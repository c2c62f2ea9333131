package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Uapi;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interrupts and files that are not seekable, as a user sees them on the JDK: {@code Files.readAllBytes},
 * {@code readString}, {@code write*} and the streams ignore an interrupt made before the call, channels from
 * {@code FileChannel.open} and {@code Files.newByteChannel} do not; FIFOs' streams are not seekable. Checked with
 * the channels {@link UringFiles} gives today, with a stand-in channel that is not the JDK's class, and with one
 * that can be told to ignore interrupts ({@link Builtin.Uninterruptible}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderInterruptsAndPipesTest {
    static final FileSystemProvider BUILTIN = FileSystems.getDefault().provider();

    @TempDir
    Path tmp;

    static Stream<Arguments> providers() {
        return Stream.of(
                Arguments.of("UringFiles", new UringFileSystemProvider(BUILTIN)),
                Arguments.of("a foreign channel", new UringFileSystemProvider(BUILTIN, StandInChannel::standIn)),
                Arguments.of("a channel told to ignore interrupts",
                        new UringFileSystemProvider(BUILTIN, StandInChannel::openIgnoring)));
    }

    static Path ours(UringFileSystemProvider provider, Path p) {
        FileSystem fs = provider.getFileSystem(URI.create("file:///"));
        return fs.getPath(p.toString());
    }

    /**
     * The zip file system reads its file through a channel of the provider's, also under a {@code Files.readString}
     * of one of its entries: an interrupt there closes that channel on the JDK, and did not on uring4j's provider,
     * whose channel took the {@code readAllBytes} frame for its own and ignored interrupts from then on.
     */
    @Test
    void aZipFileSystemsChannelIsInterruptedAsOnTheJdk() throws Exception {
        UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN);
        List<String> seen = new ArrayList<>();
        for (boolean jdk : new boolean[] {true, false}) {
            Path zip = tmp.resolve((jdk ? "jdk" : "ours") + ".zip");
            try (FileSystem z = FileSystems.newFileSystem(zip, java.util.Map.of("create", "true"))) {
                Files.writeString(z.getPath("/f.txt"), "content");
            }
            StringBuilder b = new StringBuilder();
            try (FileSystem z = FileSystems.newFileSystem(jdk ? zip : ours(provider, zip))) {
                for (int i = 0; i < 3; i++) {
                    if (i < 2) {
                        Thread.currentThread().interrupt();
                    }
                    try {
                        b.append(Files.readString(z.getPath("/f.txt")));
                    } catch (IOException e) {
                        b.append(e.getClass().getSimpleName());
                    } finally {
                        b.append(Thread.interrupted() ? " (interrupted) " : " ");
                    }
                }
            }
            seen.add(b.toString());
        }
        assertEquals(seen.get(0), seen.get(1), "the JDK's provider first, then uring4j's");
        assertTrue(seen.get(0).startsWith("ClosedByInterruptException"), seen.get(0));
    }

    /** What a thread whose interrupt flag is set sees from each call: its result, or what it threw. */
    static List<String> interruptedCalls(Path dir) {
        List<Callable> calls = List.of(
                () -> Files.write(dir.resolve("w"), new byte[] {1, 2, 3}).getFileName(),
                () -> Files.readAllBytes(dir.resolve("w")).length,
                () -> Files.writeString(dir.resolve("s"), "text", StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND).getFileName(),
                () -> Files.readString(dir.resolve("s")),
                () -> Files.readAllLines(dir.resolve("s")),
                () -> Files.write(dir.resolve("l"), List.of("a", "b")).getFileName(),
                () -> {
                    try (BufferedReader r = Files.newBufferedReader(dir.resolve("l"))) {
                        return r.readLine();
                    }
                },
                () -> {
                    try (InputStream in = Files.newInputStream(dir.resolve("w"))) {
                        return in.read() + " " + in.skip(1) + " " + in.available() + " " + in.readAllBytes().length;
                    }
                },
                () -> {
                    try (OutputStream out = Files.newOutputStream(dir.resolve("o"))) {
                        out.write(new byte[10]);
                    }
                    return Files.size(dir.resolve("o"));
                },
                () -> Files.mismatch(dir.resolve("w"), dir.resolve("o")),
                () -> {
                    try (FileChannel ch = FileChannel.open(dir.resolve("w"))) {
                        return ch.read(ByteBuffer.allocate(10));
                    }
                },
                () -> {
                    try (SeekableByteChannel ch = Files.newByteChannel(dir.resolve("w"))) {
                        return ch.read(ByteBuffer.allocate(10));
                    }
                });
        // Files.lines is left to the child JVMs: it takes another route when the path is not of the default file
        // system, which the provider made here is not
        List<String> seen = new ArrayList<>();
        for (Callable c : calls) {
            Thread.currentThread().interrupt();
            try {
                seen.add(String.valueOf(c.call()));
            } catch (Exception e) {
                seen.add(e.getClass().getName());
            } finally {
                seen.add("interrupted " + Thread.interrupted());
            }
        }
        return seen;
    }

    interface Callable {
        Object call() throws Exception;
    }

    /**
     * {@code Files.readAllBytes} and {@code readString} of a FIFO, interrupted while they wait for bytes, on the JDK's
     * provider and on uring4j's, from platform and virtual threads: the read goes on, returns what the writer wrote
     * before it closed, and the interrupt flag is kept (uring4j's wait in the ring was interruptible: the channel
     * closed and the bytes were lost). The stream of {@code newInputStream} closed by another thread while its read
     * waits: the read says the end of the file, as the JDK's does (uring4j's threw {@code AsynchronousCloseException}).
     */
    @Test
    void waitsOfWholeFileCallsAndStreamsOnAFifoEndAsTheJdksDo() throws Exception {
        UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN);
        int n = 0;
        for (boolean jdk : new boolean[] {true, false}) {
            for (Thread.Builder threads : List.of(Thread.ofPlatform(), Thread.ofVirtual())) {
                for (boolean asString : new boolean[] {false, true}) {
                    Path fifo = Conform.fifo(tmp, "wait" + n++);
                    Path p = jdk ? fifo : ours(provider, fifo);
                    CompletableFuture<String> got = new CompletableFuture<>();
                    try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                        Thread t = threads.start(() -> {
                            try {
                                int len = asString ? Files.readString(p).length() : Files.readAllBytes(p).length;
                                got.complete(len + " interrupted=" + Thread.currentThread().isInterrupted());
                            } catch (Throwable e) {
                                got.complete(e.toString());
                            }
                        });
                        Conform.awaitBlockedReading(t, fifo);
                        t.interrupt();
                        writer.write(ByteBuffer.wrap("abc\n".getBytes()));
                    }
                    assertEquals("4 interrupted=true", Conform.await(got), (jdk ? "jdk " : "uring4j ")
                            + threads + (asString ? " readString" : " readAllBytes"));
                }
            }
            Path fifo = Conform.fifo(tmp, "close" + n++);
            Path p = jdk ? fifo : ours(provider, fifo);
            try (FileChannel other = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                InputStream in = Files.newInputStream(p);
                CompletableFuture<String> got = new CompletableFuture<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    try {
                        got.complete("read() = " + in.read());
                    } catch (Throwable e) {
                        got.complete(e.toString());
                    }
                });
                Conform.awaitBlockedReading(t, fifo);
                in.close();
                assertEquals("read() = -1", Conform.await(got), jdk ? "jdk" : "uring4j");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("providers")
    void aPendingInterruptMeetsWhatItMeetsOnTheJdk(String name, UringFileSystemProvider provider) throws Exception {
        Path builtinDir = Files.createDirectory(tmp.resolve("builtin"));
        Path ourDir = ours(provider, Files.createDirectory(tmp.resolve("ours")));
        List<String> jdk = interruptedCalls(builtinDir);
        assertTrue(jdk.contains(ClosedByInterruptException.class.getName()), "the JDK's channels stay interruptible: "
                + jdk);
        assertEquals(jdk, interruptedCalls(ourDir));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("providers")
    void streamsOfFifosAreNotSeekable(String name, UringFileSystemProvider provider) throws Exception {
        Path fifo = fifo(tmp.resolve("fifo"));
        byte[] data = ProviderRoutedFilesTest.pattern(300_000, 4);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(data);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (InputStream in = Files.newInputStream(ours(provider, fifo))) {
            assertEquals(data[0] & 0xff, in.read());
            assertTrue(in.available() >= 0);
            assertEquals(1000, in.skip(1000), "skipping a FIFO reads past the bytes");
            assertEquals(0, in.skip(-5), "and cannot go back");
            byte[] rest = in.readAllBytes();
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 1001, data.length), rest);
            assertEquals(-1, in.read());
        }
        writer.get(30, TimeUnit.SECONDS);
    }

    /**
     * A FIFO's stream answers {@code available()} as the JDK's does (0, though the pipe holds bytes: one write of
     * 1,000 bytes, a pipe moves up to 4 KiB at once, one byte read, 999 left), then reads the rest and the end once
     * the writer closes.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("providers")
    void aFifosStreamAnswersAvailableAndReadsAsTheJdksDoes(String name, UringFileSystemProvider provider)
            throws Exception {
        List<String> outcomes = new ArrayList<>();
        for (Path p : List.of(fifo(tmp.resolve("jdk")), ours(provider, fifo(tmp.resolve("ours"))))) {
            CompletableFuture<Void> release = new CompletableFuture<>();
            Path plain = Path.of(p.toString());
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try (OutputStream out = Files.newOutputStream(plain)) {
                    out.write(ProviderRoutedFilesTest.pattern(1000, 5));
                    out.flush();
                    release.get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (InputStream in = Files.newInputStream(p)) {
                int first = in.read();
                int held = in.available();
                release.complete(null);
                writer.get(30, TimeUnit.SECONDS);
                byte[] rest = in.readAllBytes();
                outcomes.add(first + " " + held + " " + rest.length + " " + in.available() + " " + in.read());
            }
        }
        assertEquals(outcomes.get(0), outcomes.get(1), "the JDK's stream, then ours");
        assertEquals("5 0 999 0 -1", outcomes.get(1));
    }

    /**
     * A write of a FIFO's output stream that waits for its reader (the pipe is full and nobody reads) ends when
     * another thread closes the stream, with a {@code ClosedChannelException}, as the JDK's stream's does (the JDK's
     * blocking call returns the 64 KiB it wrote and its next call finds the channel closed; ours has written them
     * when the call that waits is closed, {@code AsynchronousCloseException}). Before, a platform thread's write of a
     * FIFO that refuses {@code RWF_NOWAIT} waited in the kernel, and the close waited for it for ever.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("providers")
    void aFifosOutputStreamWaitingForItsReaderIsEndedByClosingIt(String name, UringFileSystemProvider provider)
            throws Exception {
        List<String> outcomes = new ArrayList<>();
        for (Path p : List.of(fifo(tmp.resolve("jdk")), ours(provider, fifo(tmp.resolve("ours"))))) {
            CompletableFuture<FileChannel> reader = CompletableFuture.supplyAsync(() -> {
                try {
                    return FileChannel.open(Path.of(p.toString()), StandardOpenOption.READ); // opens, never reads
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            OutputStream out = Files.newOutputStream(p);
            try (FileChannel r = reader.get(30, TimeUnit.SECONDS)) {
                CompletableFuture<String> writer = CompletableFuture.supplyAsync(() -> {
                    try {
                        out.write(new byte[1 << 20]); // a pipe holds 64 KiB
                        return "wrote it all";
                    } catch (java.nio.channels.ClosedChannelException e) {
                        return "closed";
                    } catch (IOException e) {
                        return e.toString();
                    }
                });
                Thread.sleep(200);
                assertFalse(writer.isDone(), "the write waits for the reader");
                out.close();
                outcomes.add(writer.get(30, TimeUnit.SECONDS));
            }
        }
        assertEquals(List.of("closed", "closed"), outcomes, "the JDK's stream, then ours");
    }

    /**
     * The provider's output stream opens its file with {@code O_NONBLOCK}, so that its writes need not ask the kernel
     * what the file is: a regular file keeps the flag (which it ignores) and takes every byte; a FIFO whose reader has
     * fallen behind says {@code EAGAIN}, loses the flag, and the stream's writes wait in the ring, every byte arriving
     * in order.
     */
    @Test
    void anOutputStreamWritesAnyFileWithoutAskingWhatItIs() throws Exception {
        UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN);
        byte[] data = ProviderRoutedFilesTest.pattern(300_000, 11);
        Path plain = tmp.resolve("plain");
        try (OutputStream out = Files.newOutputStream(ours(provider, plain))) {
            out.write(data);
            Set<Integer> fds = Conform.fdsOf(plain);
            assertEquals(1, fds.size(), "the stream's descriptor: " + fds);
            assertEquals(Uapi.O_NONBLOCK, Conform.openFlags(fds.iterator().next()) & Uapi.O_NONBLOCK);
        }
        assertArrayEquals(data, Files.readAllBytes(plain));
        Path fifo = fifo(tmp.resolve("fifo"));
        CompletableFuture<FileChannel> reader = CompletableFuture.supplyAsync(() -> {
            try {
                return FileChannel.open(fifo, StandardOpenOption.READ);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (OutputStream out = Files.newOutputStream(ours(provider, fifo))) {
            try (FileChannel r = reader.get(30, TimeUnit.SECONDS)) {
                // More than a pipe holds, and nothing read until the writer waits: parked, so its write went to the
                // ring, after the pipe said EAGAIN
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        out.write(data);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (writer.getState() != Thread.State.WAITING && writer.getState() != Thread.State.TIMED_WAITING) {
                    assertTrue(writer.isAlive() && System.nanoTime() < deadline,
                            "the writer did not wait for the reader: " + writer.getState());
                    Thread.sleep(1);
                }
                Set<Integer> fds = Conform.fdsOf(fifo);
                fds.removeIf(fd -> {
                    try {
                        return (Conform.openFlags(fd) & Uapi.O_ACCMODE) != Uapi.O_WRONLY;
                    } catch (IOException e) {
                        return true;
                    }
                });
                assertFalse(fds.isEmpty(), "the stream's descriptor");
                for (int fd : fds) {
                    assertEquals(0, Conform.openFlags(fd) & Uapi.O_NONBLOCK, "a FIFO's descriptor lost the flag");
                }
                ByteBuffer b = ByteBuffer.allocate(data.length);
                while (b.hasRemaining() && r.read(b) >= 0) {
                    // on to the last byte
                }
                writer.join(TimeUnit.SECONDS.toMillis(30));
                assertFalse(writer.isAlive(), "the write ended once the bytes were read");
                assertArrayEquals(data, b.array());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("providers")
    void fifosAreWrittenAndReadWholeThroughFiles(String name, UringFileSystemProvider provider) throws Exception {
        Path fifo = fifo(tmp.resolve("fifo"));
        byte[] data = ProviderRoutedFilesTest.pattern(200_000, 8);
        CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readAllBytes(fifo);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Files.write(ours(provider, fifo), data);
        assertArrayEquals(data, reader.get(30, TimeUnit.SECONDS));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                Files.write(fifo, data);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertArrayEquals(data, Files.readAllBytes(ours(provider, fifo)));
        writer.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aChannelThatCanIgnoreInterruptsIsToldToForStreamsAndReadAllBytesOnly() throws Exception {
        List<StandInChannel> opened = new ArrayList<>();
        UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN, (p, o, a) -> {
            StandInChannel ch = (StandInChannel) StandInChannel.openIgnoring(p, o, a);
            opened.add(ch);
            return ch;
        });
        Path f = ours(provider, Files.write(tmp.resolve("f"), new byte[] {7}));
        Files.newInputStream(f).close();
        Files.newOutputStream(f, StandardOpenOption.APPEND).close();
        Files.readAllBytes(f);
        Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1);
        FileChannel.open(f).close();
        Files.newByteChannel(f).close();
        Files.newByteChannel(f, StandardOpenOption.READ).close();
        List<Boolean> told = opened.stream().map(c -> c.uninterruptible).toList();
        assertEquals(List.of(true, true, true, true, false, false, false), told);
    }

    @Test
    void readAllBytesOverAForeignChannelGetsAShieldedChannelAndOtherCallersTheChannelItself() throws Exception {
        List<FileChannel> opened = new ArrayList<>();
        List<Object> given = new ArrayList<>();
        UringFileSystemProvider provider = new UringFileSystemProvider(BUILTIN, (p, o, a) -> {
            FileChannel ch = StandInChannel.standIn(p, o, a);
            opened.add(ch);
            return ch;
        });
        Path f = ours(provider, Files.write(tmp.resolve("f"), new byte[] {7}));
        given.add(provider.newByteChannel(f, java.util.Set.of()));
        given.add(Files.newByteChannel(f));
        for (Object g : given) {
            ((AutoCloseable) g).close();
        }
        assertEquals(opened, given, "a caller other than Files.readAllBytes gets the channel itself");
        Thread.currentThread().interrupt();
        try {
            assertArrayEquals(new byte[] {7}, Files.readAllBytes(f));
        } finally {
            assertTrue(Thread.interrupted());
        }
        assertFalse(opened.get(2).isOpen(), "closed by Files.readAllBytes through the shield");
        assertInstanceOf(StandInChannel.class, opened.get(2));
        assertThrows(ClosedByInterruptException.class, () -> {
            try (FileChannel ch = FileChannel.open(f)) {
                Thread.currentThread().interrupt();
                ch.size();
            } finally {
                Thread.interrupted();
            }
        });
    }

    static Path fifo(Path p) throws Exception {
        Process pr = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertEquals(0, pr.waitFor(), "mkfifo");
        return p;
    }
}
