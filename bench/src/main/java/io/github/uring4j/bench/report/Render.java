package io.github.uring4j.bench.report;

import io.github.uring4j.bench.common.Environment;
import io.github.uring4j.bench.common.Latency;
import io.github.uring4j.bench.common.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Turns sections into tables: a list of rows of cells, then Markdown or HTML. */
public final class Render {

    private Render() {
    }

    /** A row's name in tables and charts: the strategy and what distinguishes it. */
    public static String label(Result r) {
        StringBuilder b = new StringBuilder(r.strategy);
        if (r.params.containsKey("category")) {
            return b.append(' ').append(r.params.get("category")).toString();
        }
        String t = r.params.get("threads");
        String d = r.params.get("depth");
        if (t != null) {
            b.append(" t").append(t);
        }
        if (d != null && !d.equals("1")) {
            b.append(" qd").append(d);
        }
        return b.toString();
    }

    /** Header and body cells of a section's table. */
    public static List<List<String>> table(Section s) {
        List<List<String>> out = new ArrayList<>();
        if (s.isGrid()) {
            List<String> strategies = new ArrayList<>();
            Map<String, Map<String, Result>> grid = new LinkedHashMap<>();
            for (Result r : s.rows) {
                if (!strategies.contains(r.strategy)) {
                    strategies.add(r.strategy);
                }
                grid.computeIfAbsent(r.params.get("category"), k -> new LinkedHashMap<>()).put(r.strategy, r);
            }
            List<String[]> ratios = new ArrayList<>();
            for (String[] pair : Section.RATIOS) {
                if (strategies.contains(pair[0]) && strategies.contains(pair[1])) {
                    ratios.add(pair);
                }
            }
            List<String> head = new ArrayList<>(List.of("case"));
            for (String st : strategies) {
                head.add(st + " " + s.rows.get(0).primaryUnit);
            }
            for (String[] pair : ratios) {
                head.add(pair[0] + " / " + pair[1]);
            }
            out.add(head);
            grid.forEach((k, m) -> {
                List<String> row = new ArrayList<>(List.of(k));
                for (String st : strategies) {
                    Result r = m.get(st);
                    row.add(r == null ? "–" : num(r.primaryValue(), r.primaryValue() < 10 ? 3 : r.primaryValue() < 1000 ? 1 : 0));
                }
                for (String[] pair : ratios) {
                    Result a = m.get(pair[0]);
                    Result b = m.get(pair[1]);
                    row.add(a == null || b == null ? "–" : num(ratio(a, b), 2) + "×");
                }
                out.add(row);
            });
            return out;
        }
        Result base = s.baseline();
        boolean lat = s.hasLatency();
        boolean carriers = s.rows.stream().anyMatch(r -> r.metrics.containsKey("carriers"));
        List<String> head = new ArrayList<>(List.of("strategy", "threads", "in flight", s.rows.get(0).primaryUnit,
                "× " + base.strategy, "CPU µs/op"));
        if (carriers) {
            head.add("carrier threads");
            head.add("threads that read");
            head.add("from ready p50 ms");
            head.add("from ready p99 ms");
        }
        if (lat) {
            for (String n : Latency.NAMES) {
                head.add(n + " µs");
            }
        }
        out.add(head);
        for (Result r : s.rows) {
            List<String> row = new ArrayList<>();
            row.add(r.strategy);
            row.add(r.params.getOrDefault("threads", ""));
            row.add(r.params.getOrDefault("depth", ""));
            row.add(num(r.primaryValue(), 0));
            // uring4j beside fio: against the mean of the fio runs around it where fio ran twice (O_DIRECT)
            Double vsFio = r.metrics.get("ratio_vs_fio");
            row.add(num(vsFio != null && base.strategy.startsWith("fio") ? vsFio : r.primaryValue() / base.primaryValue(), 2));
            Double cpu = r.metrics.get("cpu_us_per_op");
            row.add(cpu == null ? "–" : num(cpu, 2));
            if (carriers) {
                Double c = r.metrics.get("carriers");
                row.add(c == null ? "–" : num(c, 0));
                Double served = r.metrics.get("served");
                row.add(served == null ? "–" : num(served, 0));
                for (String k : new String[] {"waited_p50_ns", "waited_p99_ns"}) {
                    Double v = r.metrics.get(k);
                    row.add(v == null ? "–" : num(v / 1e6, v < 1e6 ? 3 : 1));
                }
            }
            if (lat) {
                for (String n : Latency.NAMES) {
                    Double v = r.metrics.get(n + "_ns");
                    row.add(v == null ? "–" : num(v / 1e3, v < 10_000 ? 2 : 0));
                }
            }
            out.add(row);
        }
        return out;
    }

    /** How many times better {@code a} is than {@code b}: throughput divides, time per operation inverts. */
    static double ratio(Result a, Result b) {
        String unit = a.primaryUnit == null ? "" : a.primaryUnit;
        boolean timePerOp = unit.endsWith("/op");
        return timePerOp ? b.primaryValue() / a.primaryValue() : a.primaryValue() / b.primaryValue();
    }

