package io.github.uring4j.bench.everyday;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The {@code Files} and {@code FileChannel} calls of ordinary programs, run in a JVM of their own on whichever
 * provider it has: {@code EverydayProgram DIR PASSES TEXT_BYTES FILES OPS}. Each operation runs once per pass; the
 * first pass is not measured. What each read returns and what each write leaves is checked against the data the
 * program makes again in memory (after the timing). Prints {@code EVERYDAY provider=CLASS}, then one line per
 * operation: {@code EVERYDAY<TAB>name<TAB>median ns}.
 */
public final class EverydayProgram {
    static final String TEXT = "everyday-text.txt";
    static final String TREE = "everyday-tree";
    static final String OUT = "everyday-out";
    private static final int TREE_DIRS = 20;
    private static final int RANDOM_READS = 20_000;
    private static final int APPENDS = 100_000;
    private static final int SMALL_WRITES = 100_000;
    private static final int WRITER_LINES = 200_000;
    private static final int WRITTEN_FILES = 1_000;
    private static final int SYNCS = 200;
    private static final int LOG_LINES = 20_000;

    private EverydayProgram() {
    }

    /** The text file: numbered ASCII lines, {@code size} bytes at most, ending with a whole line. */
    static byte[] text(long size) {
        StringBuilder b = new StringBuilder((int) Math.min(size + 128, Integer.MAX_VALUE - 16));
        for (int i = 0; ; i++) {
            String line = "line " + i + " of the everyday text, with a few more words to make it a line\n";
            if (b.length() + line.length() > size) {
                break;
            }
            b.append(line);
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Small file {@code i}: 100 bytes to 4 KiB of numbered ASCII lines. */
    static byte[] small(int i) {
        int size = 100 + (int) ((i * 2654435761L) % 4000);
        StringBuilder b = new StringBuilder(size + 40);
        for (int k = 0; b.length() < size; k++) {
            b.append("file ").append(i).append(" line ").append(k).append('\n');
        }
        b.setLength(size);
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static Path smallPath(Path tree, int i) {
        return tree.resolve("d" + (i % TREE_DIRS)).resolve("f" + i + ".txt");
    }

    /** Writes the text file and the tree of small files into {@code dir}. */
    static void generate(Path dir, long textBytes, int files) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve(TEXT), text(textBytes));
        Path tree = dir.resolve(TREE);
        for (int d = 0; d < TREE_DIRS; d++) {
            Files.createDirectories(tree.resolve("d" + d));
        }
        for (int i = 0; i < files; i++) {
            Files.write(smallPath(tree, i), small(i));
        }
    }

    /** The operations' names, in the order they run, for a text file of {@code textBytes} and {@code files} small ones. */
    static List<String> names(long textBytes, int files) {
        String big = format(textBytes);
        return List.of("Files.readAllBytes " + big, "Files.readString " + big, "Files.readAllLines " + big,
                "Files.lines count " + big, "BufferedReader.readLine " + big, "InputStream 8 KiB reads " + big,
                "Files.copy " + big, "FileChannel 4 KiB random reads x" + RANDOM_READS,
                "BufferedWriter " + WRITER_LINES + " lines", "OutputStream 100 B writes x" + SMALL_WRITES,
                "FileChannel 100 B appends x" + APPENDS, "Files.write APPEND of a line x" + LOG_LINES,
                "FileChannel 4 KiB write + force x" + SYNCS,
                "Files.readAllBytes x" + files + " small", "BufferedReader first line x" + files + " small",
                "Files.walk + size x" + files + " small", "Files.write x" + WRITTEN_FILES + " small");
    }

    /** The names of {@link #names} that contain one of {@code words} (all of them when there are none). */
    static List<String> chosen(long textBytes, int files, List<String> words) {
        return names(textBytes, files).stream().filter(n -> words.isEmpty() || words.stream().anyMatch(n::contains))
                .toList();
    }

    /** One operation: the measured body, and the check of what it did, made after the timing. */
    private interface Body {
        Object run() throws Exception;
    }

    private interface Check {
        void check(Object result) throws Exception;
    }

    private record Op(String name, Body body, Check check) {
    }

    private static long crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    private static void expect(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("wrong result: " + what);
        }
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int passes = Integer.parseInt(args[1]);
        long textBytes = Long.parseLong(args[2]);
        int files = Integer.parseInt(args[3]);
        List<String> only = args.length > 4 && !args[4].equals("all") ? List.of(args[4].split(",")) : List.of();
        System.out.println("EVERYDAY provider=" + FileSystems.getDefault().provider().getClass().getName());

        byte[] text = text(textBytes);
        long textCrc = crc(text);
        String textString = new String(text, StandardCharsets.US_ASCII);
        long lines = textString.lines().count();
        long lineChars = text.length - lines;
        String lastLine = textString.substring(textString.lastIndexOf('\n', text.length - 2) + 1, text.length - 1);
        long[] sums = new long[3]; // of the small files: CRCs, bytes, lengths of their first lines
        for (int i = 0; i < files; i++) {
            byte[] s = small(i);
            sums[0] += crc(s);
            sums[1] += s.length;
            sums[2] += ("file " + i + " line 0").length();
        }
        long smallCrcSum = sums[0];
        long smallBytes = sums[1];
        long firstLines = sums[2];
        StringBuilder written = new StringBuilder();
        for (int i = 0; i < WRITER_LINES; i++) {
            written.append("written line ").append(i).append('\n');
        }
        byte[] writtenBytes = written.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] record = new byte[100];
        Arrays.fill(record, (byte) 'r');

