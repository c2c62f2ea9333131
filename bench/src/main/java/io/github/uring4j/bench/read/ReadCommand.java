package io.github.uring4j.bench.read;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.PageCache;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.data.Corruption;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.bench.data.GenerateCommand;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code read}: random verified 4 KiB reads of a data set, per strategy. */
@Command(name = "read", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Read random 4 KiB blocks of a generated data set for a duration, verifying every block; "
                + "print rate, CPU time and latency percentiles per strategy.")
public final class ReadCommand implements Callable<Integer> {

    /** Every strategy by name. */
    public static final Map<String, Supplier<ReadStrategy>> STRATEGIES = new LinkedHashMap<>();

    static {
        STRATEGIES.put("ring", RingStrategy::new);
        STRATEGIES.put("mmap", MmapStrategy::new);
        STRATEGIES.put("channel", () -> new ChannelStrategy(false));
        STRATEGIES.put("channel-vthreads", () -> new ChannelStrategy(true));
        STRATEGIES.put("async", () -> new AsyncStrategy(false));
        STRATEGIES.put("async-vthreads", () -> new AsyncStrategy(true));
        STRATEGIES.put("channel-heap", () -> new ChannelStrategy(false, false, true));
        STRATEGIES.put("dropin", () -> new ChannelStrategy(false, true, false));
        STRATEGIES.put("dropin-heap", () -> new ChannelStrategy(false, true, true));
        STRATEGIES.put("dropin-vthreads", () -> new ChannelStrategy(true, true, false));
        STRATEGIES.put("dropin-mapped", () -> new ChannelStrategy(false, true, false, true));
        STRATEGIES.put("dropin-mapped-heap", () -> new ChannelStrategy(false, true, true, true));
        STRATEGIES.put("jasyncfio", JasyncfioStrategy::new);
    }

    @Option(names = "--dir", description = "Data set directory (default: ${DEFAULT-VALUE}).")
    Path dir = GenerateCommand.defaultDir();

    @Option(names = {"-s", "--strategy"}, split = ",",
            description = "Strategies, comma-separated: ring, mmap, channel, channel-heap, channel-vthreads, async, "
                    + "async-vthreads, dropin, dropin-heap, dropin-vthreads (uring4j's FileChannel), dropin-mapped, "
                    + "dropin-mapped-heap (its reads from a mapping, -During4j.mappedReads=true), jasyncfio (the Java "
                    + "io_uring library jasyncfio 0.0.7, futures, page cache only) "
                    + "(default: ring,mmap,channel).")
    List<String> strategies = List.of("ring", "mmap", "channel");

    @Option(names = {"-t", "--threads"}, description = "Worker threads (default: ${DEFAULT-VALUE}).")
    int threads = 1;

    @Option(names = {"-d", "--depth", "--ql"},
            description = "Reads in flight per thread: ring depth, async reads per loop, virtual threads per thread "
                    + "(channel-vthreads, async-vthreads) (default: ${DEFAULT-VALUE}).")
    int depth = 32;

    @Option(names = "--duration", description = "Measured seconds per strategy (default: ${DEFAULT-VALUE}).")
    double duration = 10;

    @Option(names = "--warmup", description = "Unrecorded seconds before measuring (default: ${DEFAULT-VALUE}).")
    double warmup = 2;

    @Option(names = "--direct", description = "Open with O_DIRECT (ring, channel); mmap is skipped.")
    boolean direct;

    @Option(names = "--cache", description = "Page cache before each strategy: keep (as it is), warm (read everything first), "
            + "cold (drop the data set's pages) (default: ${DEFAULT-VALUE}).")
    String cache = "keep";

