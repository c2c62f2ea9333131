package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bounce memory: classes up to 1 MiB are kept for reuse, up to 4 MiB a class; more in flight, and larger memory, is
 * freed as soon as it comes back (left to the GC, a 64 MiB heap buffer written 75 times held 4.8 GB of native
 * memory, and bursts of 1 MiB writes grew the process by 40 MiB each).
 */
class BouncePoolTest {
    @Test
    void memoryOverTheLargestClassIsFreedWhenItComesBackAndSmallerIsReused() {
        BouncePool pool = new BouncePool();
        MemorySegment big = pool.acquire((4 << 20) + 1);
        assertEquals((4 << 20) + 1, big.byteSize());
        assertEquals(0, big.address() % BouncePool.ALIGN);
        big.fill((byte) 1); // all of it is there
        assertEquals(1, pool.freedWhenBackNow());
        pool.release(big);
        assertEquals(0, pool.freedWhenBackNow(), "freed at once");
        MemorySegment small = pool.acquire(5000);
        assertEquals(8192, small.byteSize());
        pool.release(small);
        assertSame(small, pool.acquire(6000), "kept and lent again");
    }

    @Test
    void moreInFlightThanAClassKeepsIsFreedWhenItComesBack() {
        BouncePool pool = new BouncePool();
        List<MemorySegment> lent = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // the 1 MiB class keeps 4
            MemorySegment m = pool.acquire(1 << 20);
            assertEquals(1 << 20, m.byteSize());
            assertEquals(0, m.address() % BouncePool.ALIGN);
            m.fill((byte) i);
            lent.add(m);
        }
        assertEquals(6, pool.freedWhenBackNow(), "six beyond the four the class keeps");
        for (MemorySegment m : lent) {
            pool.release(m);
        }
        assertEquals(0, pool.freedWhenBackNow(), "all six freed");
        List<MemorySegment> again = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            again.add(pool.acquire(1 << 20));
        }
        assertEquals(0, pool.freedWhenBackNow(), "the four kept are lent again");
        assertTrue(again.stream().allMatch(m -> lent.subList(0, 4).stream().anyMatch(k -> k == m)),
                "the kept ones are those first made");
        MemorySegment fifth = pool.acquire(1 << 20);
        assertEquals(1, pool.freedWhenBackNow());
        pool.release(fifth);
        for (MemorySegment m : again) {
            pool.release(m);
        }
        assertEquals(0, pool.freedWhenBackNow());
    }

    @Test
    void memoryThatNeverComesBackIsFreedByTheGc() throws InterruptedException {
        BouncePool pool = new BouncePool();
        MemorySegment held = pool.acquire(8 << 20);
        for (int i = 0; i < 3; i++) {
            pool.acquire(8 << 20).fill((byte) 7); // dropped: its request was lost
        }
        assertEquals(4, pool.freedWhenBackNow());
        for (int i = 0; i < 200 && pool.freedWhenBackNow() > 1; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(1, pool.freedWhenBackNow(), "the three dropped were freed, the one held was not");
        held.fill((byte) 1);
        pool.release(held);
        assertEquals(0, pool.freedWhenBackNow());
    }
}
