package io.github.uring4j.engine;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * The library's MXBeans, registered off the caller's path: the platform MBean server takes a tenth of a second or
 * more to start in a fresh JVM, which the first file a program opens should not wait for. Names are reserved at
 * once (so they can be reported); registration and unregistration run in order on one daemon thread, as
 * {@link BackgroundWork}. Nor is the server started for uring4j in a program's first seconds ({@link #DEFER_NANOS}
 * after the first registration), unless it runs already or starts meanwhile (the program or a monitoring tool asked
 * for it; looked at every {@link #POLL_MILLIS} ms): started there it cost a fresh JVM 0.24 s of CPU beside the
 * program's start (a program that reads one file and sleeps three seconds: 0.92-0.98 s of process CPU on the
 * provider, 0.69-0.74 without the registration, 0.10 on the built-in provider), which a short program never
 * looks at.
 *
 * <p>A runtime image without the {@code java.management} module (made with {@code jlink}, uring4j on its class path)
 * gets no MXBeans, after one warning; everything else works. So no catch clause, field or signature here names a
 * {@code javax.management} type that loading this class would need.
 */
public final class Jmx {
    /** Whether this runtime has {@code java.management}. */
    private static final boolean PRESENT = ModuleLayer.boot().findModule("java.management").isPresent();
    private static final AtomicBoolean ABSENT_TOLD = new AtomicBoolean();
    private static final Set<String> RESERVED = ConcurrentHashMap.newKeySet();
    /**
     * The names this library registered itself: only those are unregistered. A name another class loader's copy of
     * uring4j (or any other code) holds fails to register here, and its bean was unregistered by this close.
     */
    private static final Set<String> OWNED = ConcurrentHashMap.newKeySet();
    private static final java.util.concurrent.ScheduledExecutorService THREAD = jmxThread();

    /**
     * One thread, which ends after 10 s without work (the next registration starts another): one that lived for ever
     * kept the class loader of a web application that bundles the library from being unloaded.
     */
    private static java.util.concurrent.ScheduledExecutorService jmxThread() {
        java.util.concurrent.ScheduledThreadPoolExecutor e = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                r -> LibraryThreads.shared("uring4j-jmx", r));
        e.setKeepAliveTime(10, java.util.concurrent.TimeUnit.SECONDS);
        e.allowCoreThreadTimeOut(true);
        e.setRemoveOnCancelPolicy(true);
        return e;
    }
    /** Descriptors that must be free before the platform MBean server is first asked for. */
    static final int SPARE_DESCRIPTORS = 32;

    static {
        // Loaded now, while descriptors are plenty: a class loaded from a directory needs one, and a reference that
        // failed to resolve at the limit fails for good (the registration never happened)
        ProcessLimits.class.getName();
    }
    /** Whether this library has had the platform MBean server once (it is started then, for the JVM's life). */
    private static volatile boolean serverStarted;
    /** How long after the first registration the platform MBean server is started for it, if nothing else starts it. */
    static final long DEFER_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long POLL_MILLIS = 250;
    /** When deferred registrations run at the latest ({@code System.nanoTime()}); 0 before the first. JMX thread only. */
    private static long deferUntil;
    /** Whether a look for a started server is scheduled. JMX thread only. */
    private static boolean polling;
    /** Registrations waiting for the server to start or for {@link #deferUntil}, by canonical name (the latest). */
    private static final java.util.Map<String, Runnable> DEFERRED = new ConcurrentHashMap<>();

    private Jmx() {
    }

    /**
     * Reserves {@code domainAndType} with {@code ",name=..."} ({@code name} numbered from 2 where uring4j in this JVM
     * took it already; no name: the bare one, once) and registers {@code impl} under it soon, as an MXBean of
     * {@code mxbeanInterface}. The canonical name, or null when it cannot.
     */
    public static String register(String domainAndType, String name, Object impl, Class<?> mxbeanInterface) {
        if (!PRESENT) {
            if (ABSENT_TOLD.compareAndSet(false, true)) {
                Log.warn("no JMX view of uring4j: this Java runtime has no java.management module");
            }
            return null;
        }
        for (int i = 1; i < 1000; i++) {
            ObjectName on;
            try {
                on = new ObjectName(name == null ? domainAndType
                        : domainAndType + ",name=" + ObjectName.quote(i == 1 ? name : name + "#" + i));
            } catch (Exception e) {
                return null;
            }
            String canonical = on.getCanonicalName();
            if (!RESERVED.add(canonical)) {
                if (name == null) {
                    return null;
                }
                continue;
            }
            THREAD.execute(BackgroundWork.counted(() -> registerSoon(canonical, on, impl, mxbeanInterface)));
            return canonical;
        }
        return null;
    }

    /** On the JMX thread: registers now if the server runs, else once it does or {@link #DEFER_NANOS} have passed. */
    private static void registerSoon(String canonical, ObjectName on, Object impl, Class<?> mxbeanInterface) {
        if (deferUntil == 0) {
            deferUntil = System.nanoTime() + DEFER_NANOS;
        }
        if (serverStarted || System.nanoTime() - deferUntil >= 0 || serverRuns()) {
            registerNow(canonical, on, impl, mxbeanInterface);
            return;
        }
        DEFERRED.put(canonical, () -> registerNow(canonical, on, impl, mxbeanInterface));
        if (!polling) {
            polling = true;
            THREAD.schedule(Jmx::poll, POLL_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** On the JMX thread: runs the deferred registrations once the server runs or their time has come. */
    private static void poll() {
        if (DEFERRED.isEmpty()) {
            polling = false;
        } else if (System.nanoTime() - deferUntil >= 0 || serverRuns()) {
            polling = false;
            runDeferred();
        } else {
            THREAD.schedule(Jmx::poll, POLL_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** On the JMX thread: the deferred registrations, now. */
    private static void runDeferred() {
        for (String name : DEFERRED.keySet()) {
            Runnable r = DEFERRED.remove(name);
            if (r != null) {
                try {
                    r.run();
                } catch (RuntimeException | LinkageError e) {
                    Log.warn("the JMX view " + name + " could not be registered: " + e);
                }
            }
        }
    }

    /** Whether an MBean server runs in this JVM (the platform's is made through the factory, which lists it). */
    private static boolean serverRuns() {
        try {
            return !javax.management.MBeanServerFactory.findMBeanServer(null).isEmpty();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * On the JMX thread. The platform MBean server's first start loads native libraries; where the process has no
     * descriptor to spare then ({@code EMFILE}), its class fails to initialise for the rest of the JVM's life, and
     * the program's own {@code ManagementFactory} calls fail with it ({@code NoClassDefFoundError}). So before that
     * first start, {@link #SPARE_DESCRIPTORS} must be free, or the registration waits a second and looks again (a
     * program that filled its descriptors had a background registration poison its JMX). A name unregistered
     * meanwhile is not registered.
     */
    private static void registerNow(String canonical, ObjectName on, Object impl, Class<?> mxbeanInterface) {
        if (!RESERVED.contains(canonical)) {
            return; // unregistered before it could be registered
        }
        boolean spare;
        try {
            spare = serverStarted || descriptorsToSpare();
        } catch (LinkageError | RuntimeException e) {
            spare = false; // a class it needs could not be loaded (from a directory, with no descriptor to spare)
        }
        if (!spare) {
            THREAD.schedule(BackgroundWork.counted(() -> registerNow(canonical, on, impl, mxbeanInterface)), 1,
                    TimeUnit.SECONDS);
            return;
        }
        try {
            javax.management.MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            serverStarted = true;
            server.registerMBean(new StandardMBean(impl, cast(mxbeanInterface), true), on);
            OWNED.add(canonical);
        } catch (Exception | LinkageError e) {
            Log.warn("the JMX view " + canonical + " could not be registered: " + e);
        }
    }

    /**
     * Whether {@link #SPARE_DESCRIPTORS} descriptors are free now: the open ones counted against the process's limit,
     * one descriptor at a time (the listing's own). Opening them to see, as this once did, took up to 32 at once each
     * second: a program holding 10 under a limit of 20 to 32 had its own opens fail with {@code EMFILE} when they
     * met (a hostile probe's single-threaded loop of {@code Files.write}, and {@code javac} at {@code ulimit -n 24}).
     * False when either cannot be read (there may be no descriptor to read it with).
     */
    static boolean descriptorsToSpare() {
        long limit = ProcessLimits.openFiles();
        if (limit == ProcessLimits.UNREADABLE) {
            return false; // likely no descriptor to read it with
        }
        if (limit < 0) {
            return true;
        }
        String[] open = new java.io.File("/proc/self/fd").list();
        return open != null && open.length + SPARE_DESCRIPTORS <= limit;
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<T> cast(Class<?> c) {
        return (Class<T>) c;
    }

    /** Unregisters {@code canonicalName} (after its registration, if that is still to run) and frees the name. */
    /** Views of the whole process (the drop-ins'), registered while the default executor is open. */
    private static final Set<String> PROCESS_WIDE = ConcurrentHashMap.newKeySet();

    /** As {@link #register}, for a view that {@link #unregisterProcessWide} takes away with the default executor. */
    public static String registerProcessWide(String domainAndType, Object impl, Class<?> mxbeanInterface) {
        String name = register(domainAndType, null, impl, mxbeanInterface);
        if (name != null) {
            PROCESS_WIDE.add(name);
        }
        return name;
    }

    /**
     * The default executor is closed: the process-wide views go with it (the next use registers them again). A view
     * registered for good kept the class loader of a web application that bundles the library from being unloaded
     * after it closed everything.
     */
    public static void unregisterProcessWide() {
        for (String name : PROCESS_WIDE) {
            if (PROCESS_WIDE.remove(name)) {
                unregister(name);
            }
        }
    }

    public static void unregister(String canonicalName) {
        if (canonicalName == null || !PRESENT) {
            return;
        }
        THREAD.execute(BackgroundWork.counted(() -> {
            DEFERRED.remove(canonicalName);
            try {
                if (OWNED.remove(canonicalName)) { // registered: the server is started
                    ManagementFactory.getPlatformMBeanServer().unregisterMBean(new ObjectName(canonicalName));
                }
            } catch (Exception e) {
                // gone already
            } finally {
                RESERVED.remove(canonicalName);
            }
        }));
    }

    /**
     * Whether {@code canonicalName} is registered by this library now, once the registrations and unregistrations
     * asked for so far have run.
     */
    public static boolean registered(String canonicalName) {
        if (canonicalName == null || !PRESENT) {
            return false;
        }
        try {
            settle();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return OWNED.contains(canonicalName);
    }

    /**
     * Waits until the registrations and unregistrations asked for so far have run (tests, tools), those deferred
     * included: they run now.
     */
    public static void settle() throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        THREAD.execute(() -> {
            try {
                runDeferred();
            } finally {
                done.countDown();
            }
        });
        done.await(30, TimeUnit.SECONDS);
    }
}