        Path textFile = dir.resolve(TEXT);
        Path tree = dir.resolve(TREE);
        Path out = Files.createDirectories(dir.resolve(OUT));
        Path[] smallFiles = new Path[files];
        for (int i = 0; i < files; i++) {
            smallFiles[i] = smallPath(tree, i);
        }
        List<String> name = names(textBytes, files);
        List<Op> ops = new ArrayList<>();
        ops.add(new Op(name.get(0), () -> Files.readAllBytes(textFile),
                r -> expect(crc((byte[]) r) == textCrc, "readAllBytes")));
        ops.add(new Op(name.get(1), () -> Files.readString(textFile),
                r -> expect(crc(((String) r).getBytes(StandardCharsets.US_ASCII)) == textCrc, "readString")));
        ops.add(new Op(name.get(2), () -> Files.readAllLines(textFile), r -> {
            List<?> l = (List<?>) r;
            expect(l.size() == lines && l.get(l.size() - 1).equals(lastLine), "readAllLines");
        }));
        ops.add(new Op(name.get(3), () -> {
            try (Stream<String> s = Files.lines(textFile)) {
                return s.count();
            }
        }, r -> expect((Long) r == lines, "lines")));
        ops.add(new Op(name.get(4), () -> {
            long n = 0;
            long chars = 0;
            try (BufferedReader br = Files.newBufferedReader(textFile)) {
                for (String l; (l = br.readLine()) != null; ) {
                    n++;
                    chars += l.length();
                }
            }
            return new long[] {n, chars};
        }, r -> expect(Arrays.equals((long[]) r, new long[] {lines, lineChars}), "readLine")));
        ops.add(new Op(name.get(5), () -> {
            CRC32C c = new CRC32C();
            byte[] b = new byte[8192];
            try (InputStream in = Files.newInputStream(textFile)) {
                for (int n; (n = in.read(b)) > 0; ) {
                    c.update(b, 0, n);
                }
            }
            return c.getValue();
        }, r -> expect((Long) r == textCrc, "newInputStream")));
        ops.add(new Op(name.get(6), () -> Files.copy(textFile, out.resolve("copy.txt"),
                StandardCopyOption.REPLACE_EXISTING), r -> expect(Files.mismatch(textFile, (Path) r) == -1, "copy")));
        ops.add(new Op(name.get(7), () -> {
            ByteBuffer b = ByteBuffer.allocate(4096);
            SplittableRandom rnd = new SplittableRandom(2026);
            try (FileChannel ch = FileChannel.open(textFile)) {
                for (int i = 0; i < RANDOM_READS; i++) {
                    long at = rnd.nextLong(text.length - 4096);
                    b.clear();
                    while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) {
                        // on to the end of the block
                    }
                    expect(Arrays.equals(b.array(), 0, 4096, text, (int) at, (int) at + 4096), "read at " + at);
                }
            }
            return null;
        }, r -> { }));
        ops.add(new Op(name.get(8), () -> {
            Path f = out.resolve("written.txt");
            try (BufferedWriter w = Files.newBufferedWriter(f)) {
                for (int i = 0; i < WRITER_LINES; i++) {
                    w.write("written line ");
                    w.write(Integer.toString(i));
                    w.write('\n');
                }
            }
            return f;
        }, r -> expect(Arrays.equals(Files.readAllBytes((Path) r), writtenBytes), "newBufferedWriter")));
        ops.add(new Op(name.get(9), () -> {
            Path f = out.resolve("records.bin");
            try (OutputStream o = Files.newOutputStream(f)) {
                for (int i = 0; i < SMALL_WRITES; i++) {
                    o.write(record);
                }
            }
            return f;
        }, r -> expectRecords((Path) r, record, SMALL_WRITES)));
        ops.add(new Op(name.get(10), () -> {
            Path f = out.resolve("appended.log");
            Files.deleteIfExists(f);
            ByteBuffer b = ByteBuffer.wrap(record);
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND)) {
                for (int i = 0; i < APPENDS; i++) {
                    b.clear();
                    ch.write(b);
                }
            }
            return f;
        }, r -> expectRecords((Path) r, record, APPENDS)));
        byte[] logLine = "a line of a log, written the way a small program appends one, about 80 bytes\n"
                .getBytes(StandardCharsets.US_ASCII);
        ops.add(new Op(name.get(11), () -> {
            Path f = out.resolve("program.log");
            Files.deleteIfExists(f);
            for (int i = 0; i < LOG_LINES; i++) {
                Files.write(f, logLine, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
            return f;
        }, r -> expectRecords((Path) r, logLine, LOG_LINES)));
        ops.add(new Op(name.get(12), () -> {
            Path f = out.resolve("synced.log");
            ByteBuffer b = ByteBuffer.allocate(4096);
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                for (int i = 0; i < SYNCS; i++) {
                    b.clear();
                    ch.write(b);
                    ch.force(false);
                }
            }
            return f;
        }, r -> expect(Files.size((Path) r) == 4096L * SYNCS, "write + force")));
        ops.add(new Op(name.get(13), () -> {
            long sum = 0;
            for (Path p : smallFiles) {
                sum += crc(Files.readAllBytes(p));
            }
            return sum;
        }, r -> expect((Long) r == smallCrcSum, "readAllBytes of the small files")));
        ops.add(new Op(name.get(14), () -> {
            long sum = 0;
            for (Path p : smallFiles) {
                try (BufferedReader br = Files.newBufferedReader(p)) {
                    sum += br.readLine().length();
                }
            }
            return sum;
        }, r -> expect((Long) r == firstLines, "first lines of the small files")));
        ops.add(new Op(name.get(15), () -> {
            long sum = 0;
            try (Stream<Path> w = Files.walk(tree)) {
                for (Path p : (Iterable<Path>) w::iterator) {
                    if (Files.isRegularFile(p)) {
                        sum += Files.size(p);
                    }
                }
            }
            return sum;
        }, r -> expect((Long) r == smallBytes, "sizes of the small files")));
        ops.add(new Op(name.get(16), () -> {
            Path d = Files.createDirectories(out.resolve("small"));
            for (int i = 0; i < WRITTEN_FILES; i++) {
                Files.write(d.resolve("w" + i), small(i));
            }
            return d;
        }, r -> {
            for (int i = 0; i < WRITTEN_FILES; i++) {
                expect(Arrays.equals(Files.readAllBytes(((Path) r).resolve("w" + i)), small(i)), "written file " + i);
            }
        }));

        Map<String, long[]> nanos = new LinkedHashMap<>();
        for (String n : chosen(textBytes, files, only)) {
            nanos.put(n, new long[passes - 1]);
        }
        for (int pass = 0; pass < passes; pass++) {
            for (Op op : ops) {
                long[] t = nanos.get(op.name());
                if (t == null) {
                    continue;
                }
                System.gc(); // each operation starts from an empty young generation, not the last one's garbage
                long t0 = System.nanoTime();
                Object r = op.body().run();
                long took = System.nanoTime() - t0;
                op.check().check(r);
                if (pass > 0) {
                    t[pass - 1] = took;
                }
            }
        }
        for (Map.Entry<String, long[]> e : nanos.entrySet()) {
            long[] t = e.getValue().clone();
            Arrays.sort(t);
            System.out.println("EVERYDAY\t" + e.getKey() + "\t" + t[t.length / 2]);
        }
    }

    private static void expectRecords(Path f, byte[] record, int count) throws IOException {
        byte[] all = Files.readAllBytes(f);
        expect(all.length == record.length * count, f.getFileName() + " holds " + all.length + " bytes");
        for (int i = 0; i < all.length; i += record.length) {
            expect(Arrays.equals(all, i, i + record.length, record, 0, record.length), f.getFileName() + " at " + i);
        }
    }

    private static String format(long bytes) {
        return bytes >= 1 << 20 ? String.format(Locale.ROOT, "%d MiB", bytes >> 20)
                : String.format(Locale.ROOT, "%d KiB", bytes >> 10);
    }
}
