package io.github.uring4j.bench.report;

import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one benchmark command in a fresh JVM (this JVM's launcher, options and class path) and returns its rows
 * (or, for JMH, its sections).
 * The report runs its later sections so: in the report's own JVM, after the read sections had verified mapped,
 * heap and native blocks, the verifying loops of the load types ran at a third to a half of a fresh JVM's speed for
 * some strategies and not others (the JIT's profiles of shared code differ from section to section), which says
 * nothing about the strategies. A child's progress display and errors go to this process's terminal.
 */
final class ChildRun {
    private ChildRun() {
    }

    static List<Result> run(Path scratch, String command, List<String> args) throws IOException, InterruptedException {
        Path json = Files.createTempFile(Files.createDirectories(scratch), command + "-", ".json");
        try {
            List<String> all = new ArrayList<>(args);
            all.add("--json");
            all.add(json.toString());
            exec(command, all);
            return ResultFile.read(json).results;
        } finally {
            Files.deleteIfExists(json);
        }
    }

    /** JMH benchmarks matching {@code pattern}, run by the {@code jmh} command in a child JVM; their sections. */
    static List<Section> jmh(Path scratch, String pattern, List<String> jmhArgs) throws IOException, InterruptedException {
        Path json = Files.createTempFile(Files.createDirectories(scratch), "jmh-", ".json");
        try {
            List<String> all = new ArrayList<>();
            all.add(pattern);
            all.addAll(jmhArgs);
            all.addAll(List.of("-rf", "json", "-rff", json.toString()));
            exec("jmh", all);
            return JmhResults.read(json);
        } finally {
            Files.deleteIfExists(json);
        }
    }

    private static void exec(String command, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(io.github.uring4j.bench.Main.class.getName());
        cmd.add(command);
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        // the child ends with the report: on SIGTERM or Ctrl-C the hook stops it, on an interrupt the finally
        Thread stop = new Thread(p::destroy, "uring4j-bench-child-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        int rc;
        try {
            rc = p.waitFor();
        } finally {
            if (p.isAlive()) {
                p.destroy();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(stop);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or ran
            }
        }
        if (rc != 0) {
            throw new IOException("uring4j-bench " + command + " " + String.join(" ", args)
                    + " failed in its own JVM with exit status " + rc + " (its message is above)");
        }
    }
}
