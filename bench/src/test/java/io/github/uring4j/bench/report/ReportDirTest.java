package io.github.uring4j.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the report's data set goes by default: on a disk, even where the temporary directory is in memory. */
class ReportDirTest {
    @Test
    void aDirectoryInMemoryIsToldApartFromOneOnDisk() throws Exception {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.getFileStore(shm).type().equals("tmpfs"),
                "no tmpfs at /dev/shm");
        assertTrue(ReportCommand.inMemory(shm));
        assertTrue(ReportCommand.inMemory(shm.resolve("not/made/yet")), "the nearest directory that exists decides");
        Path varTmp = Path.of("/var/tmp");
        Assumptions.assumeFalse(Files.getFileStore(varTmp).type().equals("tmpfs"), "/var/tmp is in memory here");
        assertFalse(ReportCommand.inMemory(varTmp));
    }

    @TempDir
    Path tmp;

    /**
     * The report deletes its data directory whole when it ends: a {@code --dir} of the user's files (a probe's
     * {@code --dir} with a file and a folder in it) lost all of them. The report works in a directory of its own
     * inside such a one; a new or empty directory, or one the report marked before, is its own.
     */
    @Test
    void theReportDeletesOnlyADirectoryOfItsOwn() throws Exception {
        Path users = Files.createDirectories(tmp.resolve("users"));
        Files.writeString(users.resolve("precious.txt"), "important");
        Files.createDirectories(users.resolve("mydocs"));
        Path own = ReportCommand.ownDir(users);
        assertEquals(users.resolve("uring4j-report-data"), own);
        Files.write(own.resolve("data.bin"), new byte[10]);
        io.github.uring4j.bench.common.Trees.delete(own); // what the end of a run does
        assertEquals("important", Files.readString(users.resolve("precious.txt")));
        assertTrue(Files.isDirectory(users.resolve("mydocs")));
        Path fresh = tmp.resolve("fresh");
        assertEquals(fresh, ReportCommand.ownDir(fresh), "a new directory is the report's");
        Files.write(fresh.resolve("left-by-a-killed-run.bin"), new byte[10]);
        assertEquals(fresh, ReportCommand.ownDir(fresh), "and stays its own, marked, for the next run");
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertThrows(io.github.uring4j.bench.UsageError.class, () -> ReportCommand.ownDir(file));
    }

    /** Two reports on one data directory would delete each other's data: the second is refused while the first runs. */
    @Test
    void aSecondReportOnTheSameDirectoryIsRefused() throws Exception {
        Path own = ReportCommand.ownDir(tmp.resolve("shared"));
        try (java.nio.channels.FileChannel first = ReportCommand.lock(own)) {
            io.github.uring4j.bench.UsageError e = assertThrows(io.github.uring4j.bench.UsageError.class,
                    () -> ReportCommand.lock(own));
            assertTrue(e.getMessage().contains("another uring4j-bench report is running on " + own), e.getMessage());
        }
        ReportCommand.lock(own).close(); // the first has ended: the next run may go
    }

    /** A JVM whose temporary directory is on tmpfs puts the data set under /var/tmp, as {@code --help} says. */
    @Test
    void aTemporaryDirectoryInMemoryMovesTheDefaultToVarTmp() throws Exception {
        Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.getFileStore(shm).type().equals("tmpfs"),
                "no tmpfs at /dev/shm");
        Assumptions.assumeFalse(ReportCommand.inMemory(Path.of("/var/tmp")), "/var/tmp is in memory here");
        for (String tmp : new String[] {"/dev/shm", "/var/tmp"}) {
            Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                    "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
                    "io.github.uring4j.bench.Main", "report", "--help").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).replaceAll("\\s+", " ");
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains("(default: /var/tmp/uring4j-report-data"), tmp + ": " + out);
        }
    }
}
