package io.github.uring4j.bench.iops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The iops tool end to end: a verified run, a corrupted block caught, and one-line errors for bad arguments. */
class IopsCommandTest {
    @TempDir
    Path dir;

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

    @Test
    void verifiedRandomReadsThroughTheRingAndTheJdk() {
        String f = dir.resolve("data").toString();
        Run ring = run("iops", "-r", "1", "-O0", "-d16", "-V2", "--create", "8m", "--json", f);
        assertEquals(0, ring.exit(), ring.err());
        assertTrue(ring.out().contains("\"engine\":\"io_uring\""), ring.out());
        assertTrue(!ring.out().contains("\"verified\":0,"), "blocks were verified: " + ring.out());
        Run jdk = run("iops", "-r", "1", "-O1", "-S1", "-V1", f);
        assertEquals(0, jdk.exit(), jdk.err());
        assertTrue(jdk.out().contains("FileChannel") && jdk.out().contains("IOPS="), jdk.out());
        Run write = run("iops", "-r", "1", "-O1", "-W1", "-d8", f);
        assertEquals(0, write.exit(), write.err());
        Run again = run("iops", "-r", "1", "-O0", "-V2", "-R0", f);
        assertEquals(0, again.exit(), "written blocks carry the pattern: " + again.err());
    }

    @Test
    void aCorruptedBlockFailsTheRun() throws Exception {
        Path f = dir.resolve("corrupt");
        assertEquals(0, run("iops", "-r", "1", "-O0", "-d4", "--create", "1m", "-q", f.toString()).exit());
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 4096 * 100 + 17);
        }
        Run r = run("iops", "-r", "2", "-O0", "-d4", "-V2", "-R0", "-q", f.toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("verification failed") && r.err().contains(String.valueOf(4096 * 100 + 16)), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    /** The largest depth runs on every engine (the async engines' ring is capped at the kernel's 32768 entries). */
    @Test
    void theLargestDepthRunsOnTheAsyncEngine() {
        String f = dir.resolve("deep").toString();
        Run r = run("iops", "-r", "1", "-O0", "-E", "handler", "-d", "32768", "-q", "--create", "8m", f);
        assertEquals(0, r.exit(), r.err());
    }

    @Test
    void badArgumentsGetOneLineAndExitTwo() {
        String f = dir.resolve("x").toString();
        assertEquals(0, run("iops", "-r", "1", "-q", "-O0", "--create", "1m", f).exit());
        String[][] bad = {
            {"iops", "--bogus", f},
            {"iops", "-b", "1000", "-O1", f},
            {"iops", dir.resolve("missing").toString()},
            {"iops", "-p1", "-O0", f},
            {"iops", "-d", "0", f},
            {"iops", "-b", "abc", f},
            {"iops", "--create", "12q", dir.resolve("y").toString()},
            {"iops", "-n", "1000", "-r", "1", f},
        };
        for (String[] args : bad) {
            Run r = run(args);
            assertEquals(2, r.exit(), String.join(" ", args) + " -> " + r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(!r.err().contains("Exception") && !r.err().contains("\tat "), r.err());
        }
    }
}
