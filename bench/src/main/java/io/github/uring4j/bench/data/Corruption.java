package io.github.uring4j.bench.data;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/** Reads that did not return what the block should hold: counted, and the first few distinct ones kept. */
public final class Corruption {

    private static final int KEEP = 10;

    private final AtomicLong count = new AtomicLong();
    private final ConcurrentLinkedQueue<String> first = new ConcurrentLinkedQueue<>();
    private final java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Records a wrong word found at {@code badOffset} of {@code file}, read by {@code strategy}. */
    public void record(String strategy, String file, int fileId, long badOffset, long found) {
        count.incrementAndGet();
        if (seen.size() < KEEP && seen.add(strategy + file + badOffset)) {
            first.add(String.format("%s: %s block %d (byte %d): expected %016x, found %016x", strategy, file,
                    badOffset / BlockData.BLOCK_SIZE, badOffset, BlockData.word(fileId, badOffset), found));
        }
    }

    /** Records a read that returned {@code res} instead of a full block. */
    public void recordShort(String strategy, String file, long offset, long res) {
        count.incrementAndGet();
        if (seen.size() < KEEP && seen.add(strategy + file + offset + "short")) {
            first.add(String.format("%s: %s at byte %d: read returned %d instead of a full block", strategy, file, offset, res));
        }
    }

    public long count() {
        return count.get();
    }

    public Iterable<String> examples() {
        return first;
    }
}
