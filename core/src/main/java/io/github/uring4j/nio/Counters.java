package io.github.uring4j.nio;

import java.util.concurrent.atomic.LongAdder;

/** What the drop-in channels did, by where it ran: the caller's thread, a ring, or the JDK's own channels. */
final class Counters {
    private Counters() {
    }

    static final LongAdder URING_CHANNELS = new LongAdder();
    static final LongAdder JDK_CHANNELS = new LongAdder();
    static final LongAdder CALLER_CALLS = new LongAdder();
    static final LongAdder RING_OPERATIONS = new LongAdder();
    static final LongAdder BYTES_READ = new LongAdder();
    static final LongAdder BYTES_WRITTEN = new LongAdder();
    static final LongAdder KERNEL_COPIES = new LongAdder();
    static final LongAdder MAPPED_READS = new LongAdder();
    static final LongAdder OFF_CARRIER_CALLS = new LongAdder();
    static final LongAdder JDK_WHILE_LINKING = new LongAdder();

    static DropInStatistics snapshot() {
        return new DropInStatistics(URING_CHANNELS.sum(), JDK_CHANNELS.sum(), CALLER_CALLS.sum(),
                RING_OPERATIONS.sum(), MAPPED_READS.sum(), BYTES_READ.sum(), BYTES_WRITTEN.sum(), KERNEL_COPIES.sum(),
                OFF_CARRIER_CALLS.sum(), JDK_WHILE_LINKING.sum());
    }
}
