package io.github.uring4j.bench.lucene;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.ChildJava;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lucene}: Apache Lucene, unchanged ({@link LuceneWorkload}), on the JDK's built-in provider and on
 * {@code UringFileSystemProvider} (named by {@code -Djava.nio.file.spi.DefaultFileSystemProvider}), each in a JVM of
 * its own and taking turns, the first of a round alternating: indexing (from opening the writer to its last commit)
 * and queries, with {@code NIOFSDirectory} and with {@code MMapDirectory}, each directory in JVMs of its own as well,
 * as a program uses one. One after the other in a JVM, the first moved the second's rate (most likely through what
 * the JIT compiled; the exact mechanism was not found): the uring4j provider's {@code MMapDirectory} queries ran at
 * 0.70-0.89 times the built-in provider's in 11 of 13 such runs of a day, and at 0.99-1.13 times in runs where the
 * {@code NIOFSDirectory} before them read through system calls instead of a mapping. {@code --one-jvm} measures
 * that case. Every result the workload prints (the
 * index check, hit counts, top documents, scores, stored fields) must be the same in every run, or the command fails.
 */
@Command(name = "lucene", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Apache Lucene, unchanged, indexing and searching on the built-in provider and on "
                + "UringFileSystemProvider, each in its own JVM, taking turns: documents indexed per second and queries "
                + "per second, NIOFSDirectory and MMapDirectory, each directory in JVMs of its own too. Fails unless every "
                + "run finds the same results.")
public final class LuceneCommand implements Callable<Integer> {
    static final String BUILTIN = ChildJava.BUILTIN;
    static final String URING = ChildJava.URING;
    private static final long SEED = 20261122L;
    private static final long CHILD_TIMEOUT_SECONDS = 600;

    @Option(names = "--dir", description = "Directory for the indexes (default: ${DEFAULT-VALUE}).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-lucene");

    @Option(names = "--docs", description = "Documents in the corpus (default: ${DEFAULT-VALUE}).")
    int docs = 5000;

    @Option(names = "--queries", description = "Rounds of the query set timed in each run, after half as many "
            + "untimed (default: ${DEFAULT-VALUE}).")
    int queries = 100;

    @Option(names = "--rounds", description = "Rounds; each runs both providers once with each directory (default: ${DEFAULT-VALUE}).")
    int rounds = 2;

    @Option(names = "--warm-up", description = "Documents indexed (and searched) untimed first in each JVM, on another "
            + "corpus, so that the timed indexing is not mostly the JIT at work (default: half of --docs).")
    Integer warmUp;

