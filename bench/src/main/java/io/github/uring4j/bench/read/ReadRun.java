package io.github.uring4j.bench.read;

import io.github.uring4j.bench.common.Latency;
import io.github.uring4j.bench.common.Progress;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.Corruption;
import io.github.uring4j.bench.data.DataSet;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/** Runs one strategy over a data set for a duration and measures it. */
public final class ReadRun {

    private ReadRun() {
    }

    /**
     * Runs {@code strategy}: {@code warmupNanos} unrecorded, then {@code durationNanos} measured. Verification
     * failures go to {@code corruption}; the row comes back.
     */
    @SuppressWarnings("try") // the progress display lives as long as the block, unreferenced
    public static Result run(DataSet ds, ReadStrategy strategy, ReadConfig cfg, long warmupNanos, long durationNanos,
                             Corruption corruption, boolean quiet) throws Exception {
        int n = strategy.workers(cfg);
        List<Histogram> hists = new ArrayList<>();
        List<AtomicLong> counters = new ArrayList<>();
        List<WorkerContext> ctxs = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ReadStrategy.Session session = strategy.open(ds, cfg)) {
            long t0 = System.nanoTime();
            long measureStart = t0 + warmupNanos;
            long end = measureStart + durationNanos;
            List<Thread> threads = new ArrayList<>();
            // Thousands of virtual-thread workers would each grow a histogram of hundreds of KiB and keep the GC
            // busy: they share one that takes concurrent writers instead.
            Histogram shared = strategy.virtualThreads() ? new org.HdrHistogram.ConcurrentHistogram(3) : null;
            // With thousands of virtual threads, the time a read takes once called leaves out the time its thread
            // waited to be run at all (the JDK runs as many as it has carriers, the rest wait unmounted). So virtual
            // threads also record the time from a worker being ready (started, or its previous read ended) to its
            // read's end, and a worker still waiting at the end of the window counts with the age of its wait.
            Histogram waited = strategy.virtualThreads() ? new org.HdrHistogram.ConcurrentHistogram(3) : null;
            for (int w = 0; w < n; w++) {
                Histogram h = shared != null ? shared : Latency.histogram();
                AtomicLong c = new AtomicLong();
                WorkerContext ctx = new WorkerContext(ds, strategy.name(), measureStart, end,
                        cfg.seed() * 1_000_003L + w, h, c, corruption, cfg.verify(), waited);
                hists.add(h);
                counters.add(c);
                ctxs.add(ctx);
                int worker = w;
                Runnable body = () -> {
                    try {
                        session.run(worker, ctx);
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                };
                threads.add(strategy.virtualThreads() ? Thread.ofVirtual().name("read-" + w).unstarted(body)
                        : Thread.ofPlatform().name("read-" + w).unstarted(body));
            }
            String label = strategy.name() + " threads=" + cfg.threads() + " depth=" + strategy.inFlightPerWorker(cfg);
            try (Progress p = new Progress(label, warmupNanos + durationNanos, () -> {
                long s = 0;
                for (AtomicLong c : counters) {
                    s += c.get();
                }
                return s;
            }, "reads", 1, quiet)) {
                long started = System.nanoTime();
                ctxs.forEach(ctx -> ctx.startedAt(started));
                threads.forEach(Thread::start);
                var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long sleep = measureStart - System.nanoTime();
                if (sleep > 0) {
                    Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                }
                long cpu0 = os.getProcessCpuTime();
                long wall0 = System.nanoTime();
                sleep = end - wall0;
                if (sleep > 0) {
                    Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                }
                long cpu1 = os.getProcessCpuTime();
                long wall1 = System.nanoTime();
                // Carrier threads of the default virtual-thread scheduler alive now (the JDK adds carriers while
                // virtual threads are pinned in blocking file I/O).
                long carriers = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("ForkJoinPool-1-worker-")).count();
                for (Thread t : threads) {
                    t.join();
                }
                if (failure.get() != null) {
                    Throwable t = failure.get();
                    throw t instanceof Exception e ? e : new RuntimeException(t);
                }
                Histogram all = Latency.histogram();
                long ops = 0;
                int served = 0;
                for (int w = 0; w < n; w++) {
                    if (shared == null || w == 0) {
                        all.add(hists.get(w));
                    }
                    ops += ctxs.get(w).measured();
                    served += ctxs.get(w).measured() > 0 ? 1 : 0;
                    ctxs.get(w).censor();
                }
                double secs = (wall1 - wall0) / 1e9;
                double cpuSecs = (cpu1 - cpu0) / 1e9;
                Result r = new Result("random-read-4k", strategy.name())
                        .param("threads", cfg.threads())
                        .param("depth", strategy.inFlightPerWorker(cfg))
                        .param("workers", n)
                        .param("direct", cfg.direct())
                        .param("verify", cfg.verify())
                        .param("files", ds.files())
                        .param("blocks", ds.blocks())
                        .primary("ops_per_s", "reads/s");
                r.metric("ops_per_s", ops / secs);
                r.metric("mib_per_s", ops * (double) BlockData.BLOCK_SIZE / secs / (1 << 20));
                r.metric("cpu_s", cpuSecs);
                r.metric("cpu_cores", cpuSecs / secs);
                r.metric("cpu_us_per_op", ops == 0 ? 0 : cpuSecs * 1e6 / ops);
                for (Map.Entry<String, Double> e : Latency.summarize(all).entrySet()) {
                    r.metric(e.getKey() + "_ns", e.getValue());
                }
                r.metric("seconds", secs);
                if (strategy.virtualThreads()) {
                    r.metric("carriers", carriers);
                    r.metric("served", served);
                    r.metric("waited_p50_ns", (double) waited.getValueAtPercentile(50));
                    r.metric("waited_p99_ns", (double) waited.getValueAtPercentile(99));
                }
                r.metric("reads", ops);
                return r;
            }
        }
    }
}
