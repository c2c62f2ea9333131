package io.github.uring4j.bench.common;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured row: a workload (what was done), a strategy (how), the parameters, and named figures. The
 * {@code primary} figure is the one a chart draws ("ops/s", "GB/s", ...).
 */
public final class Result {
    public String workload;
    public String strategy;
    public Map<String, String> params = new LinkedHashMap<>();
    public Map<String, Double> metrics = new LinkedHashMap<>();
    public String primary;
    public String primaryUnit;
    /** The command line that reproduces the row, when known (the report fills it in). */
    public String command;

    public Result() {
    }

    public Result(String workload, String strategy) {
        this.workload = workload;
        this.strategy = strategy;
    }

    public Result param(String k, Object v) {
        params.put(k, String.valueOf(v));
        return this;
    }

    public Result metric(String k, double v) {
        metrics.put(k, v);
        return this;
    }

    public Result primary(String metric, String unit) {
        this.primary = metric;
        this.primaryUnit = unit;
        return this;
    }

    public double primaryValue() {
        Double d = metrics.get(primary);
        return d == null ? Double.NaN : d;
    }

    /** The parameters as {@code k=v k=v}. */
    public String paramString() {
        StringBuilder b = new StringBuilder();
        params.forEach((k, v) -> b.append(b.isEmpty() ? "" : " ").append(k).append('=').append(v));
        return b.toString();
    }
}
