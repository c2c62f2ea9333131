package io.github.uring4j.bench.report;

import io.github.uring4j.bench.common.Result;
import java.util.ArrayList;
import java.util.List;

/** One workload of the report: a title, the command that reproduces it, its rows. */
public final class Section {
    public String title;
    public String command;
    public List<Result> rows = new ArrayList<>();

    public Section() {
    }

    public Section(String title, String command, List<Result> rows) {
        this.title = title;
        this.command = command;
        this.rows = new ArrayList<>(rows);
    }

    /** Rows with a {@code category} (load types, JMH parameters) are drawn as a category x strategy grid. */
    public boolean isGrid() {
        return !rows.isEmpty() && rows.get(0).params.containsKey("category");
    }

    /** Ratio columns a grid shows when both strategies are present: uring4j's row over the JDK's. */
    public static final String[][] RATIOS = {
        {"ring", "channel"}, {"async", "channel"}, {"mmap", "channel"},
        {"registeredFiles", "preOpenedFileChannels"}, {"ringOpenReadClose", "fileChannelOpenReadClose"},
        {"ringNative", "directBuffer"}, {"ringSplice", "transferTo"}, {"ringWholeFile", "fileSizeBuffer"},
        {"ring8k", "manualBuffer8k"}, {"asyncOpenReadCloseOnVirtualThreads", "fileChannelOpenReadCloseOnVirtualThreads"},
        {"uring4j", "jdk"}, {"uring4j transferTo", "jdk transferTo"}, {"uring4j transferTo", "jdk Files.copy"},
        {"uring4j provider", "builtin provider"},
    };

    public boolean hasLatency() {
        return rows.stream().anyMatch(r -> r.metrics.containsKey("p50_ns"));
    }

    /** The row others are compared with: the JDK FileChannel, else fio, else the first. */
    public Result baseline() {
        for (Result r : rows) {
            if (r.strategy.equals("channel")) {
                return r;
            }
        }
        for (Result r : rows) {
            if (r.strategy.equals("channel-vthreads")) {
                return r;
            }
        }
        for (Result r : rows) {
            if (r.strategy.startsWith("fio")) {
                return r;
            }
        }
        return rows.isEmpty() ? null : rows.get(0);
    }

    public String slug() {
        return title.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }
}