    @Option(names = "--seed", description = "Seed of the random block choice (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = "--json", description = "Also write the rows and the environment to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        // a platform thread per --threads (100,000 of them ran out of native threads at 31,435, after 87 s)
        if (threads <= 0 || threads > 1024 || depth <= 0 || depth > 1_000_000) {
            throw new UsageError("--threads must be 1..1024 and --depth 1..1000000 (got --threads " + threads
                    + ", --depth " + depth + ")");
        }
        // NaN passes a "<= 0" test: a NaN duration measured nothing and printed 31 million reads a second
        if (!(duration >= 0.1 && duration <= 86_400) || !(warmup >= 0 && warmup <= 3600)) {
            throw new UsageError("--duration must be 0.1 to 86400 seconds and --warmup 0 to 3600 (got --duration "
                    + duration + ", --warmup " + warmup + ")");
        }
        if (!List.of("keep", "warm", "cold").contains(cache)) {
            throw new UsageError("--cache must be keep, warm or cold, not '" + cache + "'");
        }
        if (strategies.stream().allMatch(String::isBlank)) {
            // "-s ," ran nothing and exited 0
            throw new UsageError("-s '" + String.join(",", strategies) + "' names no strategy (known: "
                    + String.join(", ", STRATEGIES.keySet()) + ")");
        }
        List<ReadStrategy> chosen = new ArrayList<>();
        for (String s : strategies.stream().filter(w -> !w.isBlank()).toList()) {
            Supplier<ReadStrategy> sup = STRATEGIES.get(s);
            if (sup == null) {
                throw new UsageError("unknown strategy '" + s + "' (known: " + String.join(", ", STRATEGIES.keySet()) + ")");
            }
            chosen.add(sup.get());
            // one ring holds them all: a ring has at most 32768 entries, and the async strategies' rings twice the
            // depth (-d 65536 reached io_uring_setup's EINVAL)
            int most = s.equals("ring") ? 32768 : s.startsWith("async") || s.equals("jasyncfio") ? 16384 : 1_000_000;
            if (depth > most) {
                throw new UsageError("--depth " + depth + " is too deep for " + s + ": at most " + most
                        + " (one ring holds them)");
            }
        }
        DataSet ds = DataSet.load(dir);
        ReadConfig cfg = new ReadConfig(threads, depth, direct, seed);
        Corruption corruption = new Corruption();
        List<Result> rows = new ArrayList<>();
        String cacheState = null;
        for (ReadStrategy s : chosen) {
            String why = s.unsupported(cfg);
            if (why != null) {
                System.out.println(s.name() + ": skipped: " + why);
                continue;
            }
            prepareCache(ds, cache);
            double resident = PageCache.residentFraction(files(ds));
            cacheState = PageCache.describe(resident);
            Result r = ReadRun.run(ds, s, cfg, (long) (warmup * 1e9), (long) (duration * 1e9), corruption, quiet);
            r.param("cache_before", cacheState);
            rows.add(r);
            System.out.println(format(r));
        }
        ResultFile.conclude("read", dir, cacheState, rows, json);
        if (corruption.count() > 0) {
            System.err.println("uring4j-bench read: " + corruption.count() + " reads returned wrong data:");
            for (String e : corruption.examples()) {
                System.err.println("  " + e);
            }
            return 1;
        }
        return 0;
    }

    static List<Path> files(DataSet ds) {
        List<Path> l = new ArrayList<>();
        for (int f = 0; f < ds.files(); f++) {
            l.add(ds.file(f));
        }
        return l;
    }

    /** Puts the data set in the requested page-cache state. */
    public static void prepareCache(DataSet ds, String cache) throws IOException {
        switch (cache) {
            case "cold" -> {
                for (int f = 0; f < ds.files(); f++) {
                    RingFiles.dropFromPageCache(ds.file(f));
                }
            }
            case "warm" -> {
                ByteBuffer bb = ByteBuffer.allocateDirect(1 << 20);
                for (int f = 0; f < ds.files(); f++) {
                    try (FileChannel ch = FileChannel.open(ds.file(f), StandardOpenOption.READ)) {
                        long pos = 0;
                        int n;
                        while ((n = ch.read(bb.clear(), pos)) > 0) {
                            pos += n;
                        }
                    }
                }
            }
            default -> {
            }
        }
    }

    /** One line per row: rate, CPU, percentiles in microseconds. */
    public static String format(Result r) {
        Map<String, Double> m = r.metrics;
        return String.format(Locale.ROOT,
                "%-17s threads=%d depth=%-4s %,12.0f reads/s %8.1f MiB/s  cpu %.2f s (%.2f cores, %.2f us/read)  "
                        + "latency us p50 %.1f p90 %.1f p99 %.1f p999 %.1f p9999 %.1f max %.1f",
                r.strategy, Integer.parseInt(r.params.get("threads")), r.params.get("depth"), m.get("ops_per_s"),
                m.get("mib_per_s"), m.get("cpu_s"), m.get("cpu_cores"), m.get("cpu_us_per_op"), m.get("p50_ns") / 1e3,
                m.get("p90_ns") / 1e3, m.get("p99_ns") / 1e3, m.get("p999_ns") / 1e3, m.get("p9999_ns") / 1e3,
                m.get("max_ns") / 1e3)
                + (m.containsKey("served") ? String.format(Locale.ROOT,
                        "  carriers %.0f, workers that read %.0f of %s, from ready: p50 %.1f p99 %.1f ms", m.get("carriers"),
                        m.get("served"), r.params.get("workers"), m.get("waited_p50_ns") / 1e6,
                        m.get("waited_p99_ns") / 1e6) : "");
    }
}
