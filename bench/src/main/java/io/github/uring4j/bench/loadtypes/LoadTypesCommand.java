package io.github.uring4j.bench.loadtypes;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.ExitCleanup;
import io.github.uring4j.bench.common.PageCache;
import io.github.uring4j.bench.common.Progress;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.common.Sizes;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.Generator;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code loadtypes}: sequential read, append write, random read, random write; GB/s per strategy and file size. */
@Command(name = "loadtypes", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "The four load types (seq-read, append-write, random-read, random-write) at chosen file sizes: "
                + "GB/s per strategy (FileChannel, io_uring ring, AsyncFile, mmap). Every read is verified, every written file checked after.")
public final class LoadTypesCommand implements Callable<Integer> {

    public static final Map<String, Supplier<LoadStrategy>> STRATEGIES = new LinkedHashMap<>();

    static {
        STRATEGIES.put("channel", ChannelLoad::new);
        STRATEGIES.put("ring", RingLoad::new);
        STRATEGIES.put("async", AsyncLoad::new);
        STRATEGIES.put("mmap", MmapLoad::new);
    }

    @Option(names = "--dir", description = "Directory for the test files (default: ${DEFAULT-VALUE}).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-loadtypes");

    @Option(names = "--size", split = ",", description = "File sizes (default: 64M,256M).")
    List<String> sizes = List.of("64M", "256M");

    @Option(names = "--loads", split = ",", description = "Load types (default: all four).")
    List<String> loads = List.of("seq-read", "append-write", "random-read", "random-write");

    @Option(names = {"-s", "--strategy"}, split = ",", description = "Strategies (default: channel,ring,async,mmap).")
    List<String> strategies = List.of("channel", "ring", "async", "mmap");

    @Option(names = "--seq-io", description = "Bytes per sequential operation (default: ${DEFAULT-VALUE}).")
    String seqIo = "1M";

    @Option(names = "--random-io", description = "Bytes per random operation (default: ${DEFAULT-VALUE}).")
    String randomIo = "4K";

    @Option(names = {"-d", "--depth"}, description = "Operations in flight for ring and async (default: ${DEFAULT-VALUE}).")
    int depth = 16;

    @Option(names = "--direct", description = "O_DIRECT for channel, ring and async (sizes must be multiples of 512); mmap is skipped.")
    boolean direct;

    @Option(names = "--fsync", description = "End each write pass with fsync (fdatasync), inside the timing.")
    boolean fsync;

    @Option(names = "--cache", description = "Page cache before each read pass: warm (as written) or cold (dropped) (default: ${DEFAULT-VALUE}).")
    String cache = "warm";

    @Option(names = "--min-time", description = "Repeat a measurement until this many seconds have passed (default: ${DEFAULT-VALUE}).")
    double minTime = 0.5;

    @Option(names = "--warm-up", description = "Seconds each strategy runs random reads and random writes, unmeasured, "
            + "before the first case, so that the JIT has compiled them; such rounds repeat (at most 10) until the JIT "
            + "compiles for less than a tenth of one; 0: none (default: ${DEFAULT-VALUE}).")
    double warmUp = 0.2;