    @Option(names = "--one-jvm", description = "Both directories in one JVM, NIOFSDirectory first, as a program that "
            + "uses both would (Elasticsearch's hybridfs does): the second's rate then depends on the first's.")
    boolean oneJvm;

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        List<Result> rows = run();
        System.out.print(table(rows));
        ResultFile.conclude("lucene", dir, "page cache (indexes written in the run)", rows, json);
        return 0;
    }

    /** What one child JVM printed: its results (to compare) and its figures. */
    private record Run(List<String> results, Map<String, long[]> timings, String stats) {
    }

    /** Runs both providers with each directory {@link #rounds} times and returns the median rows (a line on stderr per run). */
    public List<Result> run() throws Exception {
        int warm = warmUp == null ? docs / 2 : warmUp;
        if (docs < 100 || docs > 10_000_000 || queries < 2 || rounds < 1 || warm < 0 || warm > 10_000_000) {
            throw new UsageError("--docs must be 100 to 10,000,000, --queries at least 2, --rounds at least 1, "
                    + "--warm-up 0 to 10,000,000 (got --docs " + docs + ", --queries " + queries + ", --rounds " + rounds
                    + ", --warm-up " + warm + ")");
        }
        Files.createDirectories(dir);
        Map<String, List<Run>> runs = new LinkedHashMap<>(); // by provider and directory: "builtin provider|nio"
        Map<String, List<String>> expected = new LinkedHashMap<>(); // by directory
        long start = System.nanoTime();
        // Every run's index stays until the last run has ended. Deleted right after its run, the next run paid for it:
        // ext4 passes over the inodes deleted in the last minutes when it allocates one, and 3,000 files made with
        // Files.newOutputStream took 90 ms or 2.9 s depending on the deletions before (either provider alike; in a
        // profile of indexing, opening new files took 2.4 times as long in the run that followed a deletion). With
        // the indexes deleted between runs, indexing on the provider ran at 0.85-0.91 times the built-in provider's
        // rate in four runs of this command (NIOFS and MMap rows); with all of them kept, at 0.89-1.08 in two, and at
        // 1.07 in six runs by hand after a minute without deletions (medians): the rows still move by a tenth.
        List<Path> made = new ArrayList<>();
        try {
            runAll(runs, expected, made, warm, start);
        } finally {
            for (Path p : made) {
                io.github.uring4j.bench.common.Trees.delete(p);
            }
        }
        return rows(runs);
    }

    private void runAll(Map<String, List<Run>> runs, Map<String, List<String>> expected, List<Path> made, int warm,
            long start) throws Exception {
        for (int round = 0; round < rounds; round++) {
            List<String> order = round % 2 == 0 ? List.of(BUILTIN, URING) : List.of(URING, BUILTIN);
            for (List<String> kinds : oneJvm ? List.of(KINDS) : KINDS.stream().map(List::of).toList()) {
                String names = String.join(" and ", kinds.stream().map(LuceneCommand::directory).toList());
                for (String which : order) {
                    if (!quiet) {
                        System.err.printf(Locale.ROOT, "lucene: %.0fs elapsed, round %d of %d, %s, %s: %,d documents%n",
                                (System.nanoTime() - start) / 1e9, round + 1, rounds, which, names, docs);
                    }
                    Path indexDir = dir.resolve("r" + round + "-" + String.join("-", kinds) + "-"
                            + (which.equals(URING) ? "uring4j" : "builtin"));
                    made.add(indexDir);
                    Run r = child(which, kinds, indexDir, warm);
                    for (String kind : kinds) {
                        List<String> got = r.results.stream().filter(l -> l.startsWith(kind + " ")).toList();
                        List<String> want = expected.putIfAbsent(kind, got);
                        if (want != null && !want.equals(got)) {
                            throw new IllegalStateException("Lucene found different results on the " + which + " with "
                                    + directory(kind) + " (round " + (round + 1) + "): first difference "
                                    + firstDifference(want, got));
                        }
                        runs.computeIfAbsent(which + "|" + kind, k -> new ArrayList<>()).add(r);
                    }
                }
            }
        }
    }

    /** The median rows of the runs. */
    private List<Result> rows(Map<String, List<Run>> runs) {
        List<Result> rows = new ArrayList<>();
        for (String kind : KINDS) {
            String directory = directory(kind);
            for (boolean indexing : new boolean[] {true, false}) {
                for (String which : List.of(BUILTIN, URING)) {
                    List<Run> these = runs.get(which + "|" + kind);
                    double[] rates = these.stream().mapToDouble(r -> {
                        long[] t = r.timings.get(kind);
                        return indexing ? t[0] / (t[1] / 1e9) : t[2] / (t[3] / 1e9);
                    }).sorted().toArray();
                    String metric = indexing ? "docs_per_s" : "queries_per_s";
                    Result row = new Result("lucene", which)
                            .param("category", directory + (indexing ? " indexing" : " queries"))
                            .param("docs", docs).param("runs", rates.length)
                            .metric(metric, median(rates)).metric("min", rates[0]).metric("max", rates[rates.length - 1])
                            .primary(metric, indexing ? "docs/s" : "queries/s");
                    if (which.equals(URING)) {
                        row.param("stats", these.get(these.size() - 1).stats);
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** The directories, each run in JVMs of its own. */
    private static final List<String> KINDS = List.of("nio", "mmap");

    private static String directory(String kind) {
        return kind.equals("nio") ? "NIOFSDirectory" : "MMapDirectory";
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String firstDifference(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!a.get(i).equals(b.get(i))) {
                return "\"" + a.get(i) + "\" against \"" + b.get(i) + "\"";
            }
        }
        return a.size() + " results against " + b.size();
    }

    /** Runs the workload with {@code kinds} in a JVM of its own (this one's launcher and class path) on one provider. */
    private Run child(String which, List<String> kinds, Path indexDir, int warm)
            throws IOException, InterruptedException {
        io.github.uring4j.bench.common.Trees.delete(indexDir);
        List<String> cmd = ChildJava.java(which);
        cmd.add("-XX:+UseParallelGC");
        // the heap sized by the JVM, not bin/uring4j-bench's fixed young generation: with it, indexing on the
        // provider ran at 0.80-1.13 times the built-in provider's in four runs, without it 0.92-1.19
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LuceneWorkload.class.getName(),
                indexDir.toString(), String.valueOf(docs), String.valueOf(SEED), String.valueOf(queries),
                String.valueOf(warm), String.join(",", kinds)));
        ChildJava.Ended p = ChildJava.run(cmd, CHILD_TIMEOUT_SECONDS, "Lucene on the " + which);
        List<String> lines = p.lines();
        if (p.exit() != 0) {
            throw new IOException("Lucene on the " + which + " failed with exit status " + p.exit() + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
        }
        String provider = ChildJava.providerClass(which);
        if (!lines.contains("PROVIDER " + provider)) {
            throw new IOException("Lucene on the " + which + " did not run on " + provider + ": " + lines);
        }
        List<String> results = new ArrayList<>();
        Map<String, long[]> timings = new LinkedHashMap<>();
        String stats = "";
        for (String l : lines) {
            if (l.contains(" RESULT ")) {
                results.add(l);
            } else if (l.contains(" TIMING ")) {
                timings.put(l.substring(0, l.indexOf(' ')), new long[] {field(l, "indexed"), field(l, "index_ns"),
                    field(l, "queries"), field(l, "query_ns")});
            } else if (l.startsWith("STATS ")) {
                stats = l.substring(6);
            }
        }
        if (!timings.keySet().equals(java.util.Set.copyOf(kinds)) || results.isEmpty()) {
            throw new IOException("Lucene on the " + which + " printed no results or timings: " + lines);
        }
        return new Run(results, timings, stats);
    }

    private static long field(String line, String name) {
        return Arrays.stream(line.split(" ")).filter(w -> w.startsWith(name + "=")).findFirst()
                .map(w -> Long.parseLong(w.substring(name.length() + 1)))
                .orElseThrow(() -> new IllegalStateException("no " + name + " in " + line));
    }

    /** The rows as a plain-text table. */
    public static String table(List<Result> rows) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-26s %-18s %16s%n", "case", "strategy", "rate"));
        for (Result r : rows) {
            b.append(String.format(Locale.ROOT, "%-26s %-18s %,12.0f %s%n", r.params.get("category"), r.strategy,
                    r.primaryValue(), r.primaryUnit));
        }
        return b.toString();
    }
}
