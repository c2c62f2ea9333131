package io.github.uring4j.bench.carriers;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.ExitCleanup;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.nio.UringFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code carriers}: virtual threads whose writes wait in the kernel, and what that does to the other virtual threads.
 * A platform thread rewrites the start of a file {@code --big} bytes at a time, holding the file's inode lock for
 * each call; {@code --writers} virtual threads write 4 KiB blocks to the same file, each at its own offset past that,
 * and sleep a millisecond between writes; one more virtual thread wants to run every millisecond and records how
 * late it ran. A write waiting for the lock on a carrier holds that carrier; with every carrier held, nothing else
 * runs. The JDK's {@code FileChannel} and uring4j's drop-in ({@code UringFiles.newFileChannel}) take turns. Afterwards
 * every virtual thread's block must hold the last record it wrote, and the rewritten region the last round's bytes.
 */
@Command(name = "carriers", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Virtual threads writing 4 KiB blocks to a file that a platform thread rewrites in large writes "
                + "(which hold the file's inode lock), beside a virtual thread that wants to run every millisecond: how "
                + "often and how late it ran, with the JDK's FileChannel and with uring4j's drop-in, taking turns.")
public final class CarriersCommand implements Callable<Integer> {
    static final int BLOCK = 4096;

    @Option(names = "--dir", description = "Directory for the file (default: ${DEFAULT-VALUE}).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-carriers");

    @Option(names = "--seconds", description = "Measured seconds per turn (default: ${DEFAULT-VALUE}).")
    double seconds = 3;

    @Option(names = "--rounds", description = "Turns of each channel, alternating (default: ${DEFAULT-VALUE}).")
    int rounds = 2;

    @Option(names = "--writers", description = "Virtual threads writing 4 KiB blocks (default: ${DEFAULT-VALUE}).")
    int writers = 4;

    @Option(names = "--big", description = "Bytes the platform thread writes per call, in MiB (default: ${DEFAULT-VALUE}).")
    int bigMiB = 64;

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    static final String JDK = "jdk";
    static final String URING = "uring4j";

    /** One turn's figures. */
    record Turn(long ticks, long[] lateNanos, long smallWrites, long bigWrites, double seconds, long offCarrier) {
    }

    @Override
    public Integer call() throws Exception {
        if (!(seconds > 0 && seconds <= 3600) || rounds < 1 || rounds > 100 || writers < 1 || writers > 10_000
                || bigMiB < 1 || bigMiB > 1024) {
            throw new UsageError("--seconds must be over 0 and at most 3600, --rounds 1 to 100, --writers 1 to 10,000, "
                    + "--big 1 to 1024 (MiB) (got --seconds " + seconds + ", --rounds " + rounds + ", --writers " + writers
                    + ", --big " + bigMiB + ")");
        }
        Files.createDirectories(dir);
        Map<String, List<Turn>> turns = new LinkedHashMap<>();
        try {
            for (int round = 0; round < rounds; round++) {
                for (String which : round % 2 == 0 ? List.of(JDK, URING) : List.of(URING, JDK)) {
                    if (!quiet) {
                        System.err.printf(Locale.ROOT, "carriers: round %d of %d, %s%n", round + 1, rounds, which);
                    }
                    turns.computeIfAbsent(which, k -> new ArrayList<>())
                            .add(turn(which, ExitCleanup.register(dir.resolve("carriers-" + which + ".bin")),
                                    (byte) (round * 2 + 1)));
                }
            }
        } finally {
            for (String which : List.of(JDK, URING)) {
                Files.deleteIfExists(dir.resolve("carriers-" + which + ".bin"));
            }
        }
        List<Result> rows = rows(turns);
        System.out.print(table(rows));
        ResultFile.conclude("carriers", dir, "page cache (the file written in the run)", rows, json);
        return 0;
    }

