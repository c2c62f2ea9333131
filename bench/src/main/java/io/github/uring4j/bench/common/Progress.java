package io.github.uring4j.bench.common;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Elapsed, remaining and current rate on stderr while a run lasts: rewritten in place on a terminal, one line
 * every few seconds otherwise (logs, CI). Silent when {@code quiet}.
 */
public final class Progress implements AutoCloseable {

    private final Thread thread;
    private volatile boolean done;

    /**
     * @param label    what is running ("ring t1 qd32")
     * @param total    expected duration in nanoseconds, or 0 when unknown
     * @param counter  operations (or bytes) done so far
     * @param unit     what the counter counts ("ops", "MiB")
     * @param divisor  counter units per displayed unit (1 for ops, 1 MiB for bytes)
     */
    public Progress(String label, long total, LongSupplier counter, String unit, double divisor, boolean quiet) {
        PrintStream err = System.err;
        boolean tty = System.console() != null;
        long start = System.nanoTime();
        this.thread = Thread.ofPlatform().daemon().name("progress").unstarted(() -> {
            long lastT = start;
            long lastN = counter.getAsLong();
            long lastPrint = start;
            while (!done) {
                try {
                    Thread.sleep(tty ? 500 : 1000);
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.nanoTime();
                long n = counter.getAsLong();
                double rate = (n - lastN) / divisor / ((now - lastT) / 1e9);
                lastT = now;
                lastN = n;
                if (quiet || done || (!tty && now - lastPrint < 5_000_000_000L)) {
                    continue;
                }
                lastPrint = now;
                double el = (now - start) / 1e9;
                String rem = total > 0 ? String.format(Locale.ROOT, ", %.0fs left", Math.max(0, (total - (now - start)) / 1e9)) : "";
                String line = String.format(Locale.ROOT, "%s: %.0fs elapsed%s, %,.0f %s/s", label, el, rem, rate, unit);
                if (tty) {
                    err.print("\r" + line + "      ");
                } else {
                    err.println(line);
                }
                err.flush();
            }
        });
        thread.start();
        this.tty = tty;
    }

    private final boolean tty;

    @Override
    public void close() {
        done = true;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (tty) {
            System.err.print("\r\033[K");
            System.err.flush();
        }
    }
}
