package io.github.uring4j.engine;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting out a full heap: a step that must be made (telling an operation's caller, ending a loop) and met an
 * {@code OutOfMemoryError} is made again after a short wait, for up to ten seconds, since the heap is mostly full only
 * for a moment (another thread's garbage, a burst of allocation) and a step given up leaves a caller waiting for ever.
 */
public final class FullHeap {
    /** Tries of a step before it is given up: ten seconds of 10 ms waits. */
    static final int MAX_TRIES = 1000;

    private FullHeap() {
    }

    /**
     * Loads and initialises this class; called by the classes that wait here, as they are initialised. Loaded first
     * at its first use, under a full heap, its loading failed too, and the step's {@code OutOfMemoryError} escaped
     * (an event loop's thread died without telling its operations).
     */
    public static void loadNow() {
        // the call is the point
    }

    /**
     * After the {@code tries}-th {@code OutOfMemoryError} of a step (counted from 0): waits 10 ms and returns true;
     * false, without waiting, once the step has been tried for ten seconds.
     */
    public static boolean waitForMemory(int tries) {
        if (tries >= MAX_TRIES) {
            return false;
        }
        try {
            LockSupport.parkNanos(10_000_000L);
        } catch (Throwable parkFailed) {
            // With the heap full even the park may throw (it did: a loop's thread died here and never ended its
            // loop): wait without it.
            long until = System.nanoTime() + 10_000_000L;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
        return true;
    }
}
