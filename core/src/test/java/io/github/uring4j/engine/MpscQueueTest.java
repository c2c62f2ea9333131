package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hand-off queue: nothing lost, nothing duplicated, per-producer order kept, nodes reusable. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MpscQueueTest {
    static final class Item extends MpscQueue.Node {
        final int producer;
        int seq;

        Item(int producer) {
            this.producer = producer;
        }
    }

    @Test
    void emptyQueuePollsNull() {
        MpscQueue q = new MpscQueue();
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        Item a = new Item(0);
        q.offer(a);
        assertTrue(!q.isEmpty());
        assertEquals(a, q.poll());
        assertNull(q.poll());
        assertTrue(q.isEmpty());
        q.offer(a); // a polled node may be offered again
        assertEquals(a, q.poll());
    }

    /** Four producers recycle a small set of nodes each; the consumer hands them back through a per-producer box. */
    @Test
    void producersAndOneConsumerLoseAndDuplicateNothing() throws Exception {
        int producers = 4;
        int perProducer = 500_000;
        MpscQueue q = new MpscQueue();
        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array can only be created raw
        java.util.concurrent.ConcurrentLinkedQueue<Item>[] free = new java.util.concurrent.ConcurrentLinkedQueue[producers];
        Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            free[p] = new java.util.concurrent.ConcurrentLinkedQueue<>();
            for (int i = 0; i < 16; i++) {
                free[p].add(new Item(p));
            }
            int id = p;
            threads[p] = new Thread(() -> {
                for (int s = 0; s < perProducer; s++) {
                    Item it;
                    while ((it = free[id].poll()) == null) {
                        Thread.yield();
                    }
                    it.seq = s;
                    q.offer(it);
                }
            });
            threads[p].start();
        }
        int[] next = new int[producers];
        long total = (long) producers * perProducer;
        for (long got = 0; got < total; ) {
            MpscQueue.Node n = q.poll();
            if (n == null) {
                // Yield, not spin: five threads spinning on two busy cores let a producer that was preempted halfway
                // through an offer wait for its turn long enough to make this test time out once (60 s)
                Thread.yield();
                continue;
            }
            Item it = (Item) n;
            assertEquals(next[it.producer], it.seq, "producer " + it.producer + " out of order");
            next[it.producer]++;
            got++;
            free[it.producer].add(it);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(q.poll());
        assertTrue(q.isEmpty());
        for (int p = 0; p < producers; p++) {
            assertEquals(perProducer, next[p]);
        }
    }
}
