package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Bounce memory: classes up to 1 MiB are kept for reuse; larger memory is freed as soon as it comes back (left to
 * the GC, a 64 MiB heap buffer written 75 times held 4.8 GB of native memory).
 */
class BouncePoolTest {
    @Test
    void memoryOverTheLargestClassIsFreedWhenItComesBackAndSmallerIsReused() {
        BouncePool pool = new BouncePool();
        MemorySegment big = pool.acquire((4 << 20) + 1);
        assertEquals((4 << 20) + 1, big.byteSize());
        assertEquals(0, big.address() % BouncePool.ALIGN);
        assertTrue(big.scope().isAlive());
        pool.release(big);
        assertFalse(big.scope().isAlive(), "freed at once");
        MemorySegment small = pool.acquire(5000);
        assertEquals(8192, small.byteSize());
        pool.release(small);
        assertSame(small, pool.acquire(6000), "kept and lent again");
    }
}
