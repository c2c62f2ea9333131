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

    /** A figure as people write it: 950, 12.5k, 1.2M, 3.4G; small ones with their decimals. */
    static String plain(double v) {
        double a = Math.abs(v);
        if (a >= 1e9) {
            return trim(v / 1e9) + "G";
        }
        if (a >= 1e6) {
            return trim(v / 1e6) + "M";
        }
        if (a >= 1e4) {
            return trim(v / 1e3) + "k";
        }
        if (a >= 100 || v == Math.rint(v)) {
            return String.format(java.util.Locale.ROOT, "%,.0f", v);
        }
        return trim(v);
    }

    private static String trim(double v) {
        String s = String.format(java.util.Locale.ROOT, Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
        s = s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
        return s;
    }

    /** What the primary figure measures, in words with its unit. */
    private static String measure(String unit) {
        return switch (unit == null ? "" : unit) {
            case "reads/s" -> "reads per second";
            case "GB/s" -> "throughput, GB/s";
            case "ops/ms" -> "operations per millisecond";
            case "ops/us" -> "operations per microsecond";
            default -> unit;
        };
    }

    /** Every chart is this wide: the HTML page shows it at its own size (1100 px of text), so no text shrinks. */
    static final int WIDTH = 1000;

    /**
     * Whether the category labels fit side by side in {@link #WIDTH} (about 8 px a character at the axis font, plus
     * room for the axis and the legend); where they do not, they are drawn slanted rather than overlapping.
     */
    static boolean labelsFit(List<String> labels, int series) {
        int longest = labels.stream().mapToInt(String::length).max().orElse(10);
        int perCategory = Math.max(longest * 8 + 24, 40 * series);
        return labels.size() * perCategory + (series > 1 ? 260 : 120) <= WIDTH;
    }

    /** Bars of the primary figure per row (or per (load, size) and strategy for a grid). Returns the file name. */
    public static String throughput(Section s, Path dir) throws IOException {
        Result first = s.rows.get(0);
        List<String> labels = new ArrayList<>();
        java.util.Set<String> strategies = new java.util.LinkedHashSet<>();
        for (Result r : s.rows) {
            String l = s.isGrid() ? r.params.get("category") : Render.label(r);
            if (!labels.contains(l)) {
                labels.add(l);
            }
            strategies.add(r.strategy);
        }
        boolean fit = labelsFit(labels, s.isGrid() ? strategies.size() : 1);
        int longest = labels.stream().mapToInt(String::length).max().orElse(10);
        CategoryChart c = new CategoryChartBuilder().width(WIDTH)
                .height(fit ? 460 : 460 + longest * 4).title(s.title)
                .xAxisTitle(!s.isGrid() ? "strategy (t: threads, qd: operations in flight)"
                        : s.title.startsWith("Load types") ? "load type and data size" : "case")
                .yAxisTitle(measure(first.primaryUnit)).build();
        style(c);
        c.getStyler().setyAxisTickLabelsFormattingFunction(Charts::plain);
        if (!fit) {
            c.getStyler().setXAxisLabelRotation(30);
        }
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
                c.addSeries(st, cats, ys).setFillColor(colour(st));
            });
        } else {
            List<String> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (Result r : s.rows) {
                xs.add(Render.label(r));
                ys.add(r.primaryValue());
            }
            c.addSeries(first.primaryUnit, xs, ys);
            c.getStyler().setLegendVisible(false); // one series: the axis labels name the bars
        }
        return save(c, dir, s.slug() + "-throughput");
    }

    /** One line per row through p50 ... max, microseconds on a log axis. */
    public static String latency(Section s, Path dir) throws IOException {
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(460).title(s.title + ": latency")
                .xAxisTitle("percentile").yAxisTitle("latency, µs (log scale)").build();
        style(c);
        c.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        c.getStyler().setYAxisLogarithmic(true);
        // Every series' points sit on their percentile's tick, not beside it as bars would.
        c.getStyler().setOverlapped(true);
        // Decades in plain figures (0.1, 1, 10, 1,000 rather than 1E3); a formatting function would undo the log axis.
        c.getStyler().setYAxisDecimalPattern("#,##0.###");
        List<String> xs = List.of(Latency.NAMES);
        java.util.Set<String> used = new java.util.HashSet<>();
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (Result r : s.rows) {
            if (!r.metrics.containsKey("p50_ns")) {
                continue;
            }
            List<Double> ys = new ArrayList<>();
            for (String n : Latency.NAMES) {
                // log axis: a zero (no samples) would be undrawable
                double us = Math.max(0.01, r.metrics.getOrDefault(n + "_ns", 0.0) / 1e3);
                ys.add(us);
                lo = Math.min(lo, us);
                hi = Math.max(hi, us);
            }
            String name = Render.label(r);
            while (!used.add(name)) {
                name = name + "'";
            }
            java.awt.Color colour = colour(r.strategy);
            CategorySeries series = c.addSeries(name, xs, ys);
            series.setLineColor(colour);
            series.setMarkerColor(colour);
        }
        if (hi > 0) {
            // A log axis labels only its decades: widen it to whole decades so that at least two are labelled.
            double bottom = Math.pow(10, Math.floor(Math.log10(lo)));
            double top = Math.pow(10, Math.ceil(Math.log10(hi)));
            c.getStyler().setYAxisMin(bottom);
            c.getStyler().setYAxisMax(top > bottom ? top : bottom * 10);
        }
        return save(c, dir, s.slug() + "-latency");
    }

    /** Base colours per strategy, so that one strategy has one colour in every chart. */
    private static final Map<String, java.awt.Color> COLOURS = Map.ofEntries(
            Map.entry("ring", new java.awt.Color(0x1F77B4)),
            Map.entry("async", new java.awt.Color(0xFF7F0E)),
            Map.entry("mmap", new java.awt.Color(0x9467BD)),
            Map.entry("channel", new java.awt.Color(0x2CA02C)),
            Map.entry("channel-vthreads", new java.awt.Color(0xD62728)),
            Map.entry("async-vthreads", new java.awt.Color(0x8C564B)),
            Map.entry("fio io_uring", new java.awt.Color(0x404040)),
            Map.entry("fio psync", new java.awt.Color(0x7F7F7F)),
            Map.entry("dropin", new java.awt.Color(0x17BECF)),
            Map.entry("dropin-vthreads", new java.awt.Color(0xE377C2)),
            Map.entry("jasyncfio", new java.awt.Color(0xB8860B)));

    private static final java.awt.Color[] OTHERS = {
        new java.awt.Color(0x9EDAE5), new java.awt.Color(0xBCBD22), new java.awt.Color(0xF7B6D2),
        new java.awt.Color(0xAEC7E8), new java.awt.Color(0xFFBB78), new java.awt.Color(0x98DF8A)};

    /**
     * The colour of a strategy: "uring4j ring" is drawn as "ring", a "(verified)" run (or a "-heap" one) a shade darker
     * than the plain one;
     * strategies without a colour of their own get one from their name, the same in every chart.
     */
    static java.awt.Color colour(String strategy) {
        String base = strategy.startsWith("uring4j ") ? strategy.substring("uring4j ".length()) : strategy;
        boolean verified = base.endsWith(" (verified)");
        if (verified) {
            base = base.substring(0, base.length() - " (verified)".length());
        }
        if (base.endsWith("-heap")) {
            base = base.substring(0, base.length() - "-heap".length());
            verified = true; // heap buffers: a shade darker than the direct-buffer row of the same strategy
        }
        java.awt.Color c = COLOURS.get(base);
        if (c == null) {
            c = OTHERS[Math.floorMod(base.hashCode(), OTHERS.length)];
        }
        return verified ? c.darker() : c;
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
