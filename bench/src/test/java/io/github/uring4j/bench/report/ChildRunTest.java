package io.github.uring4j.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.data.Generator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A report section in a JVM of its own: its rows come back, its failure is named, nothing is left behind. */
class ChildRunTest {

    @Test
    void rowsOfTheChildComeBack(@TempDir Path dir) throws Exception {
        List<Result> rows = ChildRun.run(dir, "loadtypes", List.of("--size", "1M", "--min-time", "0", "--loads",
                "seq-read", "-s", "channel", "--dir", dir.resolve("lt").toString(), "--quiet"), Duration.ofMinutes(2));
        assertEquals(1, rows.size());
        assertEquals("channel", rows.get(0).strategy);
        assertTrue(rows.get(0).primaryValue() > 0, "a rate was measured");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("lt")), left.toList(), "the rows' and the output's files are gone");
        }
    }

    @Test
    void aFailingChildIsNamedWithItsStatus(@TempDir Path dir) {
        IOException e = assertThrows(IOException.class,
                () -> ChildRun.run(dir, "loadtypes", List.of("--size", "0", "--dir", dir.toString(), "--quiet"),
                        Duration.ofMinutes(2)));
        assertTrue(e.getMessage().contains("loadtypes --size 0") && e.getMessage().contains("exit status 2"),
                e.getMessage());
    }

    @Test
    void aChildThatOverrunsIsKilledAndItsThreadsAreShown(@TempDir Path dir) throws Exception {
        Generator.generate(dir.resolve("lt"), 1, 16, true);
        // a minute of reading a 64 KiB file: far over the limit
        List<String> args = List.of("--dir", dir.resolve("lt").toString(), "-s", "channel", "--duration", "60", "--quiet");
        IOException e = assertThrows(IOException.class, () -> ChildRun.run(dir, "read", args, Duration.ofSeconds(3)));
        assertTrue(e.getMessage().contains("did not end within 3 s") && e.getMessage().contains("threads are printed"),
                e.getMessage());
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList(),
                "the child is gone");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("lt")), left.toList(), "the rows' and the output's files are gone");
        }
    }
}
