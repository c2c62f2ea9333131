package io.github.uring4j.bench.report;

import io.github.uring4j.bench.common.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The claims of docs/benchmarks.md that the sections at hand can answer, as measured ratios: a row per target with
 * the ratio, the goal and whether it was met. Targets whose rows are absent are left out.
 */
public final class Targets {

    private Targets() {
    }

    public static List<List<String>> table(List<Section> sections) {
        List<List<String>> out = new ArrayList<>();
        out.add(List.of("target", "measured", "goal", "met"));
        Result fioCached = find(sections, s -> s.title.startsWith("fio") && s.title.contains("page cache"), "fio io_uring", null);
        Result ringCached = find(sections, s -> s.title.startsWith("fio") && s.title.contains("page cache"), "uring4j ring", null);
        add(out, "ring API, cached 4 KiB random read, 1 thread, depth 32, vs fio io_uring (fio harness, not t/io_uring)",
                ratio(ringCached, fioCached), 0.95);
        Result fioDirect = find(sections, s -> s.title.startsWith("fio") && s.title.contains("O_DIRECT"), "fio io_uring", null);
        Result ringDirect = find(sections, s -> s.title.startsWith("fio") && s.title.contains("O_DIRECT"), "uring4j ring", null);
        add(out, "ring API, O_DIRECT 4 KiB random read, 1 thread, depth 128, vs fio io_uring (the mean of a fio run"
                + " before and one after)", ringDirect != null && ringDirect.metrics.containsKey("ratio_vs_fio")
                ? ringDirect.metrics.get("ratio_vs_fio") : ratio(ringDirect, fioDirect), 0.97);
        Result async = find(sections, s -> s.title.startsWith("fio") && !s.title.contains("O_DIRECT"), "uring4j async", null);
        add(out, "async API, cached 4 KiB random read, 1 loop, depth 32, vs fio io_uring (neither checks the data)",
                ratio(async, fioCached), 0.8);
        Predicate<Section> cached1 = s -> s.title.equals("Random 4 KiB reads, page cache, 1 thread");
        add(out, "async API, cached 4 KiB random read, 1 loop, depth 32, vs jasyncfio 0.0.7 (both check every block)",
                ratio(find(sections, cached1, "async", null), find(sections, cached1, "jasyncfio", null)), 2.0);
        Result jdkVt = find(sections, s -> s.title.contains("virtual threads, O_DIRECT"), "channel-vthreads", null);
        Result ourVt = find(sections, s -> s.title.contains("virtual threads, O_DIRECT"), "async-vthreads", null);
        if (jdkVt != null && ourVt != null) {
            double cores = Runtime.getRuntime().availableProcessors();
            double c = ourVt.metrics.getOrDefault("carriers", Double.NaN);
            out.add(List.of("many virtual threads, uncached 4 KiB random reads: async API blocking on virtual threads vs JDK FileChannel"
                            + " (carriers: ours " + Render.num(c, 0) + ", JDK " + Render.num(jdkVt.metrics.getOrDefault("carriers", Double.NaN), 0) + ")",
                    times(ratio(ourVt, jdkVt), 1.0), "≥ 1.00×, carriers ≤ cores",
                    ratio(ourVt, jdkVt) >= 1 && c <= cores ? "yes" : "no"));
        }
        for (String st : new String[] {"async-vthreads", "dropin-vthreads"}) {
            Result ours = find(sections, s -> s.title.contains("virtual threads, O_DIRECT"), st, null);
            if (jdkVt == null || ours == null || !ours.metrics.containsKey("waited_p99_ns")) {
                continue;
            }
            // Latency: "lower is better", so the ratio is the JDK's over ours. Measured at the call, the JDK's
            // median leaves out its threads that wait unmounted for a carrier; measured from the moment a thread is
            // ready, they count.
            out.add(latency(st + ": median read latency measured at the call, vs the JDK's virtual threads",
                    jdkVt.metrics.get("p50_ns"), ours.metrics.get("p50_ns")));
            out.add(latency(st + ": p99 latency from a thread being ready (waits for a carrier included), vs the JDK's",
                    jdkVt.metrics.get("waited_p99_ns"), ours.metrics.get("waited_p99_ns")));
        }
        Predicate<Section> carriers = s -> s.title.equals(ReportCommand.CARRIERS);
        add(out, "virtual threads writing to a file whose inode lock a 64 MiB write holds: another virtual thread's 1 ms"
                + " ticks run, drop-in FileChannel vs the JDK's",
                ratio(find(sections, carriers, "uring4j", io.github.uring4j.bench.carriers.CarriersCommand.TICKS),
                        find(sections, carriers, "jdk", io.github.uring4j.bench.carriers.CarriersCommand.TICKS)), 1.0);
        Predicate<Section> sync = s -> s.title.startsWith("JMH SyncWriteBenchmark");
        add(out, "synced 4 KiB log records, AsyncFile.writeAndSync one at a time vs FileChannel write + force(false)",
                ratio(find(sections, sync, "asyncWriteAndSync", null), find(sections, sync, "channelWriteForce", null)),
                1.0);
        add(out, "synced 4 KiB log records, writeAndSync 8 in flight (one thread) vs write + force(false) from 8 threads",
                ratio(find(sections, sync, "asyncWriteAndSyncEightInFlight", null),
                        find(sections, sync, "channelWriteForceEightThreads", null)), 1.0);
        add(out, "synced 4 KiB log records to an O_DIRECT file, writeAndSync 8 in flight (one thread) vs write +"
                + " force(false) from 8 threads", ratio(find(sections, sync, "asyncWriteAndSyncEightInFlightDirect", null),
                        find(sections, sync, "channelWriteForceEightThreadsDirect", null)), 1.0);
        Predicate<Section> one = s -> s.title.startsWith("JMH OneAtATimeBenchmark");
        add(out, "one cached 4 KiB read at a time from a platform thread: AsyncFile read + join() vs the JDK's"
                + " AsynchronousFileChannel read + get()", ratio(find(sections, one, "readAsyncFile", null),
                        find(sections, one, "readJdkAsynchronousFileChannel", null)), 1.0);
        add(out, "one cached 4 KiB read at a time from a platform thread: uring4j's AsynchronousFileChannel vs the JDK's",
                ratio(find(sections, one, "readUringAsynchronousFileChannel", null),
                        find(sections, one, "readJdkAsynchronousFileChannel", null)), 1.0);
        add(out, "one file at a time from a platform thread, open + 4 KiB read + close: AsyncFile vs the JDK's"
                + " AsynchronousFileChannel", ratio(find(sections, one, "openReadCloseAsyncFile", null),
                        find(sections, one, "openReadCloseJdkAsynchronousFileChannel", null)), 1.0);
        add(out, "one file at a time from a platform thread, open + 4 KiB read + close: uring4j's"
                + " AsynchronousFileChannel vs the JDK's", ratio(find(sections, one,
                        "openReadCloseUringAsynchronousFileChannel", null),
                        find(sections, one, "openReadCloseJdkAsynchronousFileChannel", null)), 1.0);
        Predicate<Section> drop = s -> s.title.startsWith("FileChannel drop-in");
        add(out, "drop-in FileChannel, cached 4 KiB random read, 1 thread, direct buffer, vs the JDK's FileChannel",
                ratio(find(sections, drop, "dropin", null), find(sections, drop, "channel", null)), 1.2);
        add(out, "drop-in FileChannel, cached 4 KiB random read, 1 thread, heap buffer, vs the JDK's FileChannel",
                ratio(find(sections, drop, "dropin-heap", null), find(sections, drop, "channel-heap", null)), 1.2);
        add(out, "drop-in FileChannel reading from a mapping (opt-in -During4j.mappedReads=true, for files nobody shrinks),"
                + " cached 4 KiB random read, 1 thread, direct buffer, vs the JDK's FileChannel",
                ratio(find(sections, drop, "dropin-mapped", null), find(sections, drop, "channel", null)), 1.2);
        Result dropVt = find(sections, s -> s.title.contains("virtual threads, O_DIRECT"), "dropin-vthreads", null);
        if (jdkVt != null && dropVt != null) {
            double cores = Runtime.getRuntime().availableProcessors();
            double c = dropVt.metrics.getOrDefault("carriers", Double.NaN);
            out.add(List.of("many virtual threads, uncached 4 KiB random reads: drop-in FileChannel vs the JDK's"
                            + " (carriers: ours " + Render.num(c, 0) + ", JDK "
                            + Render.num(jdkVt.metrics.getOrDefault("carriers", Double.NaN), 0) + ")",
                    times(ratio(dropVt, jdkVt), 1.0), "≥ 1.00×, carriers ≤ cores",
                    ratio(dropVt, jdkVt) >= 1 && c <= cores ? "yes" : "no"));
        }
        for (String st : new String[] {"ring", "async"}) {
            Result worst = null;
            double worstRatio = Double.NaN;
            for (Section s : sections) {
                if (!s.title.startsWith("Load types")) {
                    continue;
                }
                for (Result r : s.rows) {
                    Result ch = r.strategy.equals(st) ? find(sections, x -> x == s, "channel", r.params.get("category")) : null;
                    double q = ratio(r, ch);
                    if (!Double.isNaN(q) && (Double.isNaN(worstRatio) || q < worstRatio)) {
                        worstRatio = q;
                        worst = r;
                    }
                }
            }
            if (worst != null) {
                add(out, "load types (page cache), " + (st.equals("ring") ? "ring API" : "async API") + " vs FileChannel,"
                        + " worst case (" + worst.params.get("category") + ")", worstRatio, 1.0);
            }
        }
        Predicate<Section> sum = s -> s.title.startsWith("Checksum of many small files");
        for (Section s : sections) {
            if (!sum.test(s)) {
                continue;
            }
            for (Result r : s.rows) {
                if (r.strategy.startsWith("uring4j")) {
                    add(out, "checksum of small files, 64 in flight, " + r.strategy.substring(8)
                            + " vs FileChannel on virtual threads", ratio(r, find(sections, sum,
                            "jdk FileChannel, virtual threads", null)), 1.2);
                }
            }
        }
        Predicate<Section> small = s -> s.title.startsWith("Small files through the drop-ins");
        add(out, "drop-ins: Files.readAllBytes of small (4-64 KiB) cached files vs the JDK",
                ratio(find(sections, small, "uring4j", "readAllBytes 4-64 KiB"), find(sections, small, "jdk",
                        "readAllBytes 4-64 KiB")), 1.3);
        add(out, "drop-ins: FileChannel open + read + close of 4 KiB vs the JDK",
                ratio(find(sections, small, "uring4j", "open+read+close 4 KiB"), find(sections, small, "jdk",
                        "open+read+close 4 KiB")), 1.3);
        for (Section s : sections) {
            if (!s.title.startsWith("Whole-file copies")) {
                continue;
            }
            for (Result r : s.rows) {
                boolean asyncFile = r.strategy.equals("uring4j AsyncFile.transferTo");
                if (!r.strategy.equals("uring4j transferTo") && !asyncFile) {
                    continue;
                }
                String c = r.params.get("category");
                Result a = find(sections, x -> x == s, "jdk transferTo", c);
                Result b = find(sections, x -> x == s, "jdk Files.copy", c);
                double best = Math.max(a == null ? 0 : a.primaryValue(), b == null ? 0 : b.primaryValue());
                if (best > 0) {
                    add(out, (asyncFile ? "AsyncFile.transferTo: " : "drop-ins: ") + c + ", transferTo vs the best JDK way",
                            r.primaryValue() / best, 1.0);
                }
            }
        }
        for (String what : new String[] {"indexing", "queries"}) {
            Predicate<Section> lucene = s -> s.title.startsWith("Apache Lucene on the provider: " + what);
            for (String directory : new String[] {"NIOFSDirectory", "MMapDirectory"}) {
                String c = directory + " " + what;
                add(out, "Apache Lucene, unchanged, " + c + " on the provider vs the built-in provider (no regression)",
                        ratio(find(sections, lucene, "uring4j provider", c), find(sections, lucene, "builtin provider", c)),
                        1.0);
            }
        }
        Predicate<Section> startup = s -> s.title.equals(ReportCommand.STARTUP);
        String run200 = io.github.uring4j.bench.startup.StartupCommand.wholeRun(200);
        Result ours200 = find(sections, startup, "uring4j provider", run200);
        Double byJdk = ours200 == null ? null : ours200.metrics.get("by_jdk_per_run");
        add(out, "a program with 200 ms of start-up work of its own, then a first read and write: its whole JVM run on"
                + " the provider vs the built-in provider" + (byJdk == null ? "" : String.format(Locale.ROOT,
                        " (of the two calls, %.1f a run were the JDK's, made while uring4j linked its calls)", byJdk)),
                ratio(ours200, find(sections, startup, "builtin provider", run200)), 0.95);
        for (String threads : new String[] {"1 thread", "2 threads"}) {
            Predicate<Section> read = s -> s.title.startsWith("JMH JUringReadBenchmark") && s.title.endsWith(", " + threads);
            double worst = worstRatio(sections, read, "registeredFiles", "preOpenedFileChannels");
            add(out, "JUring random read, registered files vs pre-opened FileChannels, worst buffer size, " + threads, worst, 1.0);
            Result orc = find(sections, read, "ringOpenReadClose", "bufferSize=4096");
            Result fcorc = find(sections, read, "fileChannelOpenReadClose", "bufferSize=4096");
            add(out, "open + read + close 4 KiB, ring vs FileChannel, " + threads, ratio(orc, fcorc), 1.3);
            Predicate<Section> write = s -> s.title.startsWith("JMH JUringWriteBenchmark") && s.title.endsWith(", " + threads);
            add(out, "JUring random write, registered files vs pre-opened FileChannels, worst buffer size, " + threads,
                    worstRatio(sections, write, "registeredFiles", "preOpenedFileChannels"), 1.0);
        }
        // Allocation (JMH -prof gc): the ring API's single-read and batch rows, the async handler row.
        double ringAlloc = maxMetric(sections, "alloc_b_per_op", "ring", "readBatch");
        if (!Double.isNaN(ringAlloc)) {
            out.add(List.of("allocation, ring API (JMH -prof gc: PageCacheVsDirect ring, RingLoop readBatch)", String.format(Locale.ROOT, "%.1f B/op", ringAlloc),
                    "0 B/op (< 1 after JMH rounding)", ringAlloc < 1 ? "yes" : "no"));
        }
        double asyncAlloc = maxMetric(sections, "alloc_b_per_op", "asyncFileHandler");
        if (!Double.isNaN(asyncAlloc)) {
            out.add(List.of("allocation, async handler API (JMH -prof gc)", String.format(Locale.ROOT, "%.1f B/op", asyncAlloc),
                    "≤ 64 B/op", asyncAlloc <= 64 ? "yes" : "no"));
        }
        return out;
    }

