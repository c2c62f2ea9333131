package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Who runs and who ends a request that a waiting caller may run itself ({@link Request#claimHelp}): in every order of
 * the caller's claim and end and the loop's intake ({@link Request#takeIn}), the request is run by one of them and
 * ended exactly once, never while it can still be a node of the loop's queue, and a claim or cancel of an older use
 * does nothing.
 */
class RequestHelpTest {
    private final RequestPool pool = new RequestPool(new BouncePool());
    private final List<String> told = new ArrayList<>();

    private Request submitted() {
        Request r = pool.acquire();
        r.kind = Request.FSYNC;
        r.completion = (target, attachment, value, opened, error) ->
                told.add(error != null ? "failed " + error.getMessage() : "value " + value);
        r.helpable();
        return r;
    }

    @Test
    void theLoopPassesAClaimedRequestAndTheHelperEndsIt() {
        Request r = submitted();
        int gen = r.generation();
        assertTrue(r.claimHelp(gen));
        assertFalse(r.takeIn(), "the loop leaves a claimed request to its helper");
        assertEquals(List.of(), told);
        r.helped(7, null);
        assertEquals(List.of("value 7"), told);
        assertEquals(gen + 1, r.generation(), "ended once: the request went back to its pool");
    }

    @Test
    void aHelperDoneFirstLeavesTheEndToTheLoop() {
        Request r = submitted();
        int gen = r.generation();
        assertTrue(r.claimHelp(gen));
        r.helped(0, new IOException("EIO"));
        assertEquals(List.of(), told, "still a node of the loop's queue: not ended by the helper");
        assertEquals(gen, r.generation());
        assertFalse(r.takeIn(), "the loop does not run it");
        assertEquals(List.of("failed EIO"), told);
        assertEquals(gen + 1, r.generation());
    }

    @Test
    void aRequestTheLoopTookInCannotBeClaimed() {
        Request r = submitted();
        int gen = r.generation();
        assertTrue(r.takeIn());
        assertFalse(r.claimHelp(gen));
        assertTrue(r.takeIn(), "taken in once; a second look changes nothing");
        r.succeed(0);
        assertEquals(List.of("value 0"), told);
    }

    @Test
    void cancelledOlderOrUnqueuedRequestsCannotBeClaimed() {
        Request r = submitted();
        int gen = r.generation();
        assertFalse(r.claimHelp(gen + 1), "another use's generation");
        assertTrue(r.markCancelled(gen));
        assertTrue(r.isCancelled());
        assertFalse(r.markCancelled(gen), "cancelled once");
        assertFalse(r.claimHelp(gen), "a cancelled request is the loop's to end");
        assertTrue(r.takeIn());
        r.fail(new IOException("cancelled"));
        // the next use of the same object: its old generation claims and cancels nothing
        Request again = pool.acquire();
        assertSame(r, again);
        again.kind = Request.FSYNC;
        assertFalse(again.isCancelled(), "a new use starts uncancelled");
        assertFalse(again.claimHelp(again.generation()), "not queued by another thread: not helpable");
        again.helpable();
        assertFalse(again.claimHelp(gen));
        assertFalse(again.markCancelled(gen));
        assertTrue(again.takeIn(), "the loop's");
        assertNull(again.handle);
    }

    @Test
    void aClaimedRequestCancelledMeanwhileIsStillEndedOnce() {
        Request r = submitted();
        int gen = r.generation();
        assertTrue(r.claimHelp(gen));
        assertTrue(r.markCancelled(gen), "a cancel of a claimed request marks it");
        assertFalse(r.takeIn());
        r.helped(4096, null);
        assertEquals(List.of("value 4096"), told, "the future, cancelled already, ignores it");
        assertEquals(gen + 1, r.generation());
    }
}
