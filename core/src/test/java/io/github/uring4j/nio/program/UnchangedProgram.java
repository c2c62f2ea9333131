package io.github.uring4j.nio.program;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A program that knows nothing of uring4j: it writes files with every JDK API that reaches the default provider,
 * reads them back with every other, and prints what it found, one fact a line. Run by {@code ProviderChildJvmTest}
 * on the plain JDK and with {@code UringFileSystemProvider} installed; the lines must agree.
 */
public final class UnchangedProgram {
    private UnchangedProgram() {
    }

    /** The files the program writes and what each must hold afterwards. */
    public static final List<String> FILES = List.of("data.bin", "string.txt", "lines.txt", "stream.bin",
            "channel.bin", "async.bin", "copy.bin", "fromstream.bin", "moved.bin", "buffered.txt", "big.bin");

    /** What {@code name} holds once the program has run. */
    public static byte[] content(String name) {
        return switch (name) {
            case "data.bin", "copy.bin", "fromstream.bin", "moved.bin" -> pattern(70_000, 1);
            case "string.txt" -> "grüße aus dem Ring\nund noch eine Zeile\n".getBytes(StandardCharsets.UTF_8);
            case "lines.txt", "buffered.txt" -> String.join("\n", lines()).concat("\n")
                    .getBytes(StandardCharsets.UTF_8);
            case "stream.bin", "channel.bin", "async.bin" -> pattern(123_457, 2);
            case "big.bin" -> pattern(5 * 1024 * 1024 + 3, 3);
            default -> throw new IllegalArgumentException(name);
        };
    }

