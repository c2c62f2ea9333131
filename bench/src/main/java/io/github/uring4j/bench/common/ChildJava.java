package io.github.uring4j.bench.common;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A program run in a fresh JVM of this one's launcher, its output collected (the Lucene and start-up runs). */
public final class ChildJava {
    private ChildJava() {
    }

    /** The provider the child JVMs install, and the names of the two ways they run (the rows' strategies). */
    public static final String PROVIDER = "io.github.uring4j.nio.UringFileSystemProvider";
    public static final String BUILTIN = "builtin provider";
    public static final String URING = "uring4j provider";

    /**
     * The start of a command line for a run on {@code which} ({@link #BUILTIN} or {@link #URING}): {@link #java()},
     * with the system property that installs the provider for {@link #URING}.
     */
    public static List<String> java(String which) {
        List<String> cmd = java();
        if (which.equals(URING)) {
            cmd.add("-Djava.nio.file.spi.DefaultFileSystemProvider=" + PROVIDER);
        }
        return cmd;
    }

    /** The class of the default provider a run on {@code which} must report. */
    public static String providerClass(String which) {
        return which.equals(URING) ? PROVIDER : "sun.nio.fs.LinuxFileSystemProvider";
    }

    /** How a run ended: its exit status, its output (standard output and error together), its time. */
    public record Ended(int exit, List<String> lines, long wallNanos) {
    }

    /** The start of a command line: this JVM's launcher, with native access granted to the class path. */
    public static List<String> java() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        return cmd;
    }

    /**
     * Runs {@code cmd} with its standard input closed and waits for it; still running after {@code timeoutSeconds},
     * it is killed and this fails naming {@code what}.
     */
    public static Ended run(List<String> cmd, long timeoutSeconds, String what) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException e) {
                // the process died: its exit status says so
            }
        });
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IOException(what + " still running after " + timeoutSeconds + " s");
            }
            long wall = System.nanoTime() - t0;
            reader.join();
            return new Ended(p.exitValue(), out.toString(StandardCharsets.UTF_8).lines().toList(), wall);
        } finally {
            p.destroyForcibly();
        }
    }
}
