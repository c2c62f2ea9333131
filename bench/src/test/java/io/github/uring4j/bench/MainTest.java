package io.github.uring4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line itself: help for every subcommand whatever it requires, the version, one-line errors. */
class MainTest {
    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int exit = Main.run(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @ParameterizedTest(name = "{0} --help")
    @ValueSource(strings = {"iops", "generate", "read", "loadtypes", "files", "lucene", "carriers", "startup", "fio", "report", "jmh"})
    void everySubcommandHasHelpWhateverItRequires(String sub) {
        for (String[] args : new String[][] {{sub, "--help"}, {"help", sub}}) {
            Run r = run(args);
            assertEquals(0, r.exit(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: uring4j-bench " + sub), r.out());
        }
    }

    @Test
    void versionNamesTheBuildAndTheJdk() {
        for (String flag : new String[] {"-V", "--version"}) {
            Run r = run(flag);
            assertEquals(0, r.exit());
            assertTrue(r.out().startsWith("uring4j-bench "), r.out());
            assertFalse(r.out().contains("unknown"), r.out());
            assertTrue(r.out().contains("JDK " + Runtime.version().feature()), r.out());
        }
        Run iops = run("iops", "--version");
        assertEquals(0, iops.exit());
        assertTrue(iops.out().startsWith("uring4j-bench "), iops.out());
    }

    /** A directory that cannot be made is named with the reason (the JDK's own message is the bare path). */
    @Test
    void aDirectoryThatCannotBeMadeIsNamedWithTheReason() {
        Run r = run("startup", "--dir", "/proc/no-such-dir/x", "--runs", "1", "-q");
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("/proc/no-such-dir") && r.err().contains(": no such file or directory"), r.err());
    }

    /** Thread and depth counts a machine cannot run are refused at once, before any data set is looked at. */
    @Test
    void readRefusesThreadAndDepthCountsOutOfRange() {
        for (String[] args : new String[][] {{"--threads", "0"}, {"--threads", "100000"}, {"--depth", "0"},
                {"--depth", "2000000"}}) {
            Run r = run("read", "--dir", "/nonexistent", args[0], args[1]);
            assertEquals(2, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
            assertTrue(r.err().contains("--threads must be 1..1024 and --depth 1..1000000"), r.err());
        }
    }

    /** A report of 0 or negative seconds per row ran the whole suite and printed rows of zeros: refused at once. */
    @Test
    void reportRefusesADurationOutOfRange() {
        for (String d : new String[] {"0", "-1", "NaN", "1e9"}) {
            Run r = run("report", "--duration", d, "--dir", "/nonexistent/uring4j-report");
            assertEquals(2, r.exit(), d + ": " + r.out() + r.err());
            assertTrue(r.err().contains("--duration") && r.err().contains("0.1 to 86400"), r.err());
        }
    }

    /** A count of small files that would not fit the heap's list of their names is refused with one line. */
    @Test
    void filesRefusesACountOutOfRange() {
        for (String c : new String[] {"0", "100000000"}) {
            Run r = run("files", "--count", c, "--dir", "/nonexistent/uring4j-files");
            assertEquals(2, r.exit(), c + ": " + r.out() + r.err());
            assertTrue(r.err().contains("--count " + c + ": must be 1 to 10000000"), r.err());
        }
    }

    /** A depth one ring cannot hold is refused naming the strategy (it reached io_uring_setup's EINVAL). */
    @Test
    void readRefusesADepthItsRingCannotHold() {
        for (String[] a : new String[][] {{"ring", "65536", "32768"}, {"async", "20000", "16384"}}) {
            Run r = run("read", "--dir", "/nonexistent", "-s", a[0], "--depth", a[1]);
            assertEquals(2, r.exit(), String.join(" ", a) + ": " + r.out() + r.err());
            assertTrue(r.err().contains("--depth " + a[1] + " is too deep for " + a[0] + ": at most " + a[2]), r.err());
        }
    }

    /** An empty list of words or strategies names nothing: "--only ," ran every case, "-s ," ran none with status 0. */
    @Test
    void emptyListsAreRefused() {
        Run files = run("files", "--only", ",", "--dir", "/nonexistent/uring4j-files");
        assertEquals(2, files.exit(), files.out() + files.err());
        assertTrue(files.err().contains("names no word"), files.err());
        Run read = run("read", "-s", ",", "--dir", "/nonexistent");
        assertEquals(2, read.exit(), read.out() + read.err());
        assertTrue(read.err().contains("names no strategy"), read.err());
    }
}
