package io.github.uring4j.engine;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Work the library does on threads of its own beside a program that has not asked for it (linking its first calls,
 * starting the default executor, registering its MXBeans), which a JVM that writes a class archive as it exits
 * ({@code -XX:ArchiveClassesAtExit}, {@code -XX:AOTCacheOutput}, {@code -XX:AOTMode=record}) waits for before it
 * writes the archive.
 *
 * <p>HotSpot writes that archive after the shutdown hooks, while daemon threads still run. On JDK 25 a program on the
 * provider that ended at once crashed the JVM in a third of such runs (SIGSEGV in
 * {@code LambdaProxyClassDictionary::find_lambda_proxy_class}): the library's JMX thread was still linking lambdas
 * of the platform MBean server as the archive was written. So a shutdown hook waits, in such JVMs only, until that
 * work has ended (at most {@link #EXIT_WAIT_SECONDS}); other JVMs exit as they would have.
 */
public final class BackgroundWork {
    /** The longest an exit waits for the work. */
    static final long EXIT_WAIT_SECONDS = 10;
    private static final AtomicInteger RUNNING = new AtomicInteger();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();
    private static final Object DONE = new Object();

    private BackgroundWork() {
    }

    /** {@code work}, counted from now (it is about to be handed to a thread) until it ends. */
    public static Runnable counted(Runnable work) {
        RUNNING.incrementAndGet();
        hook();
        return () -> {
            try {
                work.run();
            } finally {
                if (RUNNING.decrementAndGet() == 0) {
                    synchronized (DONE) {
                        DONE.notifyAll();
                    }
                }
            }
        };
    }

    private static void hook() {
        if (HOOKED.get() || !HOOKED.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(BackgroundWork::atExit, "uring4j-exit"));
        } catch (IllegalStateException e) {
            // the JVM is exiting already: nothing to wait for that the hook could still help with
        }
    }

    private static void atExit() {
        if (RUNNING.get() == 0 || !archiveAtExit()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_WAIT_SECONDS);
        synchronized (DONE) {
            long left;
            while (RUNNING.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    DONE.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Whether this JVM writes a class archive as it exits (options from every source the launcher reads). */
    static boolean archiveAtExit() {
        try {
            for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (a.startsWith("-XX:ArchiveClassesAtExit=") || a.startsWith("-XX:AOTCacheOutput=")
                        || a.equals("-XX:AOTMode=record")) {
                    return true;
                }
            }
            return false;
        } catch (RuntimeException | LinkageError e) {
            return true; // cannot tell: the wait is bounded
        }
    }
}
