package io.github.uring4j.nio;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock a {@link UringFileChannel} holds for the operations the {@code FileChannel} contract serializes: those
 * that use or move the position, and {@code truncate}. A monitor, as the JDK's channel uses, where the JDK lets a
 * virtual thread that holds one unmount (JDK 24 and later, JEP 491); a {@link ReentrantLock} before that, where a
 * virtual thread parked inside a monitor (a relative read waiting for the ring) would pin its carrier.
 *
 * <p>Each {@code unlock} of a contended {@code ReentrantLock} unparks the next virtual thread of its queue, so under
 * contention every operation cost a park, an unpark and a trip through the scheduler. Measured on JDK 25 (2 cores),
 * 200 virtual threads making relative reads, scattering reads and {@code position} calls on shared channels, against
 * the JDK's channel in the same run: one channel, 0.67-0.70 times its rate with the {@code ReentrantLock}, 0.95-1.07
 * with the monitor; eight channels, 0.67-0.70 against 0.93-0.96. With monitors, a turn of either channel sometimes
 * runs at about half its rate (the JDK's channel alone made 1.46, 0.79 and 1.25 million operations a second in three
 * turns, ours alone 1.40-1.53 million in each); in runs taking turns it fell on one of ours (0.53-0.57), and the
 * {@code mixed} command, two turns of each channel, gave 0.47-0.73 against 0.61-0.67 with the {@code ReentrantLock}.
 */
final class PositionLock {
    /** True where a virtual thread may park inside {@code synchronized} without pinning its carrier. */
    static final boolean MONITOR = Runtime.version().feature() >= 24;

    /** An operation made while the lock is held, with an {@code int} result. */
    interface IntBody {
        int run() throws IOException;
    }

    /** An operation made while the lock is held, with a {@code long} result. */
    interface LongBody {
        long run() throws IOException;
    }

    /** Null where the monitor of this object is the lock. */
    private final ReentrantLock lock;

    PositionLock() {
        this(MONITOR);
    }

    /** A monitor or a {@link ReentrantLock}, whatever the JDK (tests). */
    PositionLock(boolean monitor) {
        this.lock = monitor ? null : new ReentrantLock();
    }

    int callInt(IntBody body) throws IOException {
        return (int) callLong(body::run);
    }

    long callLong(LongBody body) throws IOException {
        if (lock == null) {
            synchronized (this) {
                return body.run();
            }
        }
        lock.lock();
        try {
            return body.run();
        } finally {
            lock.unlock();
        }
    }
}
