package io.github.uring4j.bench.fio;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.data.DataSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs fio on a data set's files and reads its JSON output into a row. */
public final class Fio {

    private Fio() {
    }

    /** The fio executable on the PATH, or null. */
    public static String find() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, "fio");
            if (java.nio.file.Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /**
     * Random 4 KiB reads of the data set through fio's {@code engine} ({@code io_uring}, {@code psync},
     * {@code mmap}, ...) at {@code depth} per job and {@code jobs} jobs for {@code seconds}. {@code invalidate=0}
     * leaves the page cache as it is, so a cached run stays cached.
     */
    public static Result randomRead(String fio, DataSet ds, String engine, int depth, int jobs, double seconds,
                                    boolean direct) throws IOException, InterruptedException {
        StringBuilder files = new StringBuilder();
        for (int f = 0; f < ds.files(); f++) {
            files.append(f == 0 ? "" : ":").append(ds.file(f).toString().replace(":", "\\:"));
        }
        List<String> cmd = new ArrayList<>(List.of(fio, "--name=uring4j", "--filename=" + files, "--rw=randread",
                "--bs=4k", "--ioengine=" + engine, "--iodepth=" + (engine.equals("io_uring") || engine.equals("libaio") ? depth : 1),
                "--numjobs=" + jobs, "--thread", "--group_reporting", "--time_based",
                "--runtime=" + Math.max(1, Math.round(seconds)) + "s", "--ramp_time=1s", "--direct=" + (direct ? 1 : 0),
                "--invalidate=0", "--norandommap", "--randrepeat=0", "--output-format=json"));
        if (engine.equals("io_uring")) {
            // What t/io_uring does by default: registered files, registered buffers, and submissions and
            // completions in batches (as our ring loop does), so fio is not charged one syscall per read.
            int batch = Math.min(depth, 32);
            cmd.addAll(List.of("--registerfiles=1", "--fixedbufs=1", "--iodepth_batch_submit=" + batch,
                    "--iodepth_batch_complete_max=" + batch));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.PIPE);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor((long) seconds + 60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("fio " + engine + " failed: " + (err.isEmpty() ? "exit " + p.exitValue() : err.lines().findFirst().orElse("")));
        }
        String json = new String(out, StandardCharsets.UTF_8);
        int brace = json.indexOf('{');
        JsonObject root = JsonParser.parseString(json.substring(Math.max(0, brace))).getAsJsonObject();
        JsonObject job = root.getAsJsonArray("jobs").get(0).getAsJsonObject();
        JsonObject read = job.getAsJsonObject("read");
        double iops = read.get("iops").getAsDouble();
        double secs = job.get("job_runtime").getAsDouble() / 1000.0;
        Result r = new Result("random-read-4k", "fio " + engine)
                .param("threads", jobs).param("depth", engine.equals("io_uring") ? depth : 1).param("direct", direct)
                .primary("ops_per_s", "reads/s");
        r.metric("ops_per_s", iops);
        r.metric("mib_per_s", iops * 4096 / (1 << 20));
        double cpuPct = job.get("usr_cpu").getAsDouble() + job.get("sys_cpu").getAsDouble();
        r.metric("cpu_cores", cpuPct / 100.0 * jobs);
        r.metric("cpu_us_per_op", iops == 0 ? 0 : cpuPct / 100.0 * jobs * 1e6 / iops);
        JsonObject clat = read.getAsJsonObject("clat_ns");
        JsonObject pct = clat.getAsJsonObject("percentile");
        String[][] keys = {{"p50", "50.000000"}, {"p90", "90.000000"}, {"p99", "99.000000"}, {"p999", "99.900000"},
                {"p9999", "99.990000"}};
        for (String[] k : keys) {
            if (pct != null && pct.has(k[1])) {
                r.metric(k[0] + "_ns", pct.get(k[1]).getAsDouble());
            }
        }
        r.metric("max_ns", clat.get("max").getAsDouble());
        r.metric("seconds", secs);
        return r;
    }

    /** fio's version line, for the environment. */
    public static String version(String fio) {
        try {
            Process p = new ProcessBuilder(fio, "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            return v;
        } catch (IOException | InterruptedException e) {
            return "fio";
        }
    }

    static Map<String, String> ours() {
        return Map.of("io_uring", "ring", "psync", "channel", "mmap", "mmap");
    }
}
