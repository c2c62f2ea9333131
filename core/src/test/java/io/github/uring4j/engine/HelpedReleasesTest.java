package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Releases of dropped objects run on the threads that help, once each: here no releasing thread runs, so the
 * helper releases every dropped object (a program making buffer pools pays for the ones it dropped, instead of their
 * memory piling up behind one cleaner thread); an object closed before it was dropped is not released again.
 */
class HelpedReleasesTest {
    /** A helper runs the release meant for helpers (one that does not wait), a close the object's own. */
    @Test
    void aHelperRunsTheHelpersRelease() throws Exception {
        HelpedReleases releases = new HelpedReleases(null);
        List<String> ran = java.util.Collections.synchronizedList(new ArrayList<>());
        var closed = releases.register(new Object(), () -> ran.add("closed: own"), () -> ran.add("closed: helper's"));
        closed.clean();
        releases.register(new Object(), () -> ran.add("dropped: own"), () -> ran.add("dropped: helper's"));
        for (int i = 0; i < 500 && releases.pending() > 0; i++) {
            System.gc();
            Thread.sleep(2);
            releases.help(1);
        }
        assertEquals(List.of("closed: own", "dropped: helper's"), ran);
    }

    /** A release that throws is another object's failure: the helper's call goes on with the next, and returns. */
    @Test
    void aReleaseThatThrowsDoesNotEscapeTheHelper() throws Exception {
        HelpedReleases releases = new HelpedReleases(null);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 4; i++) {
            boolean fail = i % 2 == 0;
            releases.register(new Object(), () -> {
                ran.incrementAndGet();
                if (fail) {
                    throw new IllegalStateException("a release that fails (expected in this test's log)");
                }
            });
        }
        for (int i = 0; i < 500 && releases.pending() > 0; i++) {
            System.gc();
            Thread.sleep(2);
            releases.help(4);
        }
        assertEquals(0, releases.pending());
        assertEquals(4, ran.get());
    }

    @Test
    void aHelperReleasesEachDroppedObjectOnce() throws Exception {
        HelpedReleases releases = new HelpedReleases(null);
        AtomicInteger[] runs = new AtomicInteger[20];
        List<String> threads = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < runs.length; i++) {
            AtomicInteger n = runs[i] = new AtomicInteger();
            Object dropped = new Object();
            var cleanable = releases.register(dropped, () -> {
                n.incrementAndGet();
                threads.add(Thread.currentThread().getName());
            });
            if (i % 5 == 0) {
                cleanable.clean(); // closed before it is dropped
                cleanable.clean();
            }
        }
        assertEquals(16, releases.pending());
        int helped = 0;
        for (int i = 0; i < 500 && releases.pending() > 0; i++) {
            System.gc();
            Thread.sleep(2);
            helped += releases.help(3);
        }
        assertEquals(0, releases.pending());
        assertEquals(16, helped);
        for (AtomicInteger n : runs) {
            assertEquals(1, n.get());
        }
        assertEquals(20, threads.size());
        assertEquals(List.of(Thread.currentThread().getName()), threads.stream().distinct().toList());
        assertEquals(0, releases.help(10), "nothing left to release");
    }
}
