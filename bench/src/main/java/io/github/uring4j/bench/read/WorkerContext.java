package io.github.uring4j.bench.read;

import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.Corruption;
import io.github.uring4j.bench.data.DataSet;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What one worker needs: the deadlines, its random stream, its histogram and counters. Operations completed
 * before {@code measureStart} are warm-up and not recorded.
 */
public final class WorkerContext {
    private final DataSet ds;
    private final String strategy;
    private final long measureStart;
    private final long end;
    private final SplittableRandom random;
    private final Histogram histogram;
    private final AtomicLong progress;
    private final Corruption corruption;
    private final boolean verify;
    private final Histogram waited;
    private long measured;
    private long done;
    /** When this worker became ready for its next read: its previous read's end, or the run's start. */
    private long readySince;
    private boolean censored;

    WorkerContext(DataSet ds, String strategy, long measureStart, long end, long seed, Histogram histogram,
                  AtomicLong progress, Corruption corruption, boolean verify, Histogram waited) {
        this.verify = verify;
        this.waited = waited;
        this.ds = ds;
        this.strategy = strategy;
        this.measureStart = measureStart;
        this.end = end;
        this.random = new SplittableRandom(seed);
        this.histogram = histogram;
        this.progress = progress;
        this.corruption = corruption;
    }

    public long end() {
        return end;
    }

    public int randomFile() {
        return random.nextInt(ds.files());
    }

    public long randomBlock() {
        return random.nextLong(ds.blocks());
    }

    /**
     * Records one completed read of {@code file}'s block at {@code offset} that took from {@code startNanos} to
     * {@code nowNanos}, whose data sits at {@code buf[bufOffset]}: verifies it, counts it.
     */
    public void completed(long startNanos, long nowNanos, int file, long offset, long res, MemorySegment buf, long bufOffset) {
        if (res != BlockData.BLOCK_SIZE) {
            corruption.recordShort(strategy, ds.file(file).getFileName().toString(), offset, res);
        } else if (verify) {
            long bad = BlockData.verify(buf, bufOffset, file, offset, BlockData.BLOCK_SIZE);
            if (bad >= 0) {
                corruption.record(strategy, ds.file(file).getFileName().toString(), file, bad,
                        BlockData.wordAt(buf, bufOffset + (bad - offset)));
            }
        }
        if (startNanos >= measureStart) {
            histogram.recordValue(Math.max(0, nowNanos - startNanos));
            measured++;
        }
        if (waited != null) {
            if (nowNanos <= end) {
                if (nowNanos >= measureStart) {
                    waited.recordValue(nowNanos - readySince);
                }
            } else if (!censored) {
                censored = true;
                waited.recordValue(Math.max(0, end - readySince));
            }
            readySince = nowNanos;
        }
        progress.lazySet(++done);
    }

    /** The worker's thread is started at {@code nanos}: from then on it is ready for its first read. */
    void startedAt(long nanos) {
        readySince = nanos;
    }

    /**
     * After the worker ended: a worker still waiting at the end of the window (one that never got to run, or
     * whose last read did not end by then) adds the age of that wait, so threads that were never served count.
     */
    void censor() {
        if (waited != null && !censored) {
            censored = true;
            waited.recordValue(Math.max(0, end - readySince));
        }
    }

    long measured() {
        return measured;
    }

    long done() {
        return done;
    }
}
