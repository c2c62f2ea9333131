package io.github.uring4j.bench.report;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.Environment;
import io.github.uring4j.bench.common.PageCache;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.bench.data.Corruption;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.bench.data.Generator;
import io.github.uring4j.bench.fio.Fio;
import io.github.uring4j.bench.fio.FioCommand;
import io.github.uring4j.bench.read.ReadCommand;
import io.github.uring4j.bench.read.ReadConfig;
import io.github.uring4j.bench.read.ReadRun;
import io.github.uring4j.bench.read.ReadStrategy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code report}: runs a compact suite on generated data (or collects earlier JSON results) and writes
 * {@code report.md}, {@code report.html}, the charts and the rows as JSON.
 */
@Command(name = "report", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Run a compact benchmark suite on generated data in a temporary directory (or collect earlier "
                + "--json results) and write one Markdown and one HTML page with a table and PNG charts per workload.")
public final class ReportCommand implements Callable<Integer> {

    @Option(names = "--dir", description = "Directory for generated data (default: ${DEFAULT-VALUE}: under /var/tmp where the "
            + "temporary directory is in memory); never inside the repository, and on a disk for uncached reads to mean anything.")
    Path dir = defaultDir();

    /**
     * The temporary directory, unless it is in memory (tmpfs: {@code /tmp} on some distributions), where nothing is
     * ever read from a device and no page can be dropped from a cache: then {@code /var/tmp}, which is kept on disk.
     */
    static Path defaultDir() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path varTmp = Path.of("/var/tmp");
        return inMemory(tmp) && Files.isDirectory(varTmp) && !inMemory(varTmp) ? varTmp.resolve("uring4j-report-data")
                : tmp.resolve("uring4j-report-data");
    }

    /** Whether {@code dir} (or the nearest existing directory above it) is on a file system in memory. */
    public static boolean inMemory(Path dir) {
        Path p = dir.toAbsolutePath();
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        try {
            String type = p == null ? "" : Files.getFileStore(p).type();
            return type.equals("tmpfs") || type.equals("ramfs");
        } catch (IOException e) {
            return false;
        }
    }

    @Option(names = "--out", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("report");

    static final String FILES_SMALL = "Small files through the drop-ins (page cache)";
    static final String FILES_COPY = "Whole-file copies, the JDK, the drop-ins and AsyncFile";
    static final String FILES_SUM = "Checksum of many small files, 64 in flight (page cache)";
    static final String LUCENE_INDEX = "Apache Lucene on the provider: indexing";
    static final String LUCENE_QUERIES = "Apache Lucene on the provider: queries";
    static final String CARRIERS = "Virtual threads beside a writer holding the file's lock";
    static final String STARTUP = "A fresh JVM on the provider: whole runs of a short program";
    static final String STARTUP_READ = "A fresh JVM on the provider: its first read";
    static final String EVERYDAY = "Everyday Files calls on the provider (page cache)";

    @Option(names = "--collect", split = ",", description = "Instead of running, render these result JSON files (or directories of them): "
            + "results.json / --json output of read, loadtypes, fio, report, and JMH's -rf json output.")
    List<Path> collect;

    /** Strategies given an unrecorded JIT pass at the start; their rows then warm up for half as long. */
    private static final List<String> JIT_PASS = List.of("ring", "async", "mmap", "channel");

    @Option(names = "--duration", description = "Measured seconds per read row (default: ${DEFAULT-VALUE}).")
    double duration = 1.5;

    @Option(names = "--quick", description = "Tiny data and one-second rows: checks the pipeline, measures little.")
    boolean quick;

    @Option(names = "--keep-data", description = "Leave the generated data in --dir afterwards.")
    boolean keepData;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        if (!(duration >= 0.1 && duration <= 86400)) {
            // as read's: a report of 0 or -1 s ran the whole suite and printed rows of zeros
            throw new UsageError("--duration " + duration + ": must be 0.1 to 86400 seconds");
        }
        List<Section> sections;
        Environment env;
        List<String> notes = new ArrayList<>();
        if (collect != null) {
            sections = new ArrayList<>();
            env = null;
            for (Path p : expand(collect)) {
                ResultFile rf;
                try {
                    if (JmhResults.isJmh(p)) {
                        sections.addAll(JmhResults.read(p));
                        continue;
                    }
                    rf = ResultFile.read(p);
                } catch (IOException | RuntimeException e) {
                    // a parser's message alone ("Expected BEGIN_OBJECT ...", an EOFException) named no file
                    String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                    throw new UsageError("--collect: " + p + " is not a result file of this tool or of JMH ("
                            + e.getClass().getSimpleName() + ": " + why + ")");
                }
                if (rf == null || rf.results == null) {
                    continue;
                }
                env = env == null ? rf.environment : env;
                Map<String, List<Result>> byWorkload = new LinkedHashMap<>();
                for (Result r : rf.results) {
                    if (r.params.containsKey("load") && !r.params.containsKey("category")) {
                        r.params.put("category", r.params.get("load") + " " + r.params.get("size"));
                    }
                    String w = r.params.containsKey("category") && r.params.containsKey("load") ? "Load types"
                            : r.workload.startsWith("files-checksum") ? FILES_SUM
                            : r.workload.startsWith("files-") ? (r.primaryUnit.equals("GB/s") ? FILES_COPY : FILES_SMALL)
                            : r.workload.equals("lucene") ? (r.primaryUnit.equals("docs/s") ? LUCENE_INDEX : LUCENE_QUERIES)
                            : r.workload.equals("carriers") ? CARRIERS
                            : r.workload.equals("startup") ? (r.primary.equals("runs_per_s") ? STARTUP : STARTUP_READ)
                            : r.workload.equals("everyday") ? EVERYDAY
                            : r.workload;
                    byWorkload.computeIfAbsent(w, k -> new ArrayList<>()).add(r);
                }
                byWorkload.forEach((w, rows) -> sections.add(new Section(w,
                        rows.get(0).command != null ? rows.get(0).command : rf.command, rows)));
            }
            if (sections.isEmpty()) {
                throw new UsageError("no results found in " + collect);
            }
            if (env == null) {
                env = Environment.capture(null, null);
            }
        } else {
            checkNotInRepo(dir);
            dir = ownDir(dir);
            lock = lock(dir);
            if (inMemory(dir)) {
                String warning = "The data set is in memory (" + dir + " is on tmpfs): no read reaches a device and no"
                        + " cached page can be dropped, so the O_DIRECT and uncached rows measure memory, not a disk."
                        + " Run with --dir on a disk for them.";
                System.err.println("uring4j-bench report: " + warning);
                notes.add(warning);
            }
            try {
                sections = runSuite(notes);
            } finally {
                lock.close();
            }
            env = environment;
        }
        write(env, notes, sections);
        return 0;
    }

    private List<Path> expand(List<Path> paths) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    s.filter(f -> f.toString().endsWith(".json")).sorted().forEach(files::add);
                }
            } else if (Files.isRegularFile(p)) {
                files.add(p);
            } else {
                throw new UsageError("no such result file or directory: " + p);
            }
        }
        return files;
    }

    /** The file that marks a directory as the report's own: it deletes it whole when it ends. */
    static final String MARK = ".uring4j-report-data";

    /**
     * The directory the run makes its data in, marked as its own: {@code dir} itself when it is new, empty, or the
     * report's own from an earlier run (interrupted, or kept with {@code --keep-data}); otherwise a new directory
     * inside it, so that deleting the data at the end deletes nothing of the user's (a run with {@code --dir} naming
     * a directory of the user's files deleted all of them).
     */
    static Path ownDir(Path dir) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageError("--dir " + dir + " is a file, not a directory");
        }
        Path own = dir;
        if (Files.isDirectory(dir) && !Files.exists(dir.resolve(MARK))) {
            try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    own = dir.resolve("uring4j-report-data");
                    if (Files.isDirectory(own) && !Files.exists(own.resolve(MARK))) {
                        try (java.util.stream.Stream<Path> inside = Files.list(own)) {
                            if (inside.findAny().isPresent()) {
                                throw new UsageError("--dir " + dir + " holds files of its own and a non-empty " + own
                                        + " the report did not make: name an empty or new directory");
                            }
                        }
                    }
                }
            }
        }
        Files.createDirectories(own);
        if (!Files.exists(own.resolve(MARK))) {
            Files.writeString(own.resolve(MARK), "uring4j-bench report's data; deleted when the report ends\n");
        }
        return own;
    }

    /** Held while the report runs on its data directory. */
    private java.nio.channels.FileChannel lock;

    /**
     * Locks the report's own directory {@code own} for this run: a second report on the same directory would
     * generate, read and delete the data under the first one's feet. The lock is on the directory's mark file and
     * ends with the process, however it ends.
     */
    static java.nio.channels.FileChannel lock(Path own) throws IOException {
        java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(own.resolve(MARK),
                java.nio.file.StandardOpenOption.WRITE);
        try {
            if (ch.tryLock() != null) {
                return ch;
            }
        } catch (java.nio.channels.OverlappingFileLockException e) {
            // this JVM holds it already
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        ch.close();
        throw new UsageError("another uring4j-bench report is running on " + own
                + ": wait for it to end, or give this one another --dir");
    }

    private static void checkNotInRepo(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        for (Path p = abs; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve(".git"))) {
                throw new UsageError("--dir " + dir + " is inside a git work tree (" + p + "); generated data belongs in a temporary directory");
            }
        }
    }

    private Environment environment;

    private List<Section> runSuite(List<String> notes) throws Exception {
        int files = quick ? 2 : 4;
        long blocks = quick ? 1024 : 16384;
        double secs = quick ? 0.5 : duration;
        long warm = quick ? 100_000_000L : 1_000_000_000L;
        List<Section> sections = new ArrayList<>();
        Path data = dir.resolve("dataset");
        DataSet ds = Generator.ensure(data, files, blocks, quiet);
        String gen = "uring4j-bench generate --dir DIR --files " + files + " --blocks " + blocks;
        notes.add("Data: " + files + " files of " + blocks + " blocks of 4 KiB (" + (ds.totalBytes() >> 20) + " MiB), "
                + "generated with `" + gen + "`. Every block read is verified against its hash. Ratios are the figures of one run "
                + "on a shared machine: compare rows within a table, not across runs.");
        environment = Environment.capture(data, null);
        suiteStart = System.nanoTime();
        System.out.println("uring4j benchmark report");
        Render.environment(environment).forEach((k, v) -> System.out.println("  " + k + ": " + v));
        try {
            // 0. the JIT: the first seconds of a strategy in a fresh JVM run interpreted code and compile the FFM
            // paths; one unrecorded pass of each keeps that out of every table.
            ReadCommand.prepareCache(ds, "warm");
            for (String st : JIT_PASS) {
                ReadRun.run(ds, ReadCommand.STRATEGIES.get(st).get(), new ReadConfig(1, 32, false, 7), 0,
                        quick ? 200_000_000L : 2_000_000_000L, new Corruption(), true);
            }
            // 2b. many virtual threads blocking on uncached reads: the JDK pins a carrier per read and adds carriers,
            // which outlive the run; so this runs first, before any other virtual-thread row, and ours before the JDK's.
            List<Result> vt = new ArrayList<>();
            int many = quick ? 200 : 10_000;
            // ours first have an unrecorded pass of their own, as the JIT pass above gives the others: the first
            // strategy of a JVM to park 10,000 virtual threads on reads ran 0.74-1.00 times the rate of the same
            // strategy right after it (the virtual-thread paths compiled, the heap grown to hold their stacks)
            for (String st : List.of("async-vthreads", "dropin-vthreads")) {
                ReadCommand.prepareCache(ds, "cold");
                ReadRun.run(ds, ReadCommand.STRATEGIES.get(st).get(), new ReadConfig(1, many, true, 7), 0,
                        warm, new Corruption(), true);
            }
            for (String st : List.of("async-vthreads", "dropin-vthreads", "channel-vthreads")) {
                vt.add(read(ds, st, 1, many, true, "cold", warm, secs));
            }
            Section manyVirtual = new Section(String.format(Locale.ROOT, "%,d virtual threads, O_DIRECT random 4 KiB reads", many),
                    "uring4j-bench read --dir DIR --direct --depth " + many
                            + " -s async-vthreads,dropin-vthreads,channel-vthreads --duration " + fmt(secs), vt);
            // 1. cached random reads, 1 and 2 threads
            for (int threads : quick ? new int[] {1} : new int[] {1, 2}) {
                List<Result> rows = new ArrayList<>();
                for (String st : threads == 1 ? List.of("ring", "async", "jasyncfio", "mmap", "channel", "channel-vthreads")
                        : List.of("ring", "async", "mmap", "channel", "channel-vthreads")) {
                    if (ReadCommand.STRATEGIES.get(st).get().unsupported(new ReadConfig(threads, 32, false, 42)) != null) {
                        continue; // jasyncfio off x86-64
                    }
                    rows.add(read(ds, st, threads, 32, false, "warm", warm, secs));
                }
                add(sections, new Section("Random 4 KiB reads, page cache, " + threads + " thread" + (threads > 1 ? "s" : ""),
                        "uring4j-bench read --dir DIR --threads " + threads + " --depth 32 --cache warm --duration " + fmt(secs)
                                + " -s ring,async," + (threads == 1 ? "jasyncfio," : "") + "mmap,channel,channel-vthreads",
                        rows));
            }
            // 1b. the JDK's FileChannel and uring4j's drop-in, heap and direct buffers, one platform thread
            List<Result> dropIn = new ArrayList<>();
            for (String st : List.of("channel", "dropin", "channel-heap", "dropin-heap", "dropin-mapped")) {
                dropIn.add(read(ds, st, 1, 1, false, "warm", warm, secs));
            }
            add(sections, new Section("FileChannel drop-in, random 4 KiB reads, page cache, 1 thread",
                    "uring4j-bench read --dir DIR --threads 1 --cache warm --duration " + fmt(secs)
                            + " -s channel,dropin,channel-heap,dropin-heap,dropin-mapped", dropIn));
            // 2. O_DIRECT random reads (device-bound)
            List<Result> direct = new ArrayList<>();
            for (String st : List.of("ring", "async", "channel", "channel-vthreads")) {
                int depth = st.equals("ring") || st.equals("async") ? 128 : st.equals("channel") ? 1 : 32;
                direct.add(read(ds, st, 1, depth, true, "cold", warm, secs));
            }
            add(sections, new Section("Random 4 KiB reads, O_DIRECT, 1 thread",
                    "uring4j-bench read --dir DIR --direct --threads 1 --depth 128 -s ring,async,channel; --depth 32 -s channel-vthreads",
                    direct));
            add(sections, manyVirtual);
            // 3. fio beside us
            String fio = Fio.find();
            if (fio != null) {
                ReadCommand.prepareCache(ds, "warm");
                add(sections, new Section("fio and uring4j, random 4 KiB reads, page cache, depth 32",
                        "uring4j-bench fio --dir DIR --engine io_uring,psync --depth 32 --duration " + fmt(secs),
                        FioCommand.compare(fio, ds, quick ? List.of("io_uring") : List.of("io_uring", "psync"), 32, 1,
                                Math.max(1, secs), false, "warm", quiet, false)));
                if (!quick) {
                    add(sections, new Section("fio and uring4j, random 4 KiB reads, O_DIRECT, depth 128",
                            "uring4j-bench fio --dir DIR --engine io_uring --direct --depth 128 --duration " + fmt(secs),
                            FioCommand.compare(fio, ds, List.of("io_uring"), 128, 1, secs, true, "cold", quiet, false)));
                }
                notes.add("fio: " + Fio.version(fio) + " (the fio harness itself, not its t/io_uring tool).");
            } else {
                notes.add("fio is not installed: no fio rows (apt-get install fio).");
            }
            // 4. load types, and 5. whole files (many small files, open+read+close, a copy), each in a fresh JVM
            // (ChildRun says why); each takes seconds in a quick run and a minute or two in a full one, so a child
            // still running after ten times that is stuck: it is killed, and its threads printed
            Duration childLimit = quick ? Duration.ofSeconds(90) : Duration.ofMinutes(20);
            List<String> sizes = quick ? List.of("8M") : List.of("64M", "256M");
            double ltMinTime = quick ? 0.1 : 0.5;
            List<String> ltArgs = List.of("--size", String.join(",", sizes), "--min-time", fmt(ltMinTime));
            List<Result> ltRows = ChildRun.run(dir, "loadtypes", withDirAndQuiet(ltArgs, dir.resolve("loadtypes")),
                    childLimit);
            add(sections, new Section("Load types (page cache)", "uring4j-bench loadtypes " + String.join(" ", ltArgs),
                    ltRows));
            List<String> slow = new ArrayList<>();
            for (Result r : ltRows) {
                String n = r.params.get("slow_loop_calls");
                if (n != null && !n.equals("0")) {
                    slow.add(r.params.get("category") + " (" + n + " of " + r.params.get("loop_calls") + ")");
                }
            }
            if (!slow.isEmpty()) {
                notes.add("Load types: calls the async strategy's loop made itself that held it over 10 ms (after a"
                        + " second write like that within a second which others waited for, its file's writes went"
                        + " through the ring for a quarter of a second): " + String.join(", ", slow) + ".");
            }
            // 20,000 small files, as many as the benchmark plan's checksum of a tree asks for at least. With 5,000
            // (passes of 25 ms, whose start and end weigh more) the JDK's virtual threads ran at 0.85-0.87 times
            // their rate on 20,000, and AsyncFile.readFile came out at 1.24-1.29 times them against 1.15-1.19
            // The drop-ins' small files in a JVM of their own: after the checksum's cases in the same JVM (the JDK's
            // FileChannel on virtual threads among them), the JDK's Files.readAllBytes made 42-43k files/s in 5 of 9
            // whole runs of the command and 72-77k in the others, uring4j's 71-78k in all (the two share the JDK's
            // Files.read and ChannelInputStream.read, recompiled after uncommon traps); alone they were level
            List<String> fcArgs = List.of("--count", quick ? "500" : "20000", "--rounds", quick ? "1" : "3",
                    "--min-time", quick ? "0.02" : "0.2");
            List<String> sumArgs = new ArrayList<>(fcArgs);
            sumArgs.addAll(List.of("--copy-size", quick ? "16M" : "256M", "--only", "checksum,copy"));
            List<String> smallArgs = new ArrayList<>(fcArgs);
            smallArgs.addAll(List.of("--only", "readAllBytes,open+read+close"));
            String filesCommand = "uring4j-bench files " + String.join(" ", sumArgs);
            List<Result> fileRows = ChildRun.run(dir, "files", withDirAndQuiet(sumArgs, dir.resolve("files")),
                    childLimit);
            List<Result> smallRows = ChildRun.run(dir, "files", withDirAndQuiet(smallArgs, dir.resolve("files")),
                    childLimit);
            add(sections, new Section(FILES_SUM, filesCommand,
                    fileRows.stream().filter(r -> r.workload.startsWith("files-checksum")).toList()));
            add(sections, new Section(FILES_SMALL, "uring4j-bench files " + String.join(" ", smallArgs), smallRows));
            add(sections, new Section(FILES_COPY, filesCommand,
                    fileRows.stream().filter(r -> r.primaryUnit.equals("GB/s")).toList()));
            // 6. Apache Lucene, unchanged, on the built-in provider and on uring4j's (each run in a JVM of its own)
            // 400 rounds of the query set (after 200 untimed): with 100 (after 50), the timed queries ran before the
            // JIT was done, at two thirds of the rate of 400, and the NIOFSDirectory ratio moved between 0.87 and
            // 1.05 in three runs, against 0.95-1.01 with 400 (7 s more for the whole command)
            List<String> luArgs = List.of("--docs", quick ? "300" : "2000", "--queries", quick ? "4" : "400",
                    "--rounds", quick ? "1" : "2");
            String luceneCommand = "uring4j-bench lucene " + String.join(" ", luArgs);
            List<Result> luRows = ChildRun.run(dir, "lucene", withDirAndQuiet(luArgs, dir.resolve("lucene")),
                    childLimit);
            add(sections, new Section(LUCENE_INDEX, luceneCommand,
                    luRows.stream().filter(r -> r.primaryUnit.equals("docs/s")).toList()));
            add(sections, new Section(LUCENE_QUERIES, luceneCommand,
                    luRows.stream().filter(r -> !r.primaryUnit.equals("docs/s")).toList()));
            // 6b. virtual threads whose writes wait for another writer's inode lock, beside one that wants to run
            List<String> caArgs = List.of("--seconds", quick ? "0.3" : "2", "--rounds", quick ? "1" : "2", "--big",
                    quick ? "8" : "64");
            List<Result> caRows = ChildRun.run(dir, "carriers", withDirAndQuiet(caArgs, dir.resolve("carriers")),
                    childLimit);
            add(sections, new Section(CARRIERS, "uring4j-bench carriers " + String.join(" ", caArgs), caRows));
            // 6c. what installing the provider costs a short program: fresh JVMs, their first read and write
            List<String> suArgs = List.of("--runs", quick ? "1" : "5");
            List<Result> suRows = ChildRun.run(dir, "startup", withDirAndQuiet(suArgs, dir.resolve("startup")),
                    childLimit);
            String startupCommand = "uring4j-bench startup " + String.join(" ", suArgs);
            add(sections, new Section(STARTUP, startupCommand,
                    suRows.stream().filter(r -> r.primary.equals("runs_per_s")).toList()));
            add(sections, new Section(STARTUP_READ, startupCommand,
                    suRows.stream().filter(r -> !r.primary.equals("runs_per_s")).toList()));
            // 6d. the Files calls of ordinary programs, in fresh JVMs on each provider
            List<String> evArgs = List.of("--rounds", quick ? "1" : "2", "--passes", quick ? "2" : "4", "--text-size",
                    quick ? "4M" : "32M", "--files", quick ? "200" : "1000");
            add(sections, new Section(EVERYDAY, "uring4j-bench everyday " + String.join(" ", evArgs),
                    ChildRun.run(dir, "everyday", withDirAndQuiet(evArgs, dir.resolve("everyday")), childLimit)));
            // 7. synced log records: write + force from 1 and 8 threads vs writeAndSync one at a time and 8 in flight
            List<String> jmhArgs = new ArrayList<>(quick ? List.of("-f", "0", "-wi", "0", "-i", "1", "-r", "200ms")
                    : List.of("-wi", "1", "-w", "1s", "-i", "3", "-r", "1s"));
            jmhArgs.addAll(List.of("-jvmArgsAppend", "-During4j.jmh.dir=" + dir.resolve("jmh")));
            // and for benchmarks run in this JVM (-f 0, --quick): their data goes under --dir too, not /tmp
            System.setProperty("uring4j.jmh.dir", dir.resolve("jmh").toString());
            for (Section s : ChildRun.jmh(dir, "SyncWriteBenchmark", jmhArgs, childLimit)) {
                add(sections, s);
            }
            // 8. one operation at a time from one thread: the async APIs' hand-offs, awaited one by one. Two seconds
            // of warm-up: AsyncFile's open + read + close took 118-149, 36-41, 12-19 and 8.4 us in the first four
            // half-seconds of its fork (the JIT still compiling what linking the native calls spun), so one
            // half-second of warm-up left the row measuring the JIT (0.80 times the JDK's AsynchronousFileChannel in
            // one report, 2.3 times once warm)
            List<String> oneArgs = new ArrayList<>(quick ? List.of("-f", "0", "-wi", "0", "-i", "1", "-r", "200ms")
                    : List.of("-wi", "2", "-w", "1s", "-i", "3", "-r", "500ms"));
            for (Section s : ChildRun.jmh(dir, "OneAtATimeBenchmark", oneArgs, childLimit)) {
                add(sections, s);
            }
        } finally {
            if (!keepData) {
                io.github.uring4j.bench.common.Trees.delete(dir);
            }
        }
        return sections;
    }

    private List<String> withDirAndQuiet(List<String> args, Path commandDir) {
        List<String> all = new ArrayList<>(args);
        all.add("--dir");
        all.add(commandDir.toString());
        if (quiet) {
            all.add("--quiet");
        }
        return all;
    }

    /** When the suite began to measure (after the build and the data), for the time each section is shown at. */
    private long suiteStart = System.nanoTime();

    /** Keeps a finished section and shows it at once, with the time into the run it was done at. */
    private void add(List<Section> sections, Section s) {
        sections.add(s);
        Terminal.print(System.out, s);
        long secs = (System.nanoTime() - suiteStart) / 1_000_000_000L;
        System.out.printf(Locale.ROOT, "(done %d:%02d into the run)%n", secs / 60, secs % 60);
    }

    private Result read(DataSet ds, String strategy, int threads, int depth, boolean direct, String cache, long warm,
                        double secs) throws Exception {
        ReadCommand.prepareCache(ds, cache);
        String state = PageCache.describe(PageCache.residentFraction(ReadCommandFiles.of(ds)));
        ReadStrategy s = ReadCommand.STRATEGIES.get(strategy).get();
        Corruption c = new Corruption();
        long rowWarm = JIT_PASS.contains(strategy) ? warm / 2 : warm;
        Result r = ReadRun.run(ds, s, new ReadConfig(threads, depth, direct, 42), rowWarm, (long) (secs * 1e9), c, quiet);
        if (c.count() > 0) {
            throw new IllegalStateException(strategy + ": " + c.count() + " reads returned wrong data, e.g. " + c.examples().iterator().next());
        }
        r.param("cache_before", state);
        return r;
    }

    private void write(Environment env, List<String> notes, List<Section> sections) throws IOException {
        Files.createDirectories(out);
        Path charts = out.resolve("charts");
        Map<Section, List<String>> pngs = new LinkedHashMap<>();
        for (Section s : sections) {
            List<String> l = new ArrayList<>();
            l.add(Charts.throughput(s, charts));
            if (s.hasLatency()) {
                l.add(Charts.latency(s, charts));
            }
            pngs.put(s, l);
        }
        String title = "uring4j benchmark report";
        Files.writeString(out.resolve("report.md"), Render.markdown(title, env, notes, sections, pngs));
        Files.writeString(out.resolve("report.html"), Render.html(title, env, notes, sections, pngs));
        List<Result> all = new ArrayList<>();
        for (Section s : sections) {
            for (Result r : s.rows) {
                if (!r.params.containsKey("load")) {
                    r.workload = s.title;
                }
                r.command = s.command;
                all.add(r);
            }
        }
        new ResultFile("report", env, all).write(out.resolve("results.json"));
        List<List<String>> claims = Targets.table(sections);
        if (claims.size() > 1) {
            System.out.println();
            System.out.println("Claims (docs/benchmarks.md)");
            System.out.println("===========================");
            System.out.println();
            // The claim's words go last, so a narrow terminal cuts words, never figures.
            List<List<String>> reordered = new ArrayList<>();
            for (List<String> row : claims) {
                reordered.add(List.of(row.get(3), row.get(1), row.get(2), row.get(0)));
            }
            Terminal.lines(reordered).forEach(System.out::println);
            System.out.println();
        }
        System.out.println("wrote " + out.resolve("report.md") + ", " + out.resolve("report.html") + " and " + pngs.values().stream()
                .mapToInt(List::size).sum() + " charts");
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
    }

    /** The data set's files as a list. */
    static final class ReadCommandFiles {
        static List<Path> of(DataSet ds) {
            List<Path> l = new ArrayList<>();
            for (int i = 0; i < ds.files(); i++) {
                l.add(ds.file(i));
            }
            return l;
        }
    }
}
