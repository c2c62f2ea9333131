package io.github.uring4j.file;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Starts {@link ChildMain} in a new JVM (this JVM's java, this class path), optionally under a wrapper command. */
final class ChildJvm {
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

    static Process start(List<String> wrapper, List<String> jvmArgs, String... args) throws IOException {
        return builder(wrapper, jvmArgs, args).start();
    }
}
