package io.github.uring4j.bench.startup;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.ChildJava;
import io.github.uring4j.bench.common.ExitCleanup;
import io.github.uring4j.bench.common.Median;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.zip.CRC32C;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code startup}: what installing the provider costs a program that starts, reads a file, writes one and ends.
 * {@link StartupProgram} runs in fresh JVMs on the built-in provider and on {@code UringFileSystemProvider}, taking
 * turns: the JVM's whole run, and its first {@code Files.readAllBytes} and {@code Files.write}, after 0 ms and after
 * some milliseconds of the program's own work (a program's own start-up, in which the provider can link its native
 * calls on a thread of its own). Every copy must hold the source's bytes.
 */
@Command(name = "startup", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Fresh JVMs on the built-in provider and on UringFileSystemProvider, taking turns: the time of the "
                + "whole run and of the first Files.readAllBytes and Files.write, after none and after some of the "
                + "program's own work. Fails unless every copy holds the source's bytes.")
public final class StartupCommand implements Callable<Integer> {
    static final String BUILTIN = ChildJava.BUILTIN;
    static final String URING = ChildJava.URING;
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @Option(names = "--dir", description = "Directory for the file and its copies (default: ${DEFAULT-VALUE}).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-startup");

    @Option(names = "--runs", description = "JVMs per provider and amount of work (default: ${DEFAULT-VALUE}).")
    int runs = 5;

    @Option(names = "--work", split = ",", description = "Milliseconds of the program's own work before its first "
            + "read, one case each (default: ${DEFAULT-VALUE}).")
    List<Integer> work = List.of(0, 200);

