package io.github.uring4j.file;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Starts {@link ChildMain} in a new JVM (this JVM's java, this class path), optionally under a wrapper command. */
public final class ChildJvm {
    private ChildJvm() {
    }

    static ProcessBuilder builder(List<String> wrapper, List<String> jvmArgs, String... args) {
        List<String> all = new ArrayList<>();
        all.add("--enable-native-access=ALL-UNNAMED");
        all.addAll(jvmArgs);
        return bare(wrapper, all, args);
    }

    /** A child JVM with exactly {@code jvmArgs} (no native access unless they grant it). */
    static ProcessBuilder bare(List<String> wrapper, List<String> jvmArgs, String... args) {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ChildMain.class.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true);
    }

    /**
     * Runs {@code main} (a class of the tests) in a child JVM with native access and {@code jvmArgs}, for at most
     * {@code seconds}: what it printed. Fails unless it ended by itself with status 0.
     */
    public static String runMain(Class<?> main, List<String> jvmArgs, long seconds, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                child.getInputStream().transferTo(out);
            } catch (IOException e) {
                // killed: what it said so far is reported
            }
        });
        boolean ended = child.waitFor(seconds, java.util.concurrent.TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        reader.join(10_000);
        String text = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assertions.assertTrue(ended, "the child still ran after " + seconds + " s: " + text);
        org.junit.jupiter.api.Assertions.assertEquals(0, child.exitValue(), text);
        return text;
    }

    static Process start(List<String> wrapper, List<String> jvmArgs, String... args) throws IOException {
        return builder(wrapper, jvmArgs, args).start();
    }
}
