package io.github.uring4j.engine;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The library's MXBeans, registered off the caller's path: the platform MBean server takes a tenth of a second or
 * more to start in a fresh JVM, which the first file a program opens should not wait for. Names are reserved at
 * once (so they can be reported); registration and unregistration run in order on one daemon thread, as
 * {@link BackgroundWork}.
 */
public final class Jmx {
    private static final Set<String> RESERVED = ConcurrentHashMap.newKeySet();
    private static final ExecutorService THREAD = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "uring4j-jmx");
        t.setDaemon(true);
        return t;
    });

    private Jmx() {
    }

    /**
     * Reserves {@code domainAndType} with {@code ",name=..."} ({@code name} numbered from 2 where uring4j in this JVM
     * took it already; no name: the bare one, once) and registers {@code bean} under it soon. Null when it cannot.
     */
    public static ObjectName register(String domainAndType, String name, Object bean) {
        for (int i = 1; i < 1000; i++) {
            ObjectName on;
            try {
                on = new ObjectName(name == null ? domainAndType
                        : domainAndType + ",name=" + ObjectName.quote(i == 1 ? name : name + "#" + i));
            } catch (JMException e) {
                return null;
            }
            if (!RESERVED.add(on.getCanonicalName())) {
                if (name == null) {
                    return null;
                }
                continue;
            }
            THREAD.execute(BackgroundWork.counted(() -> {
                try {
                    ManagementFactory.getPlatformMBeanServer().registerMBean(bean, on);
                } catch (JMException | RuntimeException e) {
                    Log.warn("the JMX view " + on + " could not be registered: " + e);
                }
            }));
            return on;
        }
        return null;
    }

    /** Unregisters {@code on} (after its registration, if that is still to run) and frees its name. */
    public static void unregister(ObjectName on) {
        THREAD.execute(BackgroundWork.counted(() -> {
            try {
                if (ManagementFactory.getPlatformMBeanServer().isRegistered(on)) {
                    ManagementFactory.getPlatformMBeanServer().unregisterMBean(on);
                }
            } catch (JMException | RuntimeException e) {
                // gone already
            } finally {
                RESERVED.remove(on.getCanonicalName());
            }
        }));
    }

    /** Waits until the registrations and unregistrations asked for so far have run (tests, tools). */
    public static void settle() throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        THREAD.execute(done::countDown);
        done.await(30, TimeUnit.SECONDS);
    }
}