    @Option(names = "--size", description = "Bytes of the file read and copied (default: ${DEFAULT-VALUE}).")
    int size = 65536;

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    /** One JVM's figures. */
    record Run(long wallNanos, long readNanos, long writeNanos, int byJdk) {
    }

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || runs > 1000 || work.isEmpty() || work.stream().anyMatch(w -> w < 0 || w > 60_000)
                || size < 0 || size > (256 << 20)) {
            throw new UsageError("--runs must be 1 to 1000, --work 0 to 60000 (ms) each, --size 0 to 268435456 (got --runs "
                    + runs + ", --work " + work + ", --size " + size + ")");
        }
        work = work.stream().distinct().toList(); // a case named twice is one case
        Files.createDirectories(dir);
        Path source = ExitCleanup.register(dir.resolve("startup-source.bin"));
        Path copy = ExitCleanup.register(dir.resolve("startup-copy.bin"));
        byte[] bytes = new byte[size];
        new Random(20261126L).nextBytes(bytes);
        Files.write(source, bytes);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        String want = Long.toHexString(crc.getValue());
        Map<String, List<Run>> byCase = new LinkedHashMap<>();
        try {
            for (int r = 0; r < runs; r++) {
                for (int w : work) {
                    for (String which : r % 2 == 0 ? List.of(BUILTIN, URING) : List.of(URING, BUILTIN)) {
                        if (!quiet) {
                            System.err.printf(Locale.ROOT, "startup: run %d of %d, %d ms of work, %s%n", r + 1, runs, w,
                                    which);
                        }
                        byCase.computeIfAbsent(w + " " + which, k -> new ArrayList<>())
                                .add(child(which, source, copy, w, bytes, want));
                    }
                }
            }
        } finally {
            Files.deleteIfExists(source);
            Files.deleteIfExists(copy);
        }
        List<Result> rows = rows(byCase);
        System.out.print(table(rows));
        ResultFile.conclude("startup", dir, "page cache (the file written before the runs)", rows, json);
        return 0;
    }

    /** Runs {@link StartupProgram} in a fresh JVM (this one's launcher and class path) on {@code which}. */
    private Run child(String which, Path source, Path copy, int workMillis, byte[] bytes, String crc)
            throws IOException, InterruptedException {
        Files.deleteIfExists(copy);
        List<String> cmd = ChildJava.java(which);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), StartupProgram.class.getName(),
                source.toString(), copy.toString(), String.valueOf(workMillis)));
        ChildJava.Ended p = ChildJava.run(cmd, CHILD_TIMEOUT_SECONDS, "the program on the " + which);
        String text = String.join("\n", p.lines());
        if (p.exit() != 0) {
            throw new IOException("the program on the " + which + " failed (exit " + p.exit() + "): " + text.strip());
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (String line : p.lines()) {
            if (line.startsWith("STARTUP ")) {
                for (String kv : line.substring(8).trim().split(" ")) {
                    int eq = kv.indexOf('=');
                    f.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        String wantProvider = ChildJava.providerClass(which);
        if (!wantProvider.equals(f.get("provider"))) {
            throw new IOException("the program on the " + which + " ran on " + f.get("provider") + ": " + text.strip());
        }
        if (!crc.equals(f.get("crc")) || !String.valueOf(bytes.length).equals(f.get("bytes"))) {
            throw new IOException("the program on the " + which + " read " + f.get("bytes") + " bytes of CRC32C "
                    + f.get("crc") + ", not " + bytes.length + " of " + crc);
        }
        long mismatch = Files.mismatch(source, copy);
        if (mismatch != -1) {
            throw new IOException("the copy the program on the " + which + " wrote differs from the source at byte "
                    + mismatch);
        }
        return new Run(p.wallNanos(), Long.parseLong(f.get("read_ns")), Long.parseLong(f.get("write_ns")),
                Integer.parseInt(f.get("by_jdk")));
    }

    /** The category of a case's rows whose figure is one over the JVM's whole run. */
    public static String wholeRun(int w) {
        return String.format(Locale.ROOT, "whole JVM runs, %d ms of work", w);
    }

    /** The category of a case's rows whose figure is one over its first read. */
    public static String firstRead(int w) {
        return String.format(Locale.ROOT, "first readAllBytes after %d ms of work (1 / its time)", w);
    }

    private List<Result> rows(Map<String, List<Run>> byCase) {
        List<Result> rows = new ArrayList<>();
        for (int w : work) {
            for (String category : List.of(wholeRun(w), firstRead(w))) {
                for (String which : List.of(BUILTIN, URING)) {
                    List<Run> rs = byCase.get(w + " " + which);
                    double wall = Median.of(rs.stream().mapToLong(Run::wallNanos).toArray());
                    double read = Median.of(rs.stream().mapToLong(Run::readNanos).toArray());
                    double write = Median.of(rs.stream().mapToLong(Run::writeNanos).toArray());
                    Result r = new Result("startup", which).param("category", category).param("work_ms", w)
                            .param("runs", rs.size()).param("bytes", size)
                            .metric("wall_ms", wall / 1e6).metric("first_read_ms", read / 1e6)
                            .metric("first_write_ms", write / 1e6)
                            // of the first read and write, those the JDK's code served (uring4j still linking)
                            .metric("by_jdk_per_run", rs.stream().mapToInt(Run::byJdk).sum() / (double) rs.size())
                            // as rates, so that uring4j / built-in above 1 is better, as in every other table
                            .metric("runs_per_s", 1e9 / wall).metric("first_reads_per_s", 1e9 / read);
                    r.primary(category.equals(wholeRun(w)) ? "runs_per_s" : "first_reads_per_s", "per s");
                    rows.add(r);
                }
            }
        }
        return rows;
    }

    static String table(List<Result> rows) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-8s %-18s %5s %14s %18s %19s %12s%n",
                "work ms", "provider", "runs", "whole run ms", "first read ms", "first write ms", "by the JDK"));
        for (Result r : rows) {
            if (!r.primary.equals("runs_per_s")) {
                continue;
            }
            b.append(String.format(Locale.ROOT, "%-8s %-18s %5s %14.1f %18.2f %19.2f %12.1f%n",
                    r.params.get("work_ms"), r.strategy, r.params.get("runs"), r.metrics.get("wall_ms"),
                    r.metrics.get("first_read_ms"), r.metrics.get("first_write_ms"), r.metrics.get("by_jdk_per_run")));
        }
        b.append("(medians; \"by the JDK\": of the first read and write, how many the JDK's own code served on uring4j's\n"
                + "provider while it linked its native calls, a mean per run)\n");
        return b.toString();
    }
}