    private FileChannel open(String which, Path file) throws IOException {
        return which.equals(URING)
                ? UringFiles.newFileChannel(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    /** One turn: the rewriter, the writers and the ticker for {@link #seconds}; then the file is checked. */
    Turn turn(String which, Path file, byte fill) throws Exception {
        Files.deleteIfExists(file);
        long big = (long) bigMiB << 20;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] bigWrites = new long[1];
        long[] lastRecord = new long[writers];
        long[] smallWrites = new long[writers];
        long offBefore = UringFiles.statistics().offCarrierCalls();
        try (FileChannel ch = open(which, file)) {
            Thread rewriter = Thread.ofPlatform().name("carriers-rewriter").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect((int) big);
                while (b.hasRemaining()) {
                    b.put(fill);
                }
                try {
                    while (!stop.get()) {
                        b.clear();
                        while (b.hasRemaining()) {
                            ch.write(b, b.position());
                        }
                        bigWrites[0]++;
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            List<Thread> vts = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int id = w;
                vts.add(Thread.ofVirtual().start(() -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(BLOCK);
                    try {
                        for (long record = 1; !stop.get(); record++) {
                            record(b.clear(), id, record);
                            while (b.hasRemaining()) {
                                ch.write(b, big + (long) id * BLOCK + b.position());
                            }
                            lastRecord[id] = record;
                            smallWrites[id]++;
                            Thread.sleep(1);
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            long measured = (long) (seconds * 1e9);
            long[] late = new long[(int) Math.min(Integer.MAX_VALUE - 8, measured / 1_000_000 + 16)];
            long[] ticks = new long[1];
            Thread ticker = Thread.ofVirtual().start(() -> {
                long start = System.nanoTime();
                long next = start + 1_000_000;
                while (System.nanoTime() - start < measured) {
                    long now = System.nanoTime();
                    if (now - next < 0) {
                        LockSupport.parkNanos(next - now);
                        continue;
                    }
                    if (ticks[0] < late.length) {
                        late[(int) ticks[0]] = now - next;
                    }
                    ticks[0]++;
                    next = Math.max(next + 1_000_000, now + 1); // a late tick is not made up for
                }
            });
            long t0 = System.nanoTime();
            ticker.join();
            double took = (System.nanoTime() - t0) / 1e9;
            stop.set(true);
            for (Thread t : vts) {
                if (!t.join(java.time.Duration.ofSeconds(60))) {
                    throw new IllegalStateException(which + ": a virtual writer still running a minute after the end");
                }
            }
            if (!rewriter.join(java.time.Duration.ofSeconds(60))) {
                throw new IllegalStateException(which + ": the rewriter still running a minute after the end");
            }
            if (failure.get() != null) {
                throw new IOException(which + ": a writer failed: " + failure.get(), failure.get());
            }
            check(which, file, big, fill, lastRecord);
            int n = (int) Math.min(ticks[0], late.length);
            long[] l = Arrays.copyOf(late, n);
            Arrays.sort(l);
            return new Turn(ticks[0], l, Arrays.stream(smallWrites).sum(), bigWrites[0], took,
                    UringFiles.statistics().offCarrierCalls() - offBefore);
        }
    }

    /** A block of writer {@code id}: its id and the record's number, again and again. */
    static void record(ByteBuffer b, int id, long record) {
        while (b.hasRemaining()) {
            b.putLong(((long) id << 48) ^ record);
        }
        b.flip();
    }

    /** The rewritten region holds {@code fill}, and every writer's block the last record it wrote. */
    static void check(String which, Path file, long big, byte fill, long[] lastRecord) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
            for (long pos = 0; pos < big; ) {
                b.clear().limit((int) Math.min(b.capacity(), big - pos));
                int n = ch.read(b, pos);
                if (n <= 0) {
                    throw new IOException(which + ": the rewritten region ends at " + pos + " of " + big);
                }
                for (int i = 0; i < n; i++) {
                    if (b.get(i) != fill) {
                        throw new IOException(which + ": byte " + (pos + i) + " of the rewritten region is " + b.get(i)
                                + ", not " + fill);
                    }
                }
                pos += n;
            }
            ByteBuffer want = ByteBuffer.allocate(BLOCK);
            ByteBuffer got = ByteBuffer.allocate(BLOCK);
            for (int id = 0; id < lastRecord.length; id++) {
                if (lastRecord[id] == 0) {
                    continue; // it never finished a write: nothing to find
                }
                record(want.clear(), id, lastRecord[id]);
                got.clear();
                while (got.hasRemaining() && ch.read(got, big + (long) id * BLOCK + got.position()) > 0) {
                    // read the whole block
                }
                if (!got.flip().equals(want)) {
                    throw new IOException(which + ": virtual writer " + id + "'s block does not hold its record "
                            + lastRecord[id]);
                }
            }
        }
    }

    private List<Result> rows(Map<String, List<Turn>> turns) {
        List<Result> rows = new ArrayList<>();
        for (String category : List.of(TICKS, WRITES)) {
            for (String which : List.of(JDK, URING)) {
                List<Turn> ts = turns.get(which);
                double secs = ts.stream().mapToDouble(Turn::seconds).sum();
                long[] late = ts.stream().flatMapToLong(t -> Arrays.stream(t.lateNanos())).sorted().toArray();
                Result r = new Result("carriers", which).param("category", category).param("writers", writers)
                        .param("big_mib", bigMiB).param("rounds", ts.size())
                        .param("off_carrier_calls", ts.stream().mapToLong(Turn::offCarrier).sum())
                        .metric("ticks_per_s", ts.stream().mapToLong(Turn::ticks).sum() / secs)
                        .metric("small_writes_per_s", ts.stream().mapToLong(Turn::smallWrites).sum() / secs)
                        .metric("big_mb_per_s", ts.stream().mapToLong(Turn::bigWrites).sum() * (double) bigMiB * 1.048576
                                / secs)
                        .metric("late_p50_ns", pct(late, 0.5)).metric("late_p99_ns", pct(late, 0.99))
                        .metric("late_max_ns", late.length == 0 ? Double.NaN : late[late.length - 1]);
                r.primary(category.equals(TICKS) ? "ticks_per_s" : "small_writes_per_s", "per s");
                rows.add(r);
            }
        }
        return rows;
    }

    /** The category of the rows whose figure is the ticker's rate (the report's claim reads it). */
    public static final String TICKS = "a virtual thread's 1 ms ticks run";
    static final String WRITES = "4 KiB writes of the virtual threads";

    private static double pct(long[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, (long) (sorted.length * p))];
    }

    static String table(List<Result> rows) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-8s %10s %16s %14s %12s %12s %12s %12s%n",
                "channel", "ticks/s", "4 KiB writes/s", "rewrite MB/s", "late p50 ms", "late p99 ms", "late max ms",
                "off carrier"));
        for (Result r : rows) {
            if (!r.params.get("category").equals(TICKS)) {
                continue;
            }
            b.append(String.format(Locale.ROOT, "%-8s %,10.0f %,16.0f %,14.0f %12.2f %12.2f %12.2f %12s%n", r.strategy,
                    r.metrics.get("ticks_per_s"), r.metrics.get("small_writes_per_s"), r.metrics.get("big_mb_per_s"),
                    r.metrics.get("late_p50_ns") / 1e6, r.metrics.get("late_p99_ns") / 1e6,
                    r.metrics.get("late_max_ns") / 1e6, r.params.get("off_carrier_calls")));
        }
        return b.toString();
    }
}
