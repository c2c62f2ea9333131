package io.github.uring4j.engine;

import java.lang.ref.Cleaner;

/**
 * The cleaners above the ring layer, each on one daemon thread: one closes files and drop-in channels dropped without
 * {@code close()}; executors ({@link #EXECUTORS}) and buffer pools ({@link #POOLS}), whose release takes milliseconds
 * (loops to end, shared arenas closed, each a handshake with every thread), have one each, and are also released by
 * the threads that build new ones. On one thread for all, a program that dropped executors or pools by the thousand
 * held back the descriptors of its dropped files (a hostile probe ran out of descriptors, at 20,000, where the JDK's
 * channels alone stayed under 900). (Rings dropped unclosed have their own, in the ring layer, which sits below this
 * one.)
 */
public final class Cleaners {
    private static volatile Cleaner cleaner;

    private Cleaners() {
    }

    /**
     * The cleaner of files and channels, made on first use. Not in a static initializer: a thread that cannot be
     * started there (the thread limit reached for a moment) failed the class for good, and every later use of the
     * library with it ({@code NoClassDefFoundError}); here the error is said ({@code OutOfMemoryError: unable to
     * create native thread}) and the next use tries again.
     */
    public static Cleaner cleaner() {
        Cleaner c = cleaner;
        if (c == null) {
            synchronized (Cleaners.class) {
                c = cleaner;
                if (c == null) {
                    c = make("uring4j-cleaner");
                    cleaner = c;
                }
            }
        }
        return c;
    }

    /**
     * Buffer pools dropped without {@code close()}: released by a thread of their own, and by each pool built, which
     * first releases up to two dropped ones ({@link HelpedReleases}).
     */
    public static final HelpedReleases POOLS = new HelpedReleases("uring4j-cleaner-pools");

    /**
     * Executors dropped without {@code close()}: released by a thread of their own, and by each executor built, which
     * first releases one dropped one (a probe that built and dropped 100 every 20 ms reached 8,000 descriptors and
     * 4,000 threads of rings and loops not released yet).
     */
    public static final HelpedReleases EXECUTORS = new HelpedReleases("uring4j-cleaner-executors");

    private static Cleaner make(String name) {
        return Cleaner.create(r -> LibraryThreads.shared(name, r));
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
