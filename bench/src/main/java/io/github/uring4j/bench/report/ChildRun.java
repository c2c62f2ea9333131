package io.github.uring4j.bench.report;

import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one benchmark command in a fresh JVM (this JVM's launcher, options and class path) and returns its rows
 * (or, for JMH, its sections).
 * The report runs its later sections so: in the report's own JVM, after the read sections had verified mapped,
 * heap and native blocks, the verifying loops of the load types ran at a third to a half of a fresh JVM's speed for
 * some strategies and not others (the JIT's profiles of shared code differ from section to section), which says
 * nothing about the strategies. A child's progress display and errors go to this process's terminal; its standard
 * output (tables the report reads from its JSON instead) to a file beside its JSON. A child that has not ended within
 * its time limit is asked for a thread dump (SIGQUIT, written to that file), which is printed, and then killed: the
 * report fails saying so instead of waiting forever.
 */
final class ChildRun {
    private ChildRun() {
    }

    static List<Result> run(Path scratch, String command, List<String> args, Duration limit)
            throws IOException, InterruptedException {
        Path json = Files.createTempFile(Files.createDirectories(scratch), command + "-", ".json");
        try {
            List<String> all = new ArrayList<>(args);
            all.add("--json");
            all.add(json.toString());
            exec(scratch, command, all, limit);
            return ResultFile.read(json).results;
        } finally {
            Files.deleteIfExists(json);
        }
    }

    /** JMH benchmarks matching {@code pattern}, run by the {@code jmh} command in a child JVM; their sections. */
    static List<Section> jmh(Path scratch, String pattern, List<String> jmhArgs, Duration limit)
            throws IOException, InterruptedException {
        Path json = Files.createTempFile(Files.createDirectories(scratch), "jmh-", ".json");
        try {
            List<String> all = new ArrayList<>();
            all.add(pattern);
            all.addAll(jmhArgs);
            all.addAll(List.of("-rf", "json", "-rff", json.toString()));
            exec(scratch, "jmh", all, limit);
            return JmhResults.read(json);
        } finally {
            Files.deleteIfExists(json);
        }
    }

    private static void exec(Path scratch, String command, List<String> args, Duration limit)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        String jmhDir = System.getProperty("uring4j.jmh.dir");
        if (jmhDir != null) {
            cmd.add("-During4j.jmh.dir=" + jmhDir); // the JMH data of a benchmark run in the child itself (-f 0)
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(io.github.uring4j.bench.Main.class.getName());
        cmd.add(command);
        cmd.addAll(args);
        Path out = Files.createTempFile(scratch, command + "-", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        // the child ends with the report: on SIGTERM or Ctrl-C the hook stops it, on an interrupt the finally
        Thread stop = new Thread(p::destroy, "uring4j-bench-child-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        int rc;
        try {
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("uring4j-bench " + command + " " + String.join(" ", args)
                        + " did not end within " + limit.toSeconds() + " s in its own JVM and was killed"
                        + threadDump(p, out));
            }
            rc = p.exitValue();
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // gone before the caller goes on
            }
            try {
                Runtime.getRuntime().removeShutdownHook(stop);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or ran
            }
            Files.deleteIfExists(out);
        }
        if (rc != 0) {
            throw new IOException("uring4j-bench " + command + " " + String.join(" ", args)
                    + " failed in its own JVM with exit status " + rc + " (its message is above)");
        }
    }

    /**
     * Asks a child that overran for its threads (the JVM writes them to its standard output on SIGQUIT) and prints
     * them to this process's standard error; returns what to add to the error message.
     */
    private static String threadDump(Process p, Path out) throws InterruptedException {
        try {
            long before = Files.size(out);
            new ProcessBuilder("kill", "-QUIT", Long.toString(p.pid())).inheritIO().start().waitFor();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            long seen = -1;
            while (System.nanoTime() < deadline) { // the dump is written at once; wait until it stops growing
                Thread.sleep(250);
                long now = Files.size(out);
                if (now > before && now == seen) {
                    break;
                }
                seen = now;
            }
            String text = Files.readString(out);
            int at = text.indexOf("Full thread dump", (int) Math.min(before, text.length()));
            if (at < 0) {
                return " (it gave no thread dump)";
            }
            System.err.println(text.substring(at));
            return " (its threads are printed above)";
        } catch (IOException e) {
            return " (no thread dump: " + e.getMessage() + ")";
        }
    }
}
