package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The open regions are found by their segments' scope while there are a few of them (a scan), and many (a map), and
 * again after most are freed; a freed region is found no more.
 */
class PinnedRegionTest {
    @Test
    void regionsAreFoundByScopeBelowAndAboveTheScanAndAfterFreeing() {
        int before = PinnedRegion.openRegions();
        List<PinnedRegion> regions = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            regions.add(new PinnedRegion(4096, 4096, 4096, 1));
            for (PinnedRegion r : regions) {
                assertSame(r, PinnedRegion.of(r.memory().scope()), regions.size() + " open");
            }
        }
        assertEquals(before + 40, PinnedRegion.openRegions());
        try (Arena other = Arena.ofShared()) {
            assertNull(PinnedRegion.of(other.allocate(8).scope()), "a scope of no region");
        }
        for (int i = 39; i >= 0; i--) {
            PinnedRegion gone = regions.remove(i);
            gone.close();
            assertNull(PinnedRegion.of(gone.memory().scope()), "a freed region");
            for (PinnedRegion r : regions) {
                assertSame(r, PinnedRegion.of(r.memory().scope()), regions.size() + " open");
            }
        }
        assertEquals(before, PinnedRegion.openRegions());
    }
}