    /** Seconds the warm-up took (rounds repeat until the JIT goes quiet). */
    private double warmedUp;

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = "--keep-files", description = "Leave the test files in --dir for the next run (default: delete them).")
    boolean keepFiles;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        List<Result> rows = run();
        System.out.println(table(rows));
        // a file system in memory (tmpfs) has no page to drop: "cold" would be a false label next to its rates
        String reads = io.github.uring4j.bench.report.ReportCommand.inMemory(dir)
                ? "in memory (" + dir + " is on tmpfs: nothing is read from a device, nothing can be dropped)"
                : cache.equals("cold") ? "cold (dropped before each pass)" : "from the page cache (warm)";
        ResultFile.conclude("loadtypes", dir, "reads " + reads + (direct ? ", O_DIRECT" : ""), rows, json);
        return 0;
    }

    /** Runs every (size, load, strategy) and returns the rows. */
    @SuppressWarnings("try") // the progress display lives as long as the block, unreferenced
    public List<Result> run() throws Exception {
        int seq = (int) Sizes.parse("--seq-io", seqIo);
        int rnd = (int) Sizes.parse("--random-io", randomIo);
        if (seq % 8 != 0 || rnd % 8 != 0) {
            throw new UsageError("--seq-io and --random-io must be multiples of 8 bytes (got " + seq + ", " + rnd + ")");
        }
        if (direct && (seq % 512 != 0 || rnd % 512 != 0)) {
            throw new UsageError("with --direct, --seq-io and --random-io must be multiples of 512 (got " + seq + ", " + rnd + ")");
        }
        if (seq % rnd != 0) {
            throw new UsageError("--seq-io must be a multiple of --random-io (got " + seq + ", " + rnd + ")");
        }
        if (depth <= 0) {
            throw new UsageError("--depth must be positive (got " + depth + ")");
        }
        if (!(warmUp >= 0) || warmUp > 3600) {
            throw new UsageError("--warm-up must be 0..3600 seconds (got " + warmUp + ")");
        }
        if (!(minTime >= 0) || minTime > 3600) {
            throw new UsageError("--min-time must be 0..3600 seconds (got " + minTime + ")");
        }
        if (!cache.equals("warm") && !cache.equals("cold")) {
            throw new UsageError("--cache must be warm or cold, not '" + cache + "'");
        }
        List<Load> ls = new ArrayList<>();
        for (String l : loads) {
            Load load = Load.of(l);
            if (load == null) {
                throw new UsageError("unknown load type '" + l + "' (known: seq-read, append-write, random-read, random-write)");
            }
            ls.add(load);
        }
        for (String s : strategies) {
            if (!STRATEGIES.containsKey(s)) {
                throw new UsageError("unknown strategy '" + s + "' (known: " + String.join(", ", STRATEGIES.keySet()) + ")");
            }
        }
        List<Long> sz = new ArrayList<>();
        long maxSize = 0;
        for (String s : sizes) {
            long v = Sizes.parse("--size", s);
            if (v % seq != 0) {
                throw new UsageError("--size " + s + " is not a multiple of --seq-io " + seqIo);
            }
            sz.add(v);
            maxSize = Math.max(maxSize, v);
        }
        Generator.checkSpace(dir, 2 * maxSize);
        List<Result> rows = new ArrayList<>();
        AtomicLong moved = new AtomicLong();
        try (Arena arena = Arena.ofShared();
             Progress p = new Progress("loadtypes", 0, moved::get, "MB", 1e6, quiet)) {
            MemorySegment pattern = arena.allocate(seq, 4096);
            BlockData.fill(pattern, 0, LoadSpec.PATTERN_FILE_ID, 0, seq);
            for (long size : sz) {
                Path file = dir.resolve("load-" + Sizes.format(size) + ".bin");
                Path append = ExitCleanup.register(dir.resolve("append-" + Sizes.format(size) + ".bin"));
                if (!keepFiles) {
                    ExitCleanup.register(file);
                }
                writePatternFile(file, size, pattern);
                try {
                    if (size == sz.get(0) && warmUp > 0) {
                        warmedUp = warmUp(file, size, rnd, seq, pattern);
                    }
                    for (Load load : ls) {
                        int io = load.random ? rnd : seq;
                        long[] offsets = offsets(load, size, io, 7);
                        Path target = load == Load.APPEND_WRITE ? append : file;
                        LoadSpec spec = new LoadSpec(load, target, size, io, seq, offsets, depth, direct, fsync, pattern);
                        rows.addAll(measure(spec, moved));
                    }
                } finally {
                    Files.deleteIfExists(append);
                    if (!keepFiles) {
                        Files.deleteIfExists(file);
                    }
                }
            }
        }
        return rows;
    }

    /**
     * Random loads are measured in turns of up to an eighth of their offsets (a 256M random-write pass takes a
     * second), but of at least {@link #MIN_TURN_OPS} operations: a turn also pays for waking a strategy's threads
     * that slept while the others had their turns (async random reads of an 8M file, in turns of 256 reads: 0.6
     * times the channel; in whole passes of 2,048: 0.9).
     */
    static final int RANDOM_TURNS = 8;
    static final int MIN_TURN_OPS = 2048;

    /**
     * One (size, load) case for every strategy. The strategies take turns until each has run for {@code --min-time}
     * (or 50 passes): on a shared machine a slow second hits every strategy about equally instead of the one whose
     * passes it fell into. A turn is a whole pass for sequential loads and up to an eighth of one for random loads,
     * taken in order (random-write 256M took one 1-second pass per strategy, so turns of whole passes could
     * not interleave). A written file is checked right after its strategy's last turn, before another strategy writes
     * the same offsets again.
     */
    private List<Result> measure(LoadSpec spec, AtomicLong moved) throws Exception {
        Load load = spec.load();
        Path target = spec.file();
        List<LoadStrategy> open = new ArrayList<>();
        try {
            for (String sn : strategies) {
                open.add(STRATEGIES.get(sn).get());
            }
            open.removeIf(st -> {
                if (st.unsupported(spec) == null) {
                    return false;
                }
                st.close();
                return true;
            });
            settle(load, target);
            List<LoadSpec> turns = new ArrayList<>();
            int parts = load.random ? Math.max(1, Math.min(RANDOM_TURNS, spec.offsets().length / MIN_TURN_OPS)) : 1;
            long[] all = spec.offsets();
            for (int k = 0; k < parts; k++) {
                turns.add(new LoadSpec(load, target, spec.size(), spec.ioSize(), spec.period(),
                        Arrays.copyOfRange(all, (int) ((long) all.length * k / parts), (int) ((long) all.length * (k + 1) / parts)),
                        spec.depth(), spec.direct(), spec.fsync(), spec.pattern()));
            }
            int n = open.size();
            long[] nanos = new long[n];
            int[] passes = new int[n];
            long[] bytes = new long[n];
            String[] cacheBefore = new String[n];
            // the strategies that take turns, in rounds; then each of the others alone (LoadStrategy.takesTurns)
            List<List<Integer>> groups = new ArrayList<>();
            groups.add(new ArrayList<>());
            for (int i = 0; i < n; i++) {
                if (open.get(i).takesTurns()) {
                    groups.get(0).add(i);
                } else {
                    groups.add(List.of(i));
                }
            }
            for (List<Integer> group : groups) {
                // One unmeasured pass each first, so the JIT has compiled the loops being measured.
                for (int i : group) {
                    if (load == Load.APPEND_WRITE) {
                        Files.deleteIfExists(target); // untimed; see settle
                    }
                    open.get(i).run(spec);
                }
                boolean more = !group.isEmpty();
                while (more) {
                    more = false;
                    for (int i : group) {
                        if (passes[i] > 0 && (nanos[i] >= minTime * 1e9 || passes[i] >= 50 * parts)) {
                            continue; // at least one turn each, then --min-time
                        }
                        if (!load.write && cache.equals("cold")) {
                            RingFiles.dropFromPageCache(target);
                        }
                        if (passes[i] == 0 && !load.write) {
                            cacheBefore[i] = PageCache.describe(PageCache.residentFraction(List.of(target)));
                        }
                        if (load == Load.APPEND_WRITE) {
                            Files.deleteIfExists(target); // untimed; see settle
                        }
                        LoadSpec turn = turns.get(passes[i] % parts);
                        nanos[i] += open.get(i).run(turn);
                        bytes[i] += turn.bytes();
                        moved.addAndGet(turn.bytes());
                        passes[i]++;
                        boolean last = nanos[i] >= minTime * 1e9 || passes[i] >= 50 * parts;
                        if (load.write && load.random) {
                            // the blocks this turn wrote, before another strategy overwrites them
                            checkBlocks(turn, open.get(i).name() + " " + load.label);
                        }
                        if (last && load.write) {
                            checkWritten(target, spec.size(), spec.period(),
                                    open.get(i).name() + " " + load.label);
                        }
                        more |= !last;
                    }
                }
            }
            List<Result> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = open.get(i).name();
                Result r = new Result("loadtype-" + load.label, name)
                        .param("load", load.label).param("category", load.label + " " + Sizes.format(spec.size()))
                        .param("size", Sizes.format(spec.size())).param("io", Sizes.format(spec.ioSize()))
                        .param("depth", name.equals("ring") || name.equals("async") ? depth : 1)
                        .param("direct", direct).param("fsync", fsync).param("turns", passes[i])
                        .param("warm_up_s", String.format(java.util.Locale.ROOT, "%.1f", warmedUp))
                        .primary("gb_per_s", "GB/s");
                if (cacheBefore[i] != null) {
                    r.param("cache_before", cacheBefore[i]);
                }
                open.get(i).notes().forEach(r::param);
                r.metric("gb_per_s", bytes[i] / (nanos[i] / 1e9) / 1e9);
                r.metric("ops_per_s", bytes[i] / spec.ioSize() / (nanos[i] / 1e9));
                out.add(r);
            }
            return out;
        } finally {
            for (LoadStrategy st : open) {
                st.close();
            }
        }
    }

    /**
     * Before the first case, every strategy runs random reads and random writes of {@code file} for
     * {@code --warm-up} seconds each, unmeasured, so that the JIT has compiled each strategy's per-operation path before
     * any case is timed. Without it the first case timed the async API partly interpreted: seq-read 8M, the first case
     * of a run, read 1.5 GB/s against the channel's 5.8, and 5.3 once random reads had run before it. Such rounds
     * repeat until the JIT compiled for less than {@link #QUIET_JIT} of a round's time, at most
     * {@link #MAX_WARM_UP_ROUNDS} of them: on two cores the JIT went on compiling for 4 rounds of 1.3 s (2.1, 1.3, 0.7
     * and 0.6 s of compile time, then under 0.1 s per round), and the async API's random reads of 64M measured 0.71-0.76
     * times the channel's after one 0.2 s round, 0.97 after 2 s.
     *
     * @return the seconds the warm-up took
     */
    private double warmUp(Path file, long size, int rnd, int seq, MemorySegment pattern) throws Exception {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean watchJit = jit != null && jit.isCompilationTimeMonitoringSupported();
        long t0 = System.nanoTime();
        for (int round = 0; round < MAX_WARM_UP_ROUNDS; round++) {
            long before = watchJit ? jit.getTotalCompilationTime() : 0;
            long r0 = System.nanoTime();
            warmUpRound(file, size, rnd, seq, pattern);
            double roundMillis = (System.nanoTime() - r0) / 1e6;
            if (!watchJit || jit.getTotalCompilationTime() - before < QUIET_JIT * roundMillis) {
                break;
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** The share of a warm-up round's time the JIT may spend compiling in the last round. */
    static final double QUIET_JIT = 0.1;
    static final int MAX_WARM_UP_ROUNDS = 10;

    private void warmUpRound(Path file, long size, int rnd, int seq, MemorySegment pattern) throws Exception {
        for (Load load : List.of(Load.RANDOM_READ, Load.RANDOM_WRITE)) {
            long[] offsets = offsets(load, size, rnd, 11);
            LoadSpec spec = new LoadSpec(load, file, size, rnd, seq, Arrays.copyOf(offsets, Math.min(offsets.length,
                    MIN_TURN_OPS)), depth, direct, fsync, pattern);
            for (String sn : strategies) {
                try (LoadStrategy st = STRATEGIES.get(sn).get()) {
                    if (st.unsupported(spec) != null) {
                        continue;
                    }
                    long end = System.nanoTime() + (long) (warmUp * 1e9);
                    do {
                        st.run(spec);
                    } while (System.nanoTime() - end < 0);
                    if (load.write) {
                        checkWritten(file, size, seq, st.name() + " " + load.label + " (warm-up)");
                    }
                }
            }
        }
    }

    /**
     * Untimed, before a case's first pass: leaves nothing of earlier cases for the kernel to write back while this
     * one is timed. Without it, whichever strategy ran later paid for the writeback of the ones before it (on two
     * cores, the flusher's CPU and the device's queue): append-write 256M measured 3.77 GB/s for the channel run first
     * and 2.31 GB/s run last. Random writes sync the file they overwrite. Appends start from no file at all, here and
     * before every pass: a file truncated to zero and written again is flushed by ext4 when it is closed
     * ({@code auto_da_alloc}), so each pass would queue its whole size for the device; a new file's pages are dropped
     * unwritten when it is deleted.
     */
    private static void settle(Load load, Path target) throws IOException {
        if (load == Load.APPEND_WRITE) {
            Files.deleteIfExists(target);
        } else if (load.write) {
            try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
                ch.force(false);
            }
        }
    }

    static long[] offsets(Load load, long size, int io, long seed) {
        int n = (int) (size / io);
        long[] o = new long[n];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            o[i] = load.random ? r.nextLong(n) * io : (long) i * io;
        }
        return o;
    }

    private static void writePatternFile(Path file, long size, MemorySegment pattern) throws IOException {
        if (Files.isRegularFile(file) && Files.size(file) == size) {
            return;
        }
        Files.createDirectories(file.getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bb = pattern.asByteBuffer();
            for (long off = 0; off < size; off += pattern.byteSize()) {
                bb.clear();
                while (bb.hasRemaining()) {
                    ch.write(bb, off + bb.position());
                }
            }
            ch.force(false); // on the device before any strategy is timed, so none runs beside its writeback
        }
    }

    /** Reads a written file back (untimed) and checks size and every byte. */
    private static void checkWritten(Path file, long size, int period, String what) throws IOException {
        if (Files.size(file) != size) {
            throw new IOException(what + ": " + file.getFileName() + " has " + Files.size(file) + " bytes, expected " + size);
        }
        long[] offsets = new long[(int) (size / period)];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = (long) i * period;
        }
        check(file, offsets, period, period, what);
    }

    /** Reads back (untimed) the blocks {@code s} wrote at its offsets and checks every byte. */
    private static void checkBlocks(LoadSpec s, String what) throws IOException {
        check(s.file(), s.offsets(), s.ioSize(), s.period(), what);
    }

    /** Reads {@code len} bytes at each offset of {@code file} and checks them against the pattern of that period. */
    private static void check(Path file, long[] offsets, int len, int period, String what) throws IOException {
        try (Arena a = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment buf = a.allocate(len, 4096);
            ByteBuffer bb = buf.asByteBuffer();
            for (long off : offsets) {
                bb.clear();
                while (bb.hasRemaining() && ch.read(bb, off + bb.position()) > 0) {
                    // fill
                }
                if (bb.hasRemaining()) {
                    throw new IOException(what + ": " + file.getFileName() + " ends at byte " + (off + bb.position()));
                }
                // the bad byte's place in the pattern, or -1
                long bad = BlockData.verify(buf, 0, LoadSpec.PATTERN_FILE_ID, off % period, len);
                if (bad >= 0) {
                    throw new IOException(what + ": wrong data written at byte " + (off - off % period + bad) + " of "
                            + file.getFileName());
                }
            }
        }
    }

    /** Rows as a text table: one line per (load, size), one column per strategy, GB/s. */
    public static String table(List<Result> rows) {
        List<String> strategies = new ArrayList<>();
        Map<String, Map<String, Double>> byRow = new LinkedHashMap<>();
        for (Result r : rows) {
            if (!strategies.contains(r.strategy)) {
                strategies.add(r.strategy);
            }
            byRow.computeIfAbsent(r.workload.replace("loadtype-", "") + " " + r.params.get("size") + " io=" + r.params.get("io"),
                    k -> new LinkedHashMap<>()).put(r.strategy, r.primaryValue());
        }
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-30s", "load (GB/s)"));
        strategies.forEach(s -> b.append(String.format(Locale.ROOT, "%10s", s)));
        b.append('\n');
        byRow.forEach((k, v) -> {
            b.append(String.format(Locale.ROOT, "%-30s", k));
            for (String s : strategies) {
                Double d = v.get(s);
                b.append(d == null ? String.format("%10s", "-") : String.format(Locale.ROOT, "%10.3f", d));
            }
            b.append('\n');
        });
        return b.toString();
    }
}
