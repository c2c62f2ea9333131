package io.github.uring4j.h2check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.file.Backend;
import io.github.uring4j.file.IoExecutor;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The H2 database, unchanged, on {@code UringFileSystemProvider}: {@link H2Workload} runs in one child JVM on the
 * built-in provider and in another with the provider installed, through H2's {@code file:}, {@code nioMapped:},
 * {@code async:} and {@code split:} file systems. Every result (rows, large objects, index lookups, the CSV export
 * read back, the script run into a new database, the restored backup, the files left) must be identical, and each
 * run's copies must hold what its database holds. The children's timings are printed; nothing is asserted about them.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class H2OnProviderTest {
    static final String PROVIDER = "io.github.uring4j.nio.UringFileSystemProvider";
    static final int ROWS = 20_000;
    static final long SEED = 20261127L;
    static final List<String> FILE_SYSTEMS = List.of("file", "nioMapped", "async", "split");

    @TempDir
    Path tmp;

    List<String> run(String name, List<String> jvmArgs) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve(name));
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), H2Workload.class.getName(), dir.toString(),
                String.valueOf(ROWS), String.valueOf(SEED)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), name + ": child still running");
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(0, p.exitValue(), name + ":\n" + String.join("\n", lines));
        for (String l : lines) {
            if (l.startsWith("TIMING") || l.startsWith("PROVIDER") || l.startsWith("CHANNELS") || l.startsWith("STATS")) {
                System.out.println(name + ": " + l);
            }
        }
        return lines;
    }

    static String result(List<String> lines, String fs, String what) {
        String prefix = "RESULT " + fs + " " + what + " ";
        return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + "line in " + lines));
    }

    @Test
    void h2ReadsBackWhatItWroteThroughEveryFileSystemOfItsOwnOnTheProvider() throws Exception {
        List<String> builtin = run("builtin", List.of());
        List<String> uring = run("provider", List.of("-Djava.nio.file.spi.DefaultFileSystemProvider=" + PROVIDER));
        assertTrue(builtin.contains("PROVIDER sun.nio.fs.LinuxFileSystemProvider"), builtin.toString());
        assertTrue(uring.contains("PROVIDER " + PROVIDER), uring.toString());
        long deleted = (ROWS + 10) / 11; // ids that are multiples of 11
        for (List<String> lines : List.of(builtin, uring)) {
            for (String fs : FILE_SYSTEMS) {
                String rows = result(lines, fs, "rows");
                String lobs = result(lines, fs, "lobs");
                assertEquals(String.valueOf(ROWS - deleted), rows.split(" ")[0], fs + ": rows left after the deletes");
                assertEquals("32", lobs.split(" ")[0], fs + ": large objects left after the deletes");
                assertEquals(String.valueOf(ROWS - deleted), result(lines, fs, "lookups").split(" ")[0],
                        fs + ": every row found through the index");
                assertTrue(result(lines, fs, "csv").startsWith((ROWS - deleted) + " "), fs + ": the CSV file's rows");
                assertEquals(rows + " " + lobs, result(lines, fs, "script"), fs + ": the script holds the database");
                assertEquals(rows + " " + lobs, result(lines, fs, "backup"), fs + ": the backup holds the database");
            }
        }
        List<String> expected = builtin.stream().filter(l -> l.startsWith("RESULT ")).toList();
        assertEquals(FILE_SYSTEMS.size() * 7, expected.size(), builtin.toString());
        assertEquals(expected, uring.stream().filter(l -> l.startsWith("RESULT ")).toList(), "the provider's results");
        if (IoExecutor.defaultExecutor().backend() == Backend.IO_URING) {
            // io_uring works here: H2 ran on uring4j's channels, not the JDK's served after a warning
            assertTrue(uring.contains("CHANNELS io.github.uring4j.nio.UringFileChannel "
                    + "io.github.uring4j.nio.UringAsynchronousFileChannel"), uring.toString());
            String stats = uring.stream().filter(l -> l.startsWith("STATS ")).findFirst().orElseThrow();
            assertTrue(stats.contains("jdkChannels=0,") && !stats.contains("uringChannels=0,")
                    && !stats.contains("ringOperations=0,"), stats);
        }
    }
}