    static List<String> lines() {
        List<String> l = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            l.add("line " + i + " " + "ü".repeat(i % 13));
        }
        return l;
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 131 + seed + (i >>> 10));
        }
        return b;
    }

    /** The start of the SHA-256 of {@code b} and its length. */
    public static String sha(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b)).substring(0, 16) + " "
                + b.length;
    }

    static void out(String line) {
        System.out.println(line);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        FileSystem fs = FileSystems.getDefault();
        out("PROVIDER " + fs.provider().getClass().getName());
        out("MODULE " + fs.provider().getClass().getModule().getName());
        write(dir);
        read(dir);
        paths(dir);
        interrupts(dir);
        try {
            java.net.UnixDomainSocketAddress.of(dir.resolve("socket"));
            out("UNIXSOCKET ok");
        } catch (IllegalArgumentException e) {
            out("UNIXSOCKET " + e.getClass().getSimpleName());
        }
        try (InputStream in = Files.newInputStream(Path.of("/dev/stdin"))) {
            out("STDIN " + sha(in.readAllBytes()));
        }
        dropIns();
        out("DONE");
    }

    /**
     * What a monitoring tool sees: the drop-ins' MXBean, read by name through JMX (the program itself knows nothing
     * of uring4j).
     */
    static void dropIns() throws Exception {
        var server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        var name = new javax.management.ObjectName("io.github.uring4j:type=DropIns");
        // registered off the first open's path: give it a moment, as a monitoring tool would
        for (int i = 0; i < 100 && !server.isRegistered(name); i++) {
            Thread.sleep(100);
        }
        if (!server.isRegistered(name)) {
            out("DROPINS none");
            return;
        }
        out("DROPINS ioUring=" + server.getAttribute(name, "IoUring") + " uringChannels="
                + server.getAttribute(name, "UringChannels") + " jdkChannels=" + server.getAttribute(name, "JdkChannels")
                + " callerCalls=" + server.getAttribute(name, "CallerCalls") + " ringOperations="
                + server.getAttribute(name, "RingOperations"));
    }

    static void write(Path dir) throws Exception {
        byte[] data = content("data.bin");
        Files.write(dir.resolve("data.bin"), data);
        try (FileChannel ch = FileChannel.open(dir.resolve("data.bin"), StandardOpenOption.READ)) {
            out("CHANNEL " + ch.getClass().getName());
        }
        Files.writeString(dir.resolve("string.txt"), "grüße aus dem Ring\n");
        Files.writeString(dir.resolve("string.txt"), "und noch eine Zeile\n", StandardOpenOption.APPEND);
        Files.write(dir.resolve("lines.txt"), lines());
        byte[] stream = content("stream.bin");
        try (OutputStream out = Files.newOutputStream(dir.resolve("stream.bin"))) {
            int half = stream.length / 2;
            for (int off = 0; off < half; off += 997) {
                out.write(stream, off, Math.min(997, half - off));
            }
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("stream.bin"), StandardOpenOption.APPEND)) {
            int half = stream.length / 2;
            out.write(stream[half]);
            out.write(stream, half + 1, stream.length - half - 1);
        }
        try (FileChannel ch = FileChannel.open(dir.resolve("channel.bin"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            for (int off = stream.length / 4096 * 4096; off >= 0; off -= 4096) {
                ch.write(ByteBuffer.wrap(stream, off, Math.min(4096, stream.length - off)), off);
            }
            ch.force(true);
        }
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(dir.resolve("async.bin"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocateDirect(stream.length).put(stream).flip();
            long pos = 0;
            while (b.hasRemaining()) {
                pos += ch.write(b, pos).get(30, TimeUnit.SECONDS);
            }
        }
        Files.copy(dir.resolve("data.bin"), dir.resolve("copy.bin"));
        Files.copy(new ByteArrayInputStream(data), dir.resolve("fromstream.bin"));
        Files.move(Files.write(dir.resolve("tomove.bin"), data), dir.resolve("moved.bin"),
                StandardCopyOption.ATOMIC_MOVE);
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("buffered.txt"))) {
            for (String l : lines()) {
                w.write(l);
                w.newLine();
            }
        }
        Files.write(dir.resolve("big.bin"), content("big.bin"));
    }

    static void read(Path dir) throws Exception {
        for (String f : FILES) {
            out("READ " + f + " " + sha(Files.readAllBytes(dir.resolve(f))));
        }
        out("STRING " + Files.readString(dir.resolve("string.txt")).length());
        out("ALLLINES " + Files.readAllLines(dir.resolve("lines.txt")).equals(lines()));
        try (Stream<String> s = Files.lines(dir.resolve("lines.txt"))) {
            out("LINES " + s.toList().equals(lines()));
        }
        try (Stream<String> s = Files.lines(dir.resolve("lines.txt"))) {
            out("PARALLEL-LINES " + s.parallel().filter(l -> l.endsWith("ü")).count());
        }
        try (BufferedReader r = Files.newBufferedReader(dir.resolve("buffered.txt"))) {
            out("READER " + r.lines().toList().equals(lines()));
        }
        try (InputStream in = Files.newInputStream(dir.resolve("big.bin"))) {
            long skipped = in.skip(1_000_000);
            int b = in.read();
            int available = in.available();
            out("INPUT " + skipped + " " + b + " " + available + " " + sha(in.readNBytes(100_000)) + " "
                    + sha(in.readAllBytes()));
        }
        try (FileChannel ch = FileChannel.open(dir.resolve("big.bin"))) {
            ByteBuffer b = ByteBuffer.allocate((int) ch.size());
            while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                // positional reads to the end
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            byte[] mapped = new byte[m.remaining()];
            m.get(mapped);
            out("CHANNEL-READ " + sha(b.array()) + " MAPPED " + sha(mapped));
        }
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(dir.resolve("async.bin"))) {
            ByteBuffer b = ByteBuffer.allocate((int) ch.size());
            while (b.hasRemaining() && ch.read(b, b.position()).get(30, TimeUnit.SECONDS) > 0) {
                // to the end
            }
            out("ASYNC-READ " + sha(b.array()));
        }
        try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("channel.bin").toFile(), "r")) {
            byte[] all = new byte[(int) raf.length()];
            raf.readFully(all);
            out("RANDOMACCESSFILE " + sha(all));
        }
        out("MISMATCH " + Files.mismatch(dir.resolve("stream.bin"), dir.resolve("async.bin")) + " "
                + Files.mismatch(dir.resolve("stream.bin"), dir.resolve("data.bin")));
        try (FileChannel lockFile = FileChannel.open(dir.resolve("write.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.tryLock()) {
            out("LOCK " + (lock != null && lock.isValid() && lock.channel() == lockFile));
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
            out("DIRECTORY-FORCE ok");
        }
    }

    static void paths(Path dir) throws Exception {
        FileSystem fs = FileSystems.getDefault();
        Path data = dir.resolve("data.bin");
        File file = data.toFile();
        out("TOFILE " + file.toPath().equals(data) + " " + (file.toPath().getFileSystem() == fs) + " "
                + (Path.of(data.toUri()).equals(data)) + " " + (new File(dir.toFile(), "data.bin").length()));
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.bin")) {
            List<String> names = new ArrayList<>();
            ds.forEach(p -> names.add(p.getFileName().toString()));
            out("SECURE " + (ds instanceof SecureDirectoryStream) + " " + names.stream().sorted().toList());
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            out("WALK " + walk.filter(p -> p.getFileSystem() == fs).count());
        }
        Path temp = Files.createTempFile(dir, "tmp", ".tmp");
        out("TEMPFILE " + PosixFilePermissions.toString(Files.getPosixFilePermissions(temp)) + " "
                + (temp.getFileSystem() == fs));
        Files.delete(temp);
        Path watched = Files.createDirectory(dir.resolve("watched"));
        try (WatchService ws = fs.newWatchService()) {
            WatchKey key = watched.register(ws, StandardWatchEventKinds.ENTRY_CREATE);
            Files.writeString(watched.resolve("new"), "x");
            WatchKey got = ws.poll(30, TimeUnit.SECONDS);
            out("WATCH " + (got == key) + " " + (got != null && got.watchable() == watched) + " "
                    + (got == null ? "none" : got.pollEvents().get(0).context()));
        }
        Path zip = dir.resolve("archive.zip");
        try (FileSystem zfs = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
            Files.write(zfs.getPath("/entry.bin"), content("data.bin"));
        }
        try (FileSystem zfs = FileSystems.newFileSystem(URI.create("jar:" + zip.toUri()), Map.of())) {
            out("ZIP " + sha(Files.readAllBytes(zfs.getPath("/entry.bin"))));
        }
    }

    /** What a thread with its interrupt flag set meets. */
    static void interrupts(Path dir) throws Exception {
        List<String> seen = new ArrayList<>();
        List<Call> calls = List.of(
                () -> sha(Files.readAllBytes(dir.resolve("data.bin"))),
                () -> Files.readString(dir.resolve("string.txt")).length(),
                () -> Files.write(dir.resolve("interrupted.bin"), new byte[] {1}).getFileName(),
                () -> {
                    try (InputStream in = Files.newInputStream(dir.resolve("data.bin"))) {
                        return in.readAllBytes().length;
                    }
                },
                () -> {
                    try (FileChannel ch = FileChannel.open(dir.resolve("data.bin"))) {
                        return ch.read(ByteBuffer.allocate(10));
                    }
                },
                () -> {
                    try (Stream<String> s = Files.lines(dir.resolve("lines.txt"))) {
                        return s.count();
                    }
                });
        for (Call c : calls) {
            Thread.currentThread().interrupt();
            try {
                seen.add(String.valueOf(c.call()));
            } catch (Exception e) {
                seen.add(e.getClass().getSimpleName());
            } finally {
                seen.add(String.valueOf(Thread.interrupted()));
            }
        }
        out("INTERRUPTED " + seen);
    }

    interface Call {
        Object call() throws Exception;
    }
}
