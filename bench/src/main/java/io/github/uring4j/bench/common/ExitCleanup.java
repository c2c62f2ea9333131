package io.github.uring4j.bench.common;

import java.nio.file.Path;

/**
 * Files a command makes in the user's directory, deleted when the JVM exits if they are still there: a run stopped
 * with Ctrl-C ends the JVM without running the commands' {@code finally} blocks, and left gigabytes of test files
 * behind ({@code loadtypes}' data, {@code mixed}'s, {@code files}' small files, ...). A finished run has deleted them
 * already.
 */
public final class ExitCleanup {
    private ExitCleanup() {
    }

    /** Deletes {@code p} at exit (a directory only when empty by then: register it before the files in it). */
    public static Path register(Path p) {
        p.toFile().deleteOnExit();
        return p;
    }
}
