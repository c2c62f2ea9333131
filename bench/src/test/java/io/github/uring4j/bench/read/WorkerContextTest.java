package io.github.uring4j.bench.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.Corruption;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.bench.data.Generator;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The time from a worker being ready: waits inside the window, past its end, and of workers never served. */
class WorkerContextTest {
    private static final long MS = 1_000_000L;

    private static WorkerContext context(DataSet ds, Histogram calls, Histogram waited) {
        // warm-up until 100 ms, measured until 1,100 ms; the thread starts at 0
        WorkerContext c = new WorkerContext(ds, "test", 100 * MS, 1_100 * MS, 1, calls, new AtomicLong(),
                new Corruption(), false, waited);
        c.startedAt(0);
        return c;
    }

    @Test
    void readsCountFromTheEndOfTheWorkersPreviousRead(@TempDir Path dir) throws Exception {
        DataSet ds = Generator.generate(dir, 1, 4, true);
        Histogram calls = new Histogram(3);
        Histogram waited = new Histogram(3);
        WorkerContext c = context(ds, calls, waited);
        // warm-up read: no sample; then a read called 10 ms after the previous one ended that took 5 ms
        c.completed(10 * MS, 50 * MS, 0, 0, BlockData.BLOCK_SIZE, null, 0);
        c.completed(60 * MS, 65 * MS, 0, 0, BlockData.BLOCK_SIZE, null, 0); // ended before the window
        c.completed(200 * MS, 205 * MS, 0, 0, BlockData.BLOCK_SIZE, null, 0);
        assertEquals(1, calls.getTotalCount());
        assertEquals(5 * MS, calls.getMaxValue(), 5 * MS / 100);
        assertEquals(1, waited.getTotalCount());
        assertEquals(140 * MS, waited.getMaxValue(), 140 * MS / 100);
        // the last read ends after the window: counted once, at its age when the window closed
        c.completed(1_000 * MS, 1_300 * MS, 0, 0, BlockData.BLOCK_SIZE, null, 0);
        c.censor(); // already counted
        assertEquals(2, waited.getTotalCount());
        assertEquals(2, c.measured()); // the two reads that started in the window
        assertEquals(895 * MS, waited.getMaxValue(), 895 * MS / 100);
    }

    @Test
    void aWorkerNeverServedCountsWithItsWholeWait(@TempDir Path dir) throws Exception {
        DataSet ds = Generator.generate(dir, 1, 4, true);
        Histogram waited = new Histogram(3);
        WorkerContext c = context(ds, new Histogram(3), waited);
        c.censor();
        c.censor(); // once only
        assertEquals(1, waited.getTotalCount());
        assertEquals(1_100 * MS, waited.getMaxValue(), 1_100 * MS / 100);
        assertEquals(0, c.measured());
    }
}
