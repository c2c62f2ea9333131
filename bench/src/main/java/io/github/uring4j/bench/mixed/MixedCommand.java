package io.github.uring4j.bench.mixed;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.ExitCleanup;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.nio.UringFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mixed}: many threads calling {@code FileChannel} operations of the kinds asked for, at random, on a few
 * shared cached files of 256 KiB, with buffers of 1 byte to 68 KiB (heap and direct) at positions up to 40,000 bytes
 * past the end: the JDK's channel and uring4j's drop-in ({@code UringFiles.newFileChannel}) taking turns. Positional
 * writes put a pattern of the offset, relative writes a zero; every positional read is checked against them. Each
 * thread's {@code transferTo} copies go to a file of its own, rewritten from its start after 1 MiB.
 */
@Command(name = "mixed", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Many threads (virtual by default) calling random FileChannel operations on a few shared cached "
                + "files, the JDK's channel and uring4j's drop-in taking turns (after an unmeasured turn of each): "
                + "operations per second, of each kind and in all. Every positional read is checked.")
public final class MixedCommand implements Callable<Integer> {
    /** The operation kinds, in the order of {@code --ops}. */
    static final List<String> KINDS = List.of("pread", "pwrite", "read", "write", "scatter", "size", "position",
            "truncate", "trylock", "lock", "transfer", "force");
    static final int FILES = 8;
    static final int SIZE = 256 * 1024;
    static final int MAX_BUFFER = 70_000;

    @Option(names = "--dir", description = "Directory for the files (default: ${DEFAULT-VALUE}).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-mixed");

    @Option(names = "--threads", description = "Threads calling (default: ${DEFAULT-VALUE}).")
    int threads = 200;

    @Option(names = "--platform", description = "Platform threads instead of virtual threads.")
    boolean platform;

    @Option(names = "--ops", split = ",", description = "Operation kinds, comma-separated, from: pread, pwrite, read, "
            + "write, scatter, size, position, truncate, trylock, lock, transfer, force (default: all but truncate, whose "
            + "inode lock and freed blocks would make every other kind wait for it).")
    List<String> ops = KINDS.stream().filter(k -> !k.equals("truncate")).toList();

    @Option(names = "--seconds", description = "Measured seconds per turn (default: ${DEFAULT-VALUE}).")
    double seconds = 3;

    @Option(names = "--rounds", description = "Turns of each channel, alternating (default: ${DEFAULT-VALUE}).")
    int rounds = 2;

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    static final String JDK = "jdk";
    static final String URING = "uring4j";

    @Override
    public Integer call() throws Exception {
        if (threads < 1 || threads > 100_000 || !(seconds > 0 && seconds <= 3600) || rounds < 1 || rounds > 100) {
            throw new UsageError("--threads must be 1 to 100,000, --seconds over 0 and at most 3600, --rounds 1 to 100"
                    + " (got --threads " + threads + ", --seconds " + seconds + ", --rounds " + rounds + ")");
        }
        int[] kinds = new int[ops.size()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = KINDS.indexOf(ops.get(i));
            if (kinds[i] < 0) {
                throw new UsageError("unknown operation kind '" + ops.get(i) + "' (known: " + String.join(", ", KINDS)
                        + ")");
            }
        }
        Files.createDirectories(dir);
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, Double> secs = new LinkedHashMap<>();
        Map<String, Long> ringOps = new LinkedHashMap<>();
        Map<String, Long> offCarrier = new LinkedHashMap<>();
        // One unmeasured turn of each first (a second at most), as the other commands have a JIT pass: the measured
        // turns then do not include the JIT compiling either channel's paths.
        for (String which : List.of(JDK, URING)) {
            if (!quiet) {
                System.err.printf(Locale.ROOT, "mixed: warm-up, %s%n", which);
            }
            turn(which, kinds, Math.min(seconds, 1.0));
        }
        for (int round = 0; round < rounds; round++) {
            for (String which : round % 2 == 0 ? List.of(JDK, URING) : List.of(URING, JDK)) {
                if (!quiet) {
                    System.err.printf(Locale.ROOT, "mixed: round %d of %d, %s%n", round + 1, rounds, which);
                }
                long t0 = System.nanoTime();
                io.github.uring4j.nio.DropInStatistics before = UringFiles.statistics();
                long[] c = turn(which, kinds, seconds);
                io.github.uring4j.nio.DropInStatistics after = UringFiles.statistics();
                ringOps.merge(which, after.ringOperations() - before.ringOperations(), Long::sum);
                offCarrier.merge(which, after.offCarrierCalls() - before.offCarrierCalls(), Long::sum);
                secs.merge(which, (System.nanoTime() - t0) / 1e9, Double::sum);
                long[] sum = counts.computeIfAbsent(which, k -> new long[KINDS.size()]);
                for (int k = 0; k < sum.length; k++) {
                    sum[k] += c[k];
                }
            }
        }
        List<Result> rows = new ArrayList<>();
        List<String> categories = new ArrayList<>();
        categories.add("all");
        for (int k : kinds) {
            if (!categories.contains(KINDS.get(k))) {
                categories.add(KINDS.get(k));
            }
        }
        for (String category : categories) {
            for (String which : List.of(JDK, URING)) {
                long[] c = counts.get(which);
                long n = category.equals("all") ? java.util.Arrays.stream(c).sum() : c[KINDS.indexOf(category)];
                Result r = new Result("mixed", which).param("category", category).param("threads", threads)
                        .param("thread_kind", platform ? "platform" : "virtual").param("ops", String.join(",", ops))
                        .param("rounds", rounds).param("ring_operations", ringOps.get(which))
                        .param("off_carrier_calls", offCarrier.get(which)).metric("ops_per_s", n / secs.get(which))
                        .primary("ops_per_s", "ops/s");
                rows.add(r);
            }
        }
        System.out.print(table(rows));
        ResultFile.conclude("mixed", dir, "page cache (the files written in the run)", rows, json);
        return 0;
    }