    private static double maxMetric(List<Section> sections, String metric, String... strategies) {
        double max = Double.NaN;
        for (Section s : sections) {
            if (!s.title.startsWith("JMH")) {
                continue;
            }
            for (Result r : s.rows) {
                Double v = r.metrics.get(metric);
                if (v != null && List.of(strategies).contains(r.strategy)) {
                    max = Double.isNaN(max) ? v : Math.max(max, v);
                }
            }
        }
        return max;
    }

    private static void add(List<List<String>> out, String what, double ratio, double goal) {
        if (Double.isNaN(ratio)) {
            return;
        }
        out.add(List.of(what, times(ratio, goal), String.format(Locale.ROOT, "≥ %.2f×", goal),
                ratio >= goal ? "yes" : "no"));
    }

    /**
     * A ratio as the table shows it: two decimals, or three where two would round a miss up to the goal (0.948
     * against 0.95 read "0.95×, no").
     */
    static String times(double ratio, double goal) {
        String two = String.format(Locale.ROOT, "%.2f×", ratio);
        return ratio < goal && two.equals(String.format(Locale.ROOT, "%.2f×", goal))
                ? String.format(Locale.ROOT, "%.3f×", ratio) : two;
    }

    /** A latency claim: the JDK's latency over ours (above 1: ours is shorter), goal at least as short. */
    private static List<String> latency(String what, double jdk, double ours) {
        double r = jdk / ours;
        return List.of(what + " (ours " + Render.num(ours / 1e6, 1) + " ms, JDK " + Render.num(jdk / 1e6, 1) + " ms)",
                times(r, 1.0), "≥ 1.00×", r >= 1 ? "yes" : "no");
    }

    private static double ratio(Result a, Result b) {
        return a == null || b == null ? Double.NaN : Render.ratio(a, b);
    }

    private static Result find(List<Section> sections, Predicate<Section> which, String strategy, String category) {
        for (Section s : sections) {
            if (!which.test(s)) {
                continue;
            }
            for (Result r : s.rows) {
                if (r.strategy.equals(strategy) && (category == null || category.equals(r.params.get("category")))) {
                    return r;
                }
            }
        }
        return null;
    }

    /** The smallest a/b over the cases of the matching sections. */
    private static double worstRatio(List<Section> sections, Predicate<Section> which, String a, String b) {
        double worst = Double.NaN;
        for (Section s : sections) {
            if (!which.test(s)) {
                continue;
            }
            for (Result ra : s.rows) {
                if (!ra.strategy.equals(a)) {
                    continue;
                }
                for (Result rb : s.rows) {
                    if (rb.strategy.equals(b) && rb.params.get("category").equals(ra.params.get("category"))) {
                        double r = Render.ratio(ra, rb);
                        worst = Double.isNaN(worst) ? r : Math.min(worst, r);
                    }
                }
            }
        }
        return worst;
    }
}
