package io.github.uring4j.nio;

import io.github.uring4j.engine.FullHeap;
import io.github.uring4j.engine.Log;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands the handlers of one {@link UringAsynchronousFileChannel}'s operations to the executor named at open. Its
 * {@code execute} is the user's code, so an event loop never calls it: a completion the loop delivers is queued, and
 * a virtual thread of this dispatch hands the queue over, one at a time. An executor whose {@code execute} blocked
 * (a bounded queue that makes its callers wait) held the loop, and every channel on it, for as long; one that threw
 * an {@code Error} (a pool out of native threads throws {@code OutOfMemoryError}) ended the loop, and every channel
 * on it failed from then on. Where the executor refuses a handler ({@code RejectedExecutionException}: it is shut
 * down) or its {@code execute} throws anything else, the handler runs on the library's pool instead, and a throw is
 * logged once per channel: the JDK's channel throws it from the read or write that gave the executor its task, a
 * call that has returned here before the result is known.
 */
final class HandlerDispatch {
    private final ExecutorService executor;
    private final ExecutorService fallback;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean pumping = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();

    HandlerDispatch(ExecutorService executor, ExecutorService fallback) {
        this.executor = executor;
        this.fallback = fallback;
    }

    /** From an event loop: {@code call} is handed over by this dispatch's thread. */
    void fromLoop(Runnable call) {
        if (executor == fallback) {
            try {
                fallback.execute(call); // the library's own pool: its execute() does not block
                return;
            } catch (RuntimeException | Error e) {
                // no thread to be had for it now (OutOfMemoryError): the dispatch's thread hands it over
            }
        }
        queue.add(call);
        if (!pumping.compareAndSet(false, true)) {
            return;
        }
        for (int tries = 0;; tries++) {
            try {
                Thread.ofVirtual().name("uring4j-handler-handoff").start(this::pump);
                return;
            } catch (OutOfMemoryError e) {
                // No thread on a full heap: started again once there is room. Given up, the dispatch stayed
                // "pumping" with nobody pumping, and every later handler of the channel waited for ever.
                if (!FullHeap.waitForMemory(tries)) {
                    pumping.set(false); // the next handler queued starts it; this one waits for that
                    Log.warn("no thread to hand a channel's handlers to its executor for ten seconds: " + e);
                    return;
                }
            }
        }
    }

    private void pump() {
        do {
            Runnable call;
            while ((call = queue.poll()) != null) {
                // Nothing may end this thread while it pumps: it died of an OutOfMemoryError once, with the dispatch
                // still "pumping", and every later handler of the channel waited for ever. A handing-over made again
                // calls the handler once (the operation's call says whether it ran).
                for (int tries = 0;; tries++) {
                    try {
                        give(call);
                        break;
                    } catch (OutOfMemoryError e) {
                        if (!FullHeap.waitForMemory(tries)) {
                            break;
                        }
                    } catch (Throwable t) {
                        break; // the handler's own: the JDK's pool thread would end with it; this one goes on
                    }
                }
            }
            pumping.set(false);
        } while (!queue.isEmpty() && pumping.compareAndSet(false, true));
    }

    /**
     * On a thread that may wait for the executor: {@code call} goes to it, or to the library's pool; where neither
     * can take it (no thread to be had), it runs here.
     */
    void give(Runnable call) {
        try {
            executor.execute(call);
            return;
        } catch (RejectedExecutionException e) {
            // the executor is shut down
        } catch (RuntimeException | Error e) {
            if (warned.compareAndSet(false, true)) {
                try {
                    Log.warn("the executor given to AsynchronousFileChannel.open threw " + e
                            + " from execute(); the channel's handlers run on uring4j's pool when it does");
                } catch (Throwable unsaid) {
                    // the heap is full: the handler still goes on
                }
            }
        }
        try {
            fallback.execute(call);
        } catch (RuntimeException | Error e) {
            call.run();
        }
    }
}
