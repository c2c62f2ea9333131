package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The spin before a wait parks ({@link Waits}): which threads spin, how failed spins make a thread spin on fewer of its
 * waits and a successful one on more, and the property that sets the default. Each test runs on a thread of its own,
 * whose state starts empty. No test asserts a duration: it asserts what the thread's state says it did.
 */
class WaitsTest {
    /** Spins with no bound on the threads spinning at once: another test's thread cannot take this one's turn. */
    private static void spin(java.util.concurrent.Future<?> f, long nanos) {
        Waits.spin(f, nanos, Integer.MAX_VALUE);
    }

    /** A future that is done from its third look on: a result that lands while the waiter spins. */
    private static final class DoneOnThirdLook extends CompletableFuture<Void> {
        int looks;

        @Override
        public boolean isDone() {
            return ++looks >= 3;
        }
    }

    private static int[] on(Runnable r) throws InterruptedException {
        AtomicReference<int[]> state = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                r.run();
                state.set(Waits.state());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        return state.get();
    }

    @Test
    void spinsThatFailDoubleThePauseUpTo256WaitsAndThePausedWaitsDoNotSpin() throws InterruptedException {
        CompletableFuture<Void> never = new CompletableFuture<>();
        assertArrayEquals(new int[] {1, 1}, on(() -> spin(never, 1_000)));
        // failed spin: pause 1; the next wait passes without a spin; the one after fails again: pause 2
        assertArrayEquals(new int[] {2, 2}, on(() -> {
            spin(never, 1_000);
            spin(never, 1_000);
            assertArrayEquals(new int[] {0, 1}, Waits.state(), "the paused wait does not spin");
            spin(never, 1_000);
        }));
        assertArrayEquals(new int[] {Waits.MAX_PAUSE, Waits.MAX_PAUSE}, on(() -> {
            for (int i = 0; i < 2_000; i++) {
                spin(never, 1_000);
            }
            int[] s = Waits.state();
            while (s[0] > 0) {
                spin(never, 1_000);
                s = Waits.state();
            }
            spin(never, 1_000); // the next failure past the largest pause keeps it there
        }));
    }

    @Test
    void aSpinThatSeesTheResultHalvesThePause() throws InterruptedException {
        CompletableFuture<Void> never = new CompletableFuture<>();
        int[] s = on(() -> {
            for (int i = 0; i < 3; i++) { // three failures: pauses 1, 2 and 4, each waited out
                spin(never, 1_000);
                while (Waits.state()[0] > 0) {
                    spin(never, 1_000);
                }
            }
            assertEquals(4, Waits.state()[1]);
            DoneOnThirdLook soon = new DoneOnThirdLook();
            spin(soon, 60_000_000_000L); // returns when it sees the result: the third look
            assertEquals(3, soon.looks);
        });
        assertArrayEquals(new int[] {0, 2}, s);
    }

    @Test
    void virtualAndInterruptedThreadsAndDoneFuturesAndZeroDoNotSpin() throws InterruptedException {
        CompletableFuture<Void> never = new CompletableFuture<>();
        AtomicReference<int[]> virtual = new AtomicReference<>();
        Thread v = Thread.ofVirtual().start(() -> {
            spin(never, 60_000_000_000L); // would take a minute if it spun
            virtual.set(Waits.state());
        });
        v.join();
        assertArrayEquals(new int[] {0, 0}, virtual.get());
        assertArrayEquals(new int[] {0, 0}, on(() -> {
            Thread.currentThread().interrupt();
            spin(never, 60_000_000_000L);
            assertTrue(Thread.interrupted(), "the interrupt stays for the wait to throw");
        }));
        assertArrayEquals(new int[] {0, 0}, on(() -> spin(CompletableFuture.completedFuture(1), 60_000_000_000L)));
        assertArrayEquals(new int[] {0, 0}, on(() -> spin(never, 0)));
        assertArrayEquals(new int[] {0, 0}, on(() -> spin(never, -5)));
        assertFalse(never.isDone());
    }

    @Test
    void aThreadPastTheBoundOnSpinnersParksAtOnceAndKeepsItsState() throws InterruptedException {
        CompletableFuture<Void> never = new CompletableFuture<>();
        // no room: the wait returns at once (a spin of a minute would otherwise fail the test's timeout)
        assertArrayEquals(new int[] {0, 0}, on(() -> Waits.spin(never, 60_000_000_000L, 0)));
        assertTrue(Waits.MAX_SPINNERS >= 1, "one thread at least may spin");
    }

    @Test
    void thePropertyIsMicrosecondsFromZeroToOneSecond() {
        assertEquals(50_000, Waits.parseMicros(null));
        assertEquals(50_000, Waits.parseMicros(" "));
        assertEquals(0, Waits.parseMicros("0"));
        assertEquals(7_000, Waits.parseMicros(" 7 "));
        assertEquals(1_000_000_000L, Waits.parseMicros("1000000"));
        assertEquals(-1, Waits.parseMicros("1000001"));
        assertEquals(-1, Waits.parseMicros("-1"));
        assertEquals(-1, Waits.parseMicros("fast"));
        assertEquals(-1, Waits.parseMicros("99999999999999999999"));
    }
}
