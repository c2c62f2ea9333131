package io.github.uring4j.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.common.Environment;
import io.github.uring4j.bench.common.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RenderTest {

    private static Result read(String strategy, double ops) {
        Result r = new Result("random-read-4k", strategy).param("threads", 1).param("depth", 32).primary("ops_per_s", "reads/s");
        r.metric("ops_per_s", ops).metric("cpu_us_per_op", 1.5);
        for (String n : new String[] {"p50", "p90", "p99", "p999", "p9999", "max"}) {
            r.metric(n + "_ns", 2000);
        }
        return r;
    }

    private static Environment env() {
        Environment e = new Environment();
        e.cpu = "Test CPU";
        e.cores = 2;
        e.ram = "1 GiB";
        e.kernel = "6.1";
        e.jdk = "25";
        e.fileSystem = "ext4 on /dev/x (mounted at /)";
        e.pageCache = "cached";
        e.date = "now";
        return e;
    }

    @Test
    void readTableComparesWithChannel() {
        Section s = new Section("Reads", "cmd", List.of(read("ring", 300), read("channel", 100)));
        List<List<String>> t = Render.table(s);
        assertEquals("× channel", t.get(0).get(4));
        assertEquals("3.00", t.get(1).get(4));
        assertEquals("2.00", t.get(1).get(6));
    }

    @Test
    void loadTypesBecomeAGrid() {
        Result a = new Result("loadtype-seq-read", "channel").param("category", "seq-read 64M")
                .primary("gb_per_s", "GB/s").metric("gb_per_s", 2);
        Result b = new Result("loadtype-seq-read", "ring").param("category", "seq-read 64M")
                .primary("gb_per_s", "GB/s").metric("gb_per_s", 3);
        List<List<String>> t = Render.table(new Section("Load types", null, List.of(a, b)));
        assertEquals(List.of("case", "channel GB/s", "ring GB/s", "ring / channel"), t.get(0));
        assertEquals(List.of("seq-read 64M", "2.000", "3.000", "1.50×"), t.get(1));
    }

    @Test
    void timePerOperationRatiosAreInverted() {
        Result a = new Result("b", "ringWholeFile").param("category", "-").primary("score", "us/op").metric("score", 50);
        Result b = new Result("b", "fileSizeBuffer").param("category", "-").primary("score", "us/op").metric("score", 100);
        List<List<String>> t = Render.table(new Section("Buffering", null, List.of(a, b)));
        assertEquals("2.00×", t.get(1).get(3));
    }

    @Test
    void pagesNameTheEnvironmentAndCharts(@TempDir Path dir) throws Exception {
        Section s = new Section("Reads <1>", "cmd", List.of(read("ring", 300), read("channel", 100)));
        List<String> charts = List.of(Charts.throughput(s, dir), Charts.latency(s, dir));
        assertTrue(Files.size(dir.resolve(charts.get(0))) > 1000);
        String md = Render.markdown("T", env(), List.of(), List.of(s), Map.of(s, charts));
        assertTrue(md.contains("Test CPU, 2 cores, 1 GiB RAM"));
        assertTrue(md.contains("| ring | 1 | 32 | 300 | 3.00 |"));
        assertTrue(md.contains("charts/reads-1-latency.png"));
        String html = Render.html("T", env(), List.of(), List.of(s), Map.of(s, charts));
        assertTrue(html.contains("Reads &lt;1&gt;"));
        assertTrue(html.contains("ext4 on /dev/x"));
    }

    @Test
    void aStrategyKeepsItsColourInEveryChart() {
        assertEquals(Charts.colour("ring"), Charts.colour("uring4j ring"));
        assertEquals(Charts.colour("ring").darker(), Charts.colour("uring4j ring (verified)"));
        assertEquals(Charts.colour("something new"), Charts.colour("something new"));
        assertTrue(!Charts.colour("ring").equals(Charts.colour("async")));
    }

    @Test
    void chartFiguresArePlain() {
        assertEquals("800k", Charts.plain(800_000));
        assertEquals("1.2M", Charts.plain(1_200_000));
        assertEquals("1,000", Charts.plain(1000));
        assertEquals("0.5", Charts.plain(0.5));
    }

    @Test
    void targetsComeFromTheSectionsPresent() {
        Result fio = read("fio io_uring", 100);
        Result ring = read("uring4j ring", 96);
        Section s = new Section("fio and uring4j, random 4 KiB reads, page cache, depth 32", null, List.of(fio, ring));
        List<List<String>> t = Targets.table(List.of(s));
        assertEquals(2, t.size());
        assertEquals(List.of("0.96×", "≥ 0.95×", "yes"), t.get(1).subList(1, 4));
    }

    @Test
    void aMissThatTwoDecimalsWouldRoundUpToTheGoalShowsThree() {
        assertEquals("0.948×", Targets.times(0.948, 0.95));
        assertEquals("0.95×", Targets.times(0.95, 0.95));
        assertEquals("0.94×", Targets.times(0.9449, 0.95));
        assertEquals("1.20×", Targets.times(1.2, 1.0));
        assertEquals("0.996×", Targets.times(0.996, 1.0));
        assertEquals("1.00×", Targets.times(1.004, 1.0));
    }
}
