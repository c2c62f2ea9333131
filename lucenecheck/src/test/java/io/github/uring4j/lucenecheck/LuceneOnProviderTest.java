package io.github.uring4j.lucenecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.lucene.LuceneWorkload;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Lucene, unchanged, on {@code UringFileSystemProvider}: {@link LuceneWorkload} runs in one child JVM on the
 * built-in provider and in another with the provider installed, each indexing the same generated corpus,
 * committing, checking the index, reopening it and running a fixed set of queries with {@code NIOFSDirectory} and
 * with {@code MMapDirectory}. Every result (hit counts, top documents, their scores and stored fields) must be
 * identical. The children's timings are printed for comparison; nothing is asserted about them.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LuceneOnProviderTest {
    static final String PROVIDER = "io.github.uring4j.nio.UringFileSystemProvider";
    static final int DOCS = 5000;
    static final long SEED = 20261122L;
    static final int QUERY_ROUNDS = 100;

    @TempDir
    Path tmp;

    List<String> run(String name, List<String> jvmArgs) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve(name));
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LuceneWorkload.class.getName(),
                dir.toString(), String.valueOf(DOCS), String.valueOf(SEED), String.valueOf(QUERY_ROUNDS)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), name + ": child still running");
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(0, p.exitValue(), name + ":\n" + String.join("\n", lines));
        for (String l : lines) {
            if (l.contains("TIMING") || l.contains("DIRECTORY") || l.startsWith("PROVIDER") || l.startsWith("STATS")) {
                System.out.println(name + ": " + l);
            }
        }
        return lines;
    }

    static List<String> results(List<String> lines, String kind) {
        return lines.stream().filter(l -> l.startsWith(kind + " RESULT ")).map(l -> l.substring(kind.length() + 8))
                .toList();
    }

    @Test
    void luceneFindsTheSameDocumentsWithTheSameScoresOnTheProvider() throws Exception {
        List<String> builtin = run("builtin", List.of());
        List<String> uring = run("provider", List.of("-Djava.nio.file.spi.DefaultFileSystemProvider=" + PROVIDER));
        assertTrue(builtin.contains("PROVIDER sun.nio.fs.LinuxFileSystemProvider"), builtin.toString());
        assertTrue(uring.contains("PROVIDER " + PROVIDER), uring.toString());
        Set<String> channels = Set.of("sun.nio.ch.FileChannelImpl", "io.github.uring4j.nio.UringFileChannel");
        for (String kind : List.of("nio", "mmap")) {
            String directory = kind.equals("nio") ? "NIOFSDirectory" : "MMapDirectory";
            String line = uring.stream().filter(l -> l.startsWith(kind + " DIRECTORY ")).findFirst().orElseThrow();
            assertTrue(line.startsWith(kind + " DIRECTORY " + directory + " CHANNEL "), line);
            assertTrue(channels.contains(line.substring(line.lastIndexOf(' ') + 1)), line);
            List<String> expected = results(builtin, kind);
            assertTrue(expected.size() > 20, "every query answered: " + builtin);
            assertTrue(expected.get(0).startsWith("checkindex clean=true "), expected.get(0));
            assertEquals(expected, results(uring, kind), kind + ": the provider's results");
        }
        assertEquals(results(builtin, "nio"), results(builtin, "mmap"), "both directories read the same index");
        if (io.github.uring4j.file.IoExecutor.defaultExecutor().backend() == io.github.uring4j.file.Backend.IO_URING) {
            // io_uring works here: Lucene ran on uring4j's channels, not the JDK's served after a warning
            for (String kind : List.of("nio", "mmap")) {
                String line = uring.stream().filter(l -> l.startsWith(kind + " DIRECTORY ")).findFirst().orElseThrow();
                assertTrue(line.endsWith(" CHANNEL io.github.uring4j.nio.UringFileChannel"), line);
            }
            String stats = uring.stream().filter(l -> l.startsWith("STATS ")).findFirst().orElseThrow();
            assertTrue(stats.contains("jdkChannels=0,") && !stats.contains("uringChannels=0,"), stats);
        }
    }
}
