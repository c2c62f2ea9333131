package io.github.uring4j.engine;

import java.util.concurrent.atomic.AtomicBoolean;

/** The few things uring4j says on its own, through {@link System.Logger} (no logging dependency). */
public final class Log {
    private static final System.Logger LOG = System.getLogger("io.github.uring4j");
    private static final AtomicBoolean FALLBACK_WARNED = new AtomicBoolean();

    private Log() {
    }

    /** Once per JVM: why io_uring is not used. */
    public static void fallback(String reason) {
        if (FALLBACK_WARNED.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "uring4j: falling back to the threads backend: " + reason);
        }
    }

    public static void warn(String message) {
        LOG.log(System.Logger.Level.WARNING, "uring4j: " + message);
    }

    public static void callbackFailed(Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "uring4j: a CompletionHandler threw; the event loop carries on", t);
    }

    /** The release of an object dropped without {@code close()} threw; the others are released. */
    public static void releaseFailed(Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "uring4j: releasing an executor or buffer pool dropped without close()"
                + " threw; the others are released", t);
    }

    public static void completionFailed(Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "uring4j: completing a future on the future executor threw; the others"
                + " are completed", t);
    }

    public static void loopFailed(String loop, Throwable t) {
        LOG.log(System.Logger.Level.ERROR, "uring4j: event loop " + loop + " failed; its operations fail", t);
    }
}