    private static FileChannel open(String which, Path file) throws IOException {
        StandardOpenOption[] o = {StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE};
        return which.equals(URING) ? UringFiles.newFileChannel(file, o) : FileChannel.open(file, o);
    }

    /** The byte positional writes put at {@code offset} (never 0): a read finds it there, or a zero. */
    static byte at(long offset) {
        return (byte) (offset * 7 + 1 | 1);
    }

    /** One turn of {@code which}, {@code turnSeconds} long: the operations each thread completed, by kind. */
    long[] turn(String which, int[] kinds, double turnSeconds) throws Exception {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            Path p = ExitCleanup.register(dir.resolve("mixed-" + i + ".bin"));
            Files.write(p, new byte[SIZE]);
            files.add(p);
        }
        FileChannel[] ch = new FileChannel[FILES];
        AtomicLongArray done = new AtomicLongArray(KINDS.size());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            for (int i = 0; i < FILES; i++) {
                ch[i] = open(which, files.get(i));
            }
            long end = System.nanoTime() + (long) (turnSeconds * 1e9);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                Path sink = ExitCleanup.register(dir.resolve("mixed-sink-" + t + ".bin"));
                Runnable work = () -> {
                    Random rnd = new Random(seed);
                    ByteBuffer direct = ByteBuffer.allocateDirect(MAX_BUFFER);
                    ByteBuffer heap = ByteBuffer.allocate(MAX_BUFFER);
                    long[] mine = new long[KINDS.size()];
                    // each thread's copies go to a file of its own, rewritten from the start after 1 MiB: a copy
                    // waits for no other thread's, and the page cache does not fill with what the copies wrote
                    try (FileChannel out = open(which, sink)) {
                        while (System.nanoTime() < end && failure.get() == null) {
                            int kind = kinds[rnd.nextInt(kinds.length)];
                            ByteBuffer b = (rnd.nextBoolean() ? direct : heap).clear().limit(rnd.nextInt(1, MAX_BUFFER));
                            call(kind, ch[rnd.nextInt(FILES)], b, rnd.nextInt(SIZE + 40_000), out, rnd);
                            mine[kind]++;
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        try {
                            Files.deleteIfExists(sink);
                        } catch (IOException e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                    for (int k = 0; k < mine.length; k++) {
                        done.addAndGet(k, mine[k]);
                    }
                };
                workers.add(platform ? Thread.ofPlatform().start(work) : Thread.ofVirtual().start(work));
            }
            for (Thread w : workers) {
                w.join();
            }
        } finally {
            for (FileChannel c : ch) {
                if (c != null) {
                    c.close();
                }
            }
            for (Path p : files) {
                Files.deleteIfExists(p);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(which + ": " + failure.get(), failure.get());
        }
        long[] c = new long[KINDS.size()];
        for (int k = 0; k < c.length; k++) {
            c[k] = done.get(k);
        }
        return c;
    }

    private static void call(int kind, FileChannel c, ByteBuffer b, long pos, FileChannel out, Random rnd)
            throws IOException {
        switch (kind) {
            case 0 -> {
                int n = c.read(b, pos);
                for (int k = 0; k < n; k++) {
                    byte got = b.get(k);
                    if (got != 0 && got != at(pos + k)) {
                        throw new IOException("byte " + (pos + k) + " read as " + got + ", written as " + at(pos + k));
                    }
                }
            }
            case 1 -> {
                for (int k = 0; k < b.limit(); k++) {
                    b.put(k, at(pos + k));
                }
                c.write(b, pos);
            }
            case 2 -> c.read(b);
            case 3 -> {
                for (int k = 0; k < b.limit(); k++) {
                    b.put(k, (byte) 0);
                }
                c.write(b);
            }
            case 4 -> c.read(new ByteBuffer[] {b, ByteBuffer.allocate(100)});
            case 5 -> c.size();
            case 6 -> c.position(pos);
            case 7 -> c.truncate(SIZE + rnd.nextInt(40_000));
            case 8 -> {
                try {
                    FileLock l = c.tryLock(pos, 10, false);
                    if (l != null) {
                        l.release();
                    }
                } catch (OverlappingFileLockException e) {
                    // another thread of this JVM holds it: as the JDK's channel says
                }
            }
            case 9 -> {
                try {
                    c.lock(pos, 10, rnd.nextBoolean()).release();
                } catch (OverlappingFileLockException e) {
                    // another thread of this JVM holds it
                }
            }
            case 10 -> {
                c.transferTo(pos, 65_536 + rnd.nextInt(65_536), out);
                if (out.position() > 1 << 20) {
                    out.position(0);
                }
            }
            default -> c.force(false);
        }
    }

    static String table(List<Result> rows) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-10s %16s %16s %10s%n", "operations",
                "jdk ops/s", "uring4j ops/s", "uring4j/jdk"));
        for (int i = 0; i + 1 < rows.size(); i += 2) {
            Result jdk = rows.get(i);
            Result ours = rows.get(i + 1);
            b.append(String.format(Locale.ROOT, "%-10s %,16.0f %,16.0f %9.2fx%n", jdk.params.get("category"),
                    jdk.primaryValue(), ours.primaryValue(), ours.primaryValue() / jdk.primaryValue()));
        }
        if (!rows.isEmpty()) {
            Result ours = rows.get(1);
            b.append("uring4j: ").append(ours.params.get("ring_operations")).append(" operations through the ring, ")
                    .append(ours.params.get("off_carrier_calls")).append(" calls made off their carriers\n");
        }
        return b.toString();
    }
}
