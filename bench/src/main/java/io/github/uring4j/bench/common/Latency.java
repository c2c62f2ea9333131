package io.github.uring4j.bench.common;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The latency percentiles every table shows, in nanoseconds. */
public final class Latency {

    public static final String[] NAMES = {"p50", "p90", "p99", "p999", "p9999", "max"};
    public static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99, 100};

    private Latency() {
    }

    /** A histogram in nanoseconds with 3 significant digits that grows as needed. */
    public static Histogram histogram() {
        return new Histogram(3);
    }

    public static Map<String, Double> summarize(Histogram h) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            m.put(NAMES[i], h.getTotalCount() == 0 ? 0.0
                    : (double) (PERCENTILES[i] == 100 ? h.getMaxValue() : h.getValueAtPercentile(PERCENTILES[i])));
        }
        return m;
    }
}
