package io.github.uring4j.engine;

import java.lang.ref.Cleaner;

/**
 * The one cleaner above the ring layer: it closes files, executors, buffer pools and drop-in channels dropped
 * without {@code close()}, on one daemon thread for all of them. (Rings dropped unclosed have their own, in the ring
 * layer, which sits below this one.)
 */
public final class Cleaners {
    private static volatile Cleaner cleaner;

    private Cleaners() {
    }

    /**
     * The cleaner, made on first use. Not in a static initializer: a thread that cannot be started there (the thread
     * limit reached for a moment) failed the class for good, and every later use of the library with it
     * ({@code NoClassDefFoundError}); here the error is said ({@code OutOfMemoryError: unable to create native
     * thread}) and the next use tries again.
     */
    public static Cleaner cleaner() {
        Cleaner c = cleaner;
        if (c == null) {
            synchronized (Cleaners.class) {
                c = cleaner;
                if (c == null) {
                    c = Cleaner.create(r -> {
                        Thread t = new Thread(r, "uring4j-cleaner");
                        t.setDaemon(true);
                        return t;
                    });
                    cleaner = c;
                }
            }
        }
        return c;
    }

    private static final java.util.concurrent.atomic.AtomicBoolean WARNED =
            new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * The cleaner, or null when its thread cannot be started now (the process's thread limit: {@code OutOfMemoryError:
     * unable to create native thread}), said once: what is registered then is not cleaned if dropped without
     * {@code close()}. A drop-in channel opened at the thread limit failed where the JDK's opened (the JDK's cleaner
     * thread starts with the JVM).
     */
    public static Cleaner cleanerIfAny() {
        try {
            return cleaner();
        } catch (OutOfMemoryError e) {
            if (WARNED.compareAndSet(false, true)) {
                Log.warn("no thread for the cleaner of dropped channels (" + e.getMessage() + "): channels opened"
                        + " meanwhile are released only by close()");
            }
            return null;
        }
    }
}
