package io.github.uring4j.bench.fio;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.Environment;
import io.github.uring4j.bench.common.PageCache;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.bench.data.Corruption;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.bench.data.GenerateCommand;
import io.github.uring4j.bench.read.ReadCommand;
import io.github.uring4j.bench.read.ReadConfig;
import io.github.uring4j.bench.read.ReadRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fio}: the same random-read workload through fio and through uring4j, side by side, with the ratio. */
@Command(name = "fio", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Random 4 KiB reads of a data set through fio (io_uring, psync, mmap engines) and through the "
                + "matching uring4j strategy (ring, channel, mmap) with the same depth, threads and duration; prints both and the ratio.")
public final class FioCommand implements Callable<Integer> {

    @Option(names = "--dir", description = "Data set directory (default: ${DEFAULT-VALUE}).")
    Path dir = GenerateCommand.defaultDir();

    @Option(names = "--engine", split = ",", description = "fio engines: io_uring, psync, mmap (default: io_uring,psync).")
    List<String> engines = List.of("io_uring", "psync");

    @Option(names = {"-d", "--depth"}, description = "Queue depth for io_uring (default: ${DEFAULT-VALUE}).")
    int depth = 32;

    @Option(names = {"-t", "--threads"}, description = "Threads / fio jobs (default: ${DEFAULT-VALUE}).")
    int threads = 1;

    @Option(names = "--duration", description = "Seconds per run (default: ${DEFAULT-VALUE}).")
    double duration = 5;

    @Option(names = "--direct", description = "O_DIRECT on both sides (mmap is skipped).")
    boolean direct;

    @Option(names = "--cache", description = "keep, warm or cold before each run (default: ${DEFAULT-VALUE}).")
    String cache = "warm";

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        if (!(duration >= 0.1 && duration <= 86_400) || depth < 1 || depth > 32768 || threads < 1 || threads > 1024) {
            throw new UsageError("--duration must be 0.1 to 86400 seconds, --depth 1 to 32768 (io_uring's entries per"
                    + " ring), --threads 1 to 1024 (got --duration " + duration + ", --depth " + depth + ", --threads " + threads
                    + ")");
        }
        if (!List.of("keep", "warm", "cold").contains(cache)) {
            throw new UsageError("--cache must be keep, warm or cold, not '" + cache + "'");
        }
        String fio = Fio.find();
        if (fio == null) {
            throw new UsageError("fio is not installed (apt-get install fio)");
        }
        DataSet ds = DataSet.load(dir);
        List<Result> rows = compare(fio, ds, engines, depth, threads, duration, direct, cache, quiet, true);
        Environment env = Environment.capture(dir, rows.isEmpty() ? null : rows.get(0).params.get("cache_before"));
        System.out.println("# " + env.oneLine() + "; " + Fio.version(fio));
        if (json != null) {
            new ResultFile("fio", env, rows).write(json);
        }
        return 0;
    }

    /** fio and uring4j per engine, alternating; returns all rows, and prints each pair with the ratio if asked. */
    public static List<Result> compare(String fio, DataSet ds, List<String> engines, int depth, int threads,
                                       double duration, boolean direct, String cache, boolean quiet, boolean printRows)
            throws Exception {
        List<Result> rows = new ArrayList<>();
        for (String engine : engines) {
            String ours = Fio.ours().get(engine);
            if (ours == null) {
                throw new UsageError("unknown fio engine '" + engine + "' (known here: io_uring, psync, mmap)");
            }
            if (direct && engine.equals("mmap")) {
                continue;
            }
            ReadCommand.prepareCache(ds, cache);
            String state = PageCache.describe(PageCache.residentFraction(files(ds)));
            Result f = Fio.randomRead(fio, ds, engine, depth, threads, duration, direct);
            f.param("cache_before", state);
            rows.add(f);
            List<Result> mine = new ArrayList<>();
            // ours as fio runs (no check of the data), then verified; beside fio's io_uring on cached data also the
            // async API, unverified as fio is (its verified row is in the report's read sections)
            List<String> strategies = new ArrayList<>(List.of(ours, ours));
            if (engine.equals("io_uring") && !direct) {
                strategies.add("async");
            }
            for (int k = 0; k < strategies.size(); k++) {
                String st = strategies.get(k);
                boolean verify = k == 1;
                ReadCommand.prepareCache(ds, cache);
                ReadConfig cfg = new ReadConfig(threads, engine.equals("io_uring") ? depth : 1, direct, 42, verify);
                Corruption c = new Corruption();
                Result r = ReadRun.run(ds, ReadCommand.STRATEGIES.get(st).get(), cfg, 1_000_000_000L,
                        (long) (duration * 1e9), c, quiet);
                if (c.count() > 0) {
                    throw new IllegalStateException(st + ": " + c.count() + " reads returned wrong data");
                }
                r.strategy = "uring4j " + st + (verify ? " (verified)" : "");
                r.param("cache_before", state);
                r.metric("ratio_vs_fio", r.primaryValue() / f.primaryValue());
                rows.add(r);
                mine.add(r);
            }
            Result again = null;
            if (direct) {
                // The device's rate drifts over seconds on a shared host: fio runs once more after ours, and ours is
                // compared with the mean of the two fio runs around it.
                ReadCommand.prepareCache(ds, cache);
                again = Fio.randomRead(fio, ds, engine, depth, threads, duration, direct);
                again.strategy = f.strategy + " (again, after uring4j)";
                again.param("cache_before", PageCache.describe(PageCache.residentFraction(files(ds))));
                again.metric("ratio_vs_fio", again.primaryValue() / f.primaryValue());
                rows.add(again);
                double mean = (f.primaryValue() + again.primaryValue()) / 2;
                for (Result r : mine) {
                    r.metric("ratio_vs_fio", r.primaryValue() / mean);
                }
            }
            if (printRows) {
                System.out.println(line(f));
                for (Result r : mine) {
                    System.out.println(line(r));
                }
                if (again != null) {
                    System.out.println(line(again));
                }
            }
        }
        return rows;
    }

    private static List<Path> files(DataSet ds) {
        List<Path> l = new ArrayList<>();
        for (int i = 0; i < ds.files(); i++) {
            l.add(ds.file(i));
        }
        return l;
    }

    static String line(Result r) {
        Double ratio = r.metrics.get("ratio_vs_fio");
        return String.format(Locale.ROOT, "%-28s depth=%-4s %,12.0f reads/s  cpu %.2f us/read  p50 %.1f us  p99 %.1f us%s",
                r.strategy, r.params.get("depth"), r.primaryValue(), r.metrics.getOrDefault("cpu_us_per_op", Double.NaN),
                r.metrics.getOrDefault("p50_ns", Double.NaN) / 1e3, r.metrics.getOrDefault("p99_ns", Double.NaN) / 1e3,
                ratio == null ? "" : String.format(Locale.ROOT, "   ratio %.2f x fio", ratio));
    }
}
