package io.github.uring4j.bench.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.github.uring4j.bench.common.Latency;
import io.github.uring4j.bench.common.Result;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * JMH's JSON results ({@code -rf json}) as report sections: one per benchmark class, mode and thread count; the
 * parameters that vary become the grid's cases, the benchmark methods its columns. Sample-mode percentiles
 * become latency rows.
 */
public final class JmhResults {

    private JmhResults() {
    }

    /** Whether the file is a JMH result (a JSON array whose first element names a benchmark). */
    public static boolean isJmh(Path p) throws IOException {
        try (Reader r = Files.newBufferedReader(p)) {
            JsonElement e = JsonParser.parseReader(r);
            return e.isJsonArray() && (e.getAsJsonArray().isEmpty()
                    || e.getAsJsonArray().get(0).getAsJsonObject().has("benchmark"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    public static List<Section> read(Path p) throws IOException {
        JsonArray all;
        try (Reader r = Files.newBufferedReader(p)) {
            all = JsonParser.parseReader(r).getAsJsonArray();
        }
        Map<String, List<JsonObject>> groups = new LinkedHashMap<>();
        for (JsonElement e : all) {
            JsonObject o = e.getAsJsonObject();
            String bench = o.get("benchmark").getAsString();
            String cls = bench.substring(0, bench.lastIndexOf('.'));
            cls = cls.substring(cls.lastIndexOf('.') + 1);
            String key = cls + ", " + o.get("mode").getAsString() + ", " + o.get("threads").getAsInt() + " thread"
                    + (o.get("threads").getAsInt() == 1 ? "" : "s");
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(o);
        }
        List<Section> out = new ArrayList<>();
        groups.forEach((title, list) -> {
            // Parameters whose value differs between entries name the case; the rest are constant.
            Map<String, Set<String>> values = new TreeMap<>();
            for (JsonObject o : list) {
                params(o).forEach((k, v) -> values.computeIfAbsent(k, x -> new LinkedHashSet<>()).add(v));
            }
            List<String> varying = new ArrayList<>();
            StringBuilder fixed = new StringBuilder();
            values.forEach((k, v) -> {
                if (v.size() > 1) {
                    varying.add(k);
                } else {
                    fixed.append(fixed.isEmpty() ? "" : " ").append(k).append('=').append(v.iterator().next());
                }
            });
            List<Result> rows = new ArrayList<>();
            for (JsonObject o : list) {
                String bench = o.get("benchmark").getAsString();
                Result r = new Result(title, bench.substring(bench.lastIndexOf('.') + 1));
                Map<String, String> ps = params(o);
                StringBuilder cat = new StringBuilder();
                for (String k : varying) {
                    cat.append(cat.isEmpty() ? "" : " ").append(k).append('=').append(ps.get(k));
                }
                r.param("category", cat.isEmpty() ? "-" : cat.toString());
                r.param("threads", o.get("threads").getAsInt());
                ps.forEach(r::param);
                JsonObject pm = o.getAsJsonObject("primaryMetric");
                String unit = pm.get("scoreUnit").getAsString();
                r.primary("score", unit);
                r.metric("score", pm.get("score").getAsDouble());
                if (o.get("mode").getAsString().equals("sample") && pm.has("scorePercentiles")) {
                    JsonObject pc = pm.getAsJsonObject("scorePercentiles");
                    double toNs = nanosPer(unit);
                    String[] keys = {"50.0", "90.0", "99.0", "99.9", "99.99", "100.0"};
                    for (int i = 0; i < keys.length; i++) {
                        if (pc.has(keys[i])) {
                            r.metric(Latency.NAMES[i] + "_ns", pc.get(keys[i]).getAsDouble() * toNs);
                        }
                    }
                }
                if (o.has("secondaryMetrics")) {
                    // -prof gc: bytes allocated per operation
                    o.getAsJsonObject("secondaryMetrics").entrySet().forEach(e -> {
                        if (e.getKey().endsWith("gc.alloc.rate.norm")) {
                            r.metric("alloc_b_per_op", e.getValue().getAsJsonObject().get("score").getAsDouble());
                        }
                    });
                }
                rows.add(r);
            }
            out.add(new Section("JMH " + title, "uring4j-bench jmh " + title.substring(0, title.indexOf(','))
                    + (fixed.isEmpty() ? "" : "  (" + fixed + ")"), rows));
        });
        return out;
    }

    private static Map<String, String> params(JsonObject o) {
        Map<String, String> m = new TreeMap<>();
        if (o.has("params")) {
            o.getAsJsonObject("params").entrySet().forEach(e -> m.put(e.getKey(), e.getValue().getAsString()));
        }
        return m;
    }

    private static double nanosPer(String unit) {
        if (unit.startsWith("us")) {
            return 1e3;
        }
        if (unit.startsWith("ms")) {
            return 1e6;
        }
        if (unit.startsWith("s/")) {
            return 1e9;
        }
        return 1;
    }
}