    static String num(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    public static String markdown(String title, Environment env, List<String> notes, List<Section> sections,
                                  Map<Section, List<String>> charts) {
        StringBuilder b = new StringBuilder();
        b.append("# ").append(title).append("\n\n");
        environment(env).forEach((k, v) -> b.append("- **").append(k).append("**: ").append(v).append('\n'));
        b.append('\n');
        for (String n : notes) {
            b.append(n).append("\n\n");
        }
        List<List<String>> targets = Targets.table(sections);
        if (targets.size() > 1) {
            b.append("## Claims (docs/benchmarks.md)\n\n");
            for (int i = 0; i < targets.size(); i++) {
                b.append("| ").append(String.join(" | ", targets.get(i))).append(" |\n");
                if (i == 0) {
                    b.append("|---|---|---|---|\n");
                }
            }
            b.append('\n');
        }
        for (Section s : sections) {
            b.append("## ").append(s.title).append("\n\n");
            if (s.command != null) {
                b.append("`").append(s.command).append("`\n\n");
            }
            String cache = s.rows.stream().map(r -> r.params.get("cache_before")).filter(c -> c != null).findFirst().orElse(null);
            if (cache != null) {
                b.append("Page cache before the runs: ").append(cache).append(".\n\n");
            }
            List<List<String>> t = table(s);
            for (int i = 0; i < t.size(); i++) {
                b.append("| ").append(String.join(" | ", t.get(i))).append(" |\n");
                if (i == 0) {
                    b.append("|").append("---|".repeat(t.get(0).size())).append('\n');
                }
            }
            b.append('\n');
            for (String c : charts.getOrDefault(s, List.of())) {
                b.append("![").append(s.title).append("](charts/").append(c).append(")\n");
            }
            b.append('\n');
        }
        return b.toString();
    }

    public static String html(String title, Environment env, List<String> notes, List<Section> sections,
                              Map<Section, List<String>> charts) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(esc(title)).append("</title>\n")
                .append("<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}")
                .append("table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
                .append("td:first-child,th:first-child{text-align:left}th{background:#f3f3f3}code{background:#f6f6f6;padding:2px 4px}")
                .append("img{max-width:100%}</style></head><body>\n");
        b.append("<h1>").append(esc(title)).append("</h1>\n<ul>\n");
        environment(env).forEach((k, v) -> b.append("<li><b>").append(esc(k)).append("</b>: ").append(esc(v)).append("</li>\n"));
        b.append("</ul>\n");
        for (String n : notes) {
            b.append("<p>").append(inlineCode(n)).append("</p>\n");
        }
        List<List<String>> targets = Targets.table(sections);
        if (targets.size() > 1) {
            b.append("<h2>Claims (docs/benchmarks.md)</h2>\n<table>\n");
            for (int i = 0; i < targets.size(); i++) {
                String cell = i == 0 ? "th" : "td";
                b.append("<tr>");
                for (String c : targets.get(i)) {
                    b.append('<').append(cell).append('>').append(inlineCode(c)).append("</").append(cell).append('>');
                }
                b.append("</tr>\n");
            }
            b.append("</table>\n");
        }
        for (Section s : sections) {
            b.append("<h2>").append(esc(s.title)).append("</h2>\n");
            if (s.command != null) {
                b.append("<p><code>").append(esc(s.command)).append("</code></p>\n");
            }
            String cache = s.rows.stream().map(r -> r.params.get("cache_before")).filter(c -> c != null).findFirst().orElse(null);
            if (cache != null) {
                b.append("<p>Page cache before the runs: ").append(esc(cache)).append(".</p>\n");
            }
            List<List<String>> t = table(s);
            b.append("<table>\n");
            for (int i = 0; i < t.size(); i++) {
                String cell = i == 0 ? "th" : "td";
                b.append("<tr>");
                for (String c : t.get(i)) {
                    b.append('<').append(cell).append('>').append(esc(c)).append("</").append(cell).append('>');
                }
                b.append("</tr>\n");
            }
            b.append("</table>\n");
            for (String c : charts.getOrDefault(s, List.of())) {
                b.append("<p><img src=\"charts/").append(esc(c)).append("\" alt=\"").append(esc(s.title)).append("\"></p>\n");
            }
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    static Map<String, String> environment(Environment e) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("Machine", e.cpu + ", " + e.cores + " cores, " + e.ram + " RAM");
        m.put("Kernel", "Linux " + e.kernel);
        m.put("JDK", e.jdk);
        m.put("File system", e.fileSystem == null ? "unknown" : e.fileSystem);
        m.put("Page cache", e.pageCache == null ? "see each section" : e.pageCache);
        m.put("Measured", e.date);
        return m;
    }

    /** Escapes {@code s} and turns Markdown {@code `code`} spans into {@code <code>} elements. */
    static String inlineCode(String s) {
        String[] parts = esc(s).split("`", -1);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i % 2 == 1 && i < parts.length - 1) {
                b.append("<code>").append(parts[i]).append("</code>");
            } else {
                b.append(i % 2 == 1 ? "`" : "").append(parts[i]);
            }
        }
        return b.toString();
    }

    static String esc(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
