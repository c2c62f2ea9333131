package io.github.uring4j.bench.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.Main;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StartupCommandTest {
    @TempDir
    Path tmp;

    @Test
    void bothProvidersRunInFreshJvmsAndEveryCopyIsChecked() throws Exception {
        Path json = tmp.resolve("startup.json");
        Path dir = tmp.resolve("d");
        int exit = new CommandLine(new StartupCommand()).execute("--dir", dir.toString(), "--runs", "1", "--work",
                "0,10", "--size", "5000", "-q", "--json", json.toString());
        assertEquals(0, exit);
        List<Result> rows = ResultFile.read(json).results;
        // two amounts of work, two figures each (the whole run, the first read), two providers
        assertEquals(8, rows.size(), rows.toString());
        for (Result r : rows) {
            assertTrue(r.primaryValue() > 0, r.strategy + " " + r.params + " " + r.metrics);
            assertTrue(r.metrics.get("wall_ms") > r.metrics.get("first_read_ms"), r.metrics.toString());
        }
        assertTrue(rows.stream().anyMatch(r -> r.strategy.equals(StartupCommand.URING)));
        assertTrue(rows.stream().anyMatch(r -> r.strategy.equals(StartupCommand.BUILTIN)));
        try (var s = Files.list(dir)) {
            assertFalse(s.findAny().isPresent(), "the source and the copy are left behind");
        }
    }

    @Test
    void badArgumentsAreAUsageError() {
        for (String[] args : new String[][] {{"--runs", "0"}, {"--work", "-1"}, {"--size", "-5"}}) {
            String[] all = new String[args.length + 3];
            all[0] = "startup";
            all[1] = "--dir";
            all[2] = tmp.resolve("e").toString();
            System.arraycopy(args, 0, all, 3, args.length);
            assertEquals(2, Main.run(all), String.join(" ", args));
        }
        assertFalse(Files.exists(tmp.resolve("e")), "a refused run made its directory");
    }
}
