package io.github.uring4j.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.common.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A report section in a JVM of its own: its rows come back, its failure is named, nothing is left behind. */
class ChildRunTest {

    @Test
    void rowsOfTheChildComeBack(@TempDir Path dir) throws Exception {
        List<Result> rows = ChildRun.run(dir, "loadtypes", List.of("--size", "1M", "--min-time", "0", "--loads",
                "seq-read", "-s", "channel", "--dir", dir.resolve("lt").toString(), "--quiet"));
        assertEquals(1, rows.size());
        assertEquals("channel", rows.get(0).strategy);
        assertTrue(rows.get(0).primaryValue() > 0, "a rate was measured");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("lt")), left.toList(), "the rows' file is gone");
        }
    }

    @Test
    void aFailingChildIsNamedWithItsStatus(@TempDir Path dir) {
        IOException e = assertThrows(IOException.class,
                () -> ChildRun.run(dir, "loadtypes", List.of("--size", "0", "--dir", dir.toString(), "--quiet")));
        assertTrue(e.getMessage().contains("loadtypes --size 0") && e.getMessage().contains("exit status 2"),
                e.getMessage());
    }
}
