package io.github.uring4j.file;

import java.lang.ref.Cleaner;

/**
 * The one cleaner of this package: it closes files, executors and buffer pools dropped without {@code close()}, on
 * one daemon thread for all three.
 */
final class Cleaners {
    static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "uring4j-file-cleaner");
        t.setDaemon(true);
        return t;
    });

    private Cleaners() {
    }
}
