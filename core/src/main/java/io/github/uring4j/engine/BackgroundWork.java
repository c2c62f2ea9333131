package io.github.uring4j.engine;

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
    /** {@link #archiveAtExit()}, asked by the first work to run; null until then. */
    private static volatile Boolean archive;

    private BackgroundWork() {
    }

    /** The thread runs such work now. */
    private static final ThreadLocal<Boolean> HERE = new ThreadLocal<>();

    /** Whether the calling thread is running such work (the library's, not the program's). */
    public static boolean onThisThread() {
        return HERE.get() != null;
    }

    /** {@code work}, counted from now (it is about to be handed to a thread) until it ends. */
    public static Runnable counted(Runnable work) {
        synchronized (DONE) {
            RUNNING.incrementAndGet();
            hook();
        }
        return new Counted(work);
    }

    /** Work that {@link #counted} counts; a class, not a lambda (made on the program's thread, see the provider). */
    private static final class Counted implements Runnable {
        private final Runnable work;

        Counted(Runnable work) {
            this.work = work;
        }

        @Override
        public void run() {
            HERE.set(Boolean.TRUE);
            try {
                if (archive == null) {
                    archive = archiveAtExit(); // asked here, beside the program, not at its exit
                }
                work.run();
            } finally {
                HERE.remove();
                synchronized (DONE) {
                    if (RUNNING.decrementAndGet() == 0) {
                        DONE.notifyAll();
                        unhook();
                    }
                }
            }
        }
    }

    /**
     * Registers the exit hook while work runs (guarded by {@link #DONE}); {@link #unhook} removes it when the last
     * work ends: a hook registered for good kept the class loader of a web application that bundles the library from
     * being unloaded after it closed everything.
     */
    private static void hook() {
        if (HOOKED.get()) {
            return;
        }
        if (exitHook == null) {
            exitHook = LibraryThreads.shared("uring4j-exit", new Runnable() {
                @Override
                public void run() {
                    atExit();
                }
            });
        }
        try {
            Runtime.getRuntime().addShutdownHook(exitHook);
            HOOKED.set(true);
        } catch (IllegalStateException e) {
            // the JVM is exiting already: nothing to wait for that the hook could still help with
        }
    }

    /** No work runs: the hook goes (guarded by {@link #DONE}). */
    private static void unhook() {
        if (!HOOKED.get()) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
            HOOKED.set(false);
        } catch (IllegalStateException e) {
            // the JVM is exiting: the hook runs (or ran)
        }
    }

    /** The exit hook, made once; guarded by {@link #DONE}. */
    private static Thread exitHook;

    private static void atExit() {
        if (RUNNING.get() == 0) {
            return;
        }
        Boolean a = archive;
        if (a == null ? !archiveAtExit() : !a) {
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

    /**
     * Whether this JVM writes a class archive as it exits: its command line ({@code /proc/self/cmdline}, with the
     * {@code @argfiles} it names) and the launcher's environment variables. (The JMX view of the arguments would say
     * the same, but loading it at an exit while the work ran made a short program's whole run 15 ms longer; this is
     * asked by the first work to run, beside the program.)
     */
    static boolean archiveAtExit() {
        try {
            java.util.List<String> args = new java.util.ArrayList<>();
            // The command line from /proc, through java.io (no provider, no class the JVM has not loaded yet):
            // ProcessHandle's info took 5 ms of classes, at the exit of a program that ended before this was asked.
            try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/cmdline")) {
                for (String a : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\0")) {
                    if (!a.isEmpty()) {
                        args.add(a);
                    }
                }
            } catch (java.io.IOException e) {
                return true; // cannot tell: the wait is bounded
            }
            for (String env : new String[] {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"}) {
                String v = System.getenv(env);
                if (v != null) {
                    args.addAll(java.util.Arrays.asList(v.trim().split("\\s+")));
                }
            }
            for (int i = 0, n = args.size(); i < n; i++) {
                String a = args.get(i);
                if (a.startsWith("@") && a.length() > 1) {
                    try (java.io.FileInputStream in = new java.io.FileInputStream(a.substring(1))) {
                        args.addAll(java.util.Arrays.asList(new String(in.readAllBytes(),
                                java.nio.charset.StandardCharsets.UTF_8).trim().split("\\s+")));
                    } catch (java.io.IOException | RuntimeException e) {
                        // not a file the launcher read either
                    }
                }
            }
            for (String a : args) {
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
