package io.github.uring4j.bench.everyday;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.ChildJava;
import io.github.uring4j.bench.common.Median;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.bench.common.Sizes;
import io.github.uring4j.bench.common.Trees;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code everyday}: what an unchanged program's ordinary file calls cost on the provider. {@link EverydayProgram}
 * runs in fresh JVMs on the built-in provider and on {@code UringFileSystemProvider}, taking turns; each operation's
 * median over its passes, then the median over the JVMs of each provider.
 */
@Command(name = "everyday", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "The Files and FileChannel calls of ordinary programs (readAllBytes, readString, readAllLines, "
                + "lines, BufferedReader, streams, copy, random reads, writers, appends, write + force, small files, "
                + "walk) in fresh JVMs on the built-in provider and on UringFileSystemProvider, taking turns. Every "
                + "read is checked against the data and every written file read back.")
public final class EverydayCommand implements Callable<Integer> {
    static final String BUILTIN = ChildJava.BUILTIN;
    static final String URING = ChildJava.URING;
    private static final long CHILD_TIMEOUT_SECONDS = 600;

    @Option(names = "--dir", description = "Directory for the files (default: ${DEFAULT-VALUE}); they are removed "
            + "afterwards (everyday-text.txt, everyday-tree/, everyday-out/; nothing else there is touched).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-everyday");

    @Option(names = "--rounds", description = "JVMs per provider (default: ${DEFAULT-VALUE}).")
    int rounds = 2;

    @Option(names = "--passes", description = "Passes over the operations in each JVM; the first is not measured "
            + "(default: ${DEFAULT-VALUE}).")
    int passes = 5;

    @Option(names = "--text-size", description = "Size of the text file (default: ${DEFAULT-VALUE}).")
    String textSize = "64M";

    @Option(names = "--files", description = "Small files, 100 B to 4 KiB each (default: ${DEFAULT-VALUE}).")
    int files = 2000;

    @Option(names = "--only", split = ",", description = "Only the operations whose name contains one of these "
            + "words, e.g. 'readString' or 'small' (default: all).")
    List<String> only = List.of();

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        long textBytes = Sizes.parse("--text-size", textSize);
        if (rounds < 1 || rounds > 100 || passes < 2 || passes > 100 || textBytes < (64 << 10)
                || textBytes > (1L << 30) || files < 1 || files > 1_000_000) {
            throw new UsageError("--rounds must be 1 to 100, --passes 2 to 100, --text-size 64K to 1G, --files 1 to "
                    + "1000000 (got --rounds " + rounds + ", --passes " + passes + ", --text-size " + textSize + ", --files "
                    + files + ")");
        }
        List<String> names = EverydayProgram.chosen(textBytes, files, only);
        if (names.isEmpty()) {
            throw new UsageError("--only " + String.join(",", only) + " matches none of the operations: "
                    + String.join(", ", EverydayProgram.names(textBytes, files)));
        }
        Map<String, Map<String, List<Long>>> nanos = new LinkedHashMap<>();
        try {
            if (!quiet) {
                System.err.println("everyday: writing the files into " + dir);
            }
            EverydayProgram.generate(dir, textBytes, files);
            for (int r = 0; r < rounds; r++) {
                for (String which : r % 2 == 0 ? List.of(BUILTIN, URING) : List.of(URING, BUILTIN)) {
                    if (!quiet) {
                        System.err.printf(Locale.ROOT, "everyday: JVM %d of %d on the %s%n", r + 1, rounds, which);
                    }
                    child(which, textBytes).forEach((op, ns) -> nanos.computeIfAbsent(op, k -> new LinkedHashMap<>())
                            .computeIfAbsent(which, k -> new ArrayList<>()).add(ns));
                }
            }
        } finally {
            remove(dir);
        }
        List<Result> rows = new ArrayList<>();
        for (String op : names) {
            for (String which : List.of(BUILTIN, URING)) {
                double ms = Median.of(nanos.get(op).get(which).stream().mapToLong(Long::longValue).toArray()) / 1e6;
                rows.add(new Result("everyday", which).param("category", op).param("jvms", rounds)
                        .param("passes", passes).metric("ms", ms).metric("ops_per_s", 1e3 / ms)
                        .primary("ops_per_s", "per s"));
            }
        }
        System.out.print(table(rows));
        ResultFile.conclude("everyday", dir, "page cache (the files written before the runs)", rows, json);
        return 0;
    }

    /** Runs {@link EverydayProgram} in a fresh JVM on {@code which}: each operation's median nanoseconds. */
    private Map<String, Long> child(String which, long textBytes) throws IOException, InterruptedException {
        List<String> cmd = ChildJava.java(which);
        // A heap of fixed size, touched before the run: a growing one, and the faults of its first pages, moved the
        // operations' times by more than the providers' difference.
        cmd.addAll(List.of("-XX:+UseParallelGC", "-Xms2g", "-Xmx2g", "-Xmn1g", "-XX:+AlwaysPreTouch"));
        if (which.equals(ChildJava.URING)) {
            // each call on uring4j's provider, even in the JVM's first moments, where whole-file calls are otherwise
            // the JDK's while the provider links its native calls (the start-up benchmark measures that)
            cmd.add("-During4j.whileLinking=wait");
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), EverydayProgram.class.getName(),
                dir.toString(), String.valueOf(passes), String.valueOf(textBytes), String.valueOf(files),
                only.isEmpty() ? "all" : String.join(",", only)));
        ChildJava.Ended p = ChildJava.run(cmd, CHILD_TIMEOUT_SECONDS, "the program on the " + which);
        String text = String.join("\n", p.lines());
        if (p.exit() != 0) {
            throw new IOException("the program on the " + which + " failed (exit " + p.exit() + "): " + text.strip());
        }
        String provider = null;
        Map<String, Long> out = new LinkedHashMap<>();
        for (String line : p.lines()) {
            if (line.startsWith("EVERYDAY provider=")) {
                provider = line.substring("EVERYDAY provider=".length());
            } else if (line.startsWith("EVERYDAY\t")) {
                String[] f = line.split("\t");
                out.put(f[1], Long.parseLong(f[2]));
            }
        }
        if (!ChildJava.providerClass(which).equals(provider)) {
            throw new IOException("the program on the " + which + " ran on " + provider + ": " + text.strip());
        }
        return out;
    }

    private static void remove(Path dir) throws IOException {
        for (String part : List.of(EverydayProgram.TEXT, EverydayProgram.TREE, EverydayProgram.OUT)) {
            Trees.delete(dir.resolve(part));
        }
    }

    static String table(List<Result> rows) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-42s %12s %12s %10s%n", "operation",
                "builtin ms", "uring4j ms", "× builtin"));
        for (int i = 0; i + 1 < rows.size(); i += 2) {
            Result jdk = rows.get(i);
            Result ours = rows.get(i + 1);
            double a = jdk.metrics.get("ms");
            double o = ours.metrics.get("ms");
            b.append(String.format(Locale.ROOT, "%-42s %12.2f %12.2f %10.2f%n", jdk.params.get("category"), a, o, a / o));
        }
        b.append("(medians; × builtin above 1: uring4j's provider took less time)\n");
        return b.toString();
    }
}
