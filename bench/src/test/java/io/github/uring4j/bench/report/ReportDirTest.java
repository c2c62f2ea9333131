package io.github.uring4j.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

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
