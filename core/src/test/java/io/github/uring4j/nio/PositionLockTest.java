package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both kinds of {@link PositionLock} (the monitor of JDK 24 and later, the {@code ReentrantLock} before), whatever
 * the JDK the tests run on: one body at a time, and a body that throws lets the lock go.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PositionLockTest {
    private long counter; // guarded by the lock under test; not volatile, so a missed exclusion loses increments

    @ParameterizedTest(name = "monitor {0}")
    @ValueSource(booleans = {true, false})
    void oneBodyAtATimeFromPlatformAndVirtualThreadsAndAThrowingBodyLetsGo(boolean monitor) throws Exception {
        PositionLock lock = new PositionLock(monitor);
        IOException boom = new IOException("boom");
        assertSame(boom, assertThrows(IOException.class, () -> lock.callInt(() -> {
            throw boom;
        })));
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            Runnable work = () -> {
                for (int i = 0; i < 20_000; i++) {
                    try {
                        lock.callLong(() -> {
                            long c = counter;
                            if ((c & 1023) == 0) {
                                Thread.yield(); // give another thread the chance to come in, were it let
                            }
                            counter = c + 1;
                            return c;
                        });
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            };
            threads.add(t % 2 == 0 ? Thread.ofPlatform().start(work) : Thread.ofVirtual().start(work));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(16 * 20_000L, counter);
        assertEquals(7, lock.callInt(() -> 7), "the lock is free after all of them");
    }
}
