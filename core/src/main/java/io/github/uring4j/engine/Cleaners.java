package io.github.uring4j.engine;

import java.lang.ref.Cleaner;

/**
 * The one cleaner above the ring layer: it closes files, executors, buffer pools and drop-in channels dropped
 * without {@code close()}, on one daemon thread for all of them. (Rings dropped unclosed have their own, in the ring
 * layer, which sits below this one.)
 */
public final class Cleaners {
    public static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "uring4j-cleaner");
        t.setDaemon(true);
        return t;
    });

    private Cleaners() {
    }
}
