package io.github.uring4j.engine.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@code uring4j.threads.closeWaitMillis}: taken from 1 ms to an hour; garbage, 0, negatives and overflows fall back. */
class ThreadsCloseWaitTest {
    @Test
    void theCloseWaitIsTakenInRangeAndTheDefaultOtherwise() {
        long def = 2_000L * 1_000_000L;
        assertEquals(def, ThreadsBackend.closeWaitNanos(null));
        assertEquals(5_000_000L, ThreadsBackend.closeWaitNanos("5"));
        assertEquals(3_600_000L * 1_000_000L, ThreadsBackend.closeWaitNanos(" 3600000 "));
        for (String bad : new String[] {"abc", "0", "-1", "9300000000000", "3600001", ""}) {
            assertEquals(def, ThreadsBackend.closeWaitNanos(bad), bad);
        }
    }
}
