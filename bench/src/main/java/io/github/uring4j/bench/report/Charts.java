package io.github.uring4j.bench.report;

import io.github.uring4j.bench.common.Latency;
import io.github.uring4j.bench.common.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;

/** PNG charts of a section: throughput bars, and latency percentiles on a log scale. */
public final class Charts {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** Bars of the primary figure per row (or per (load, size) and strategy for a grid). Returns the file name. */
    public static String throughput(Section s, Path dir) throws IOException {
        Result first = s.rows.get(0);
        CategoryChart c = new CategoryChartBuilder().width(900).height(420).title(s.title)
                .yAxisTitle(first.primaryUnit).build();
        style(c);
        if (s.isGrid()) {
            Map<String, Map<String, Double>> byStrategy = new LinkedHashMap<>();
            List<String> cats = new ArrayList<>();
            for (Result r : s.rows) {
                String cat = r.params.get("category");
                if (!cats.contains(cat)) {
                    cats.add(cat);
                }
                byStrategy.computeIfAbsent(r.strategy, k -> new LinkedHashMap<>()).put(cat, r.primaryValue());
            }
            byStrategy.forEach((st, m) -> {
                List<Double> ys = new ArrayList<>();
                for (String cat : cats) {
                    ys.add(m.getOrDefault(cat, 0.0));
                }
                c.addSeries(st, cats, ys);
            });
        } else {
            List<String> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (Result r : s.rows) {
                xs.add(Render.label(r));
                ys.add(r.primaryValue());
            }
            c.addSeries(first.primaryUnit, xs, ys);
            c.getStyler().setLegendVisible(false);
            c.getStyler().setXAxisLabelRotation(20);
        }
        return save(c, dir, s.slug() + "-throughput");
    }

    /** One line per row through p50 ... max, microseconds on a log axis. */
    public static String latency(Section s, Path dir) throws IOException {
        CategoryChart c = new CategoryChartBuilder().width(900).height(420).title(s.title + ": latency")
                .yAxisTitle("microseconds (log)").build();
        style(c);
        c.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        c.getStyler().setYAxisLogarithmic(true);
        List<String> xs = List.of(Latency.NAMES);
        java.util.Set<String> used = new java.util.HashSet<>();
        for (Result r : s.rows) {
            if (!r.metrics.containsKey("p50_ns")) {
                continue;
            }
            List<Double> ys = new ArrayList<>();
            for (String n : Latency.NAMES) {
                // log axis: a zero (no samples) would be undrawable
                ys.add(Math.max(0.01, r.metrics.getOrDefault(n + "_ns", 0.0) / 1e3));
            }
            String name = Render.label(r);
            while (!used.add(name)) {
                name = name + "'";
            }
            c.addSeries(name, xs, ys);
        }
        return save(c, dir, s.slug() + "-latency");
    }

    private static void style(CategoryChart c) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setPlotGridVerticalLinesVisible(false);
        c.getStyler().setToolTipsEnabled(false);
    }

    private static String save(CategoryChart c, Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        BitmapEncoder.saveBitmap(c, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        return name + ".png";
    }
}
