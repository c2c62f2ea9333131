package io.github.uring4j.engine;

/** The few things uring4j says on its own, through {@link System.Logger} (no logging dependency). */
public final class Log {
    /**
     * Got at the first message, not as the class is initialised: this class's initialiser allocates nothing, so it
     * cannot fail. Made under a full heap, the logger failed it, and a class whose initialiser failed fails every
     * later use: a handler's error, said from the catch that kept it from the library, escaped as the error of the
     * handler's own telling, which was made again (the handler called twice), and nothing was ever said again.
     */
    private static volatile System.Logger log;
    private static boolean fallbackWarned;

    private Log() {
    }

    /** Once per JVM: why io_uring is not used. */
    public static void fallback(String reason) {
        synchronized (Log.class) {
            if (fallbackWarned) {
                return;
            }
            fallbackWarned = true;
        }
        say(System.Logger.Level.WARNING, "uring4j: falling back to the threads backend: " + reason, null);
    }

    public static void warn(String message) {
        say(System.Logger.Level.WARNING, "uring4j: " + message, null);
    }

    public static void callbackFailed(Throwable t) {
        say(System.Logger.Level.WARNING, "uring4j: a CompletionHandler threw; the event loop carries on", t);
    }

    /** The release of an object dropped without {@code close()} threw; the others are released. */
    public static void releaseFailed(Throwable t) {
        say(System.Logger.Level.WARNING, "uring4j: releasing an executor or buffer pool dropped without close()"
                + " threw; the others are released", t);
    }

    public static void completionFailed(Throwable t) {
        say(System.Logger.Level.WARNING, "uring4j: completing a future on the future executor threw; the others"
                + " are completed", t);
    }

    public static void loopFailed(String loop, Throwable t) {
        say(System.Logger.Level.ERROR, "uring4j: event loop " + loop + " failed; its operations fail", t);
    }

    /**
     * Says it, or nothing when the logger itself fails: a message of the library's must not fail the call that made
     * it (a drop-in channel's {@code close()} threw {@code java.lang.Error} when the first date a logger formatted
     * needed the time-zone file and the process had no descriptor left to open it; found by a hostile probe).
     */
    private static void say(System.Logger.Level level, String message, Throwable t) {
        try {
            System.Logger to = log;
            if (to == null) {
                to = System.getLogger("io.github.uring4j");
                log = to;
            }
            say(to, level, message, t);
        } catch (Throwable noLogger) {
            // the heap is full: nothing to say it with
        }
    }

    static void say(System.Logger to, System.Logger.Level level, String message, Throwable t) {
        try {
            if (t == null) {
                to.log(level, message);
            } else {
                to.log(level, message, t);
            }
        } catch (Throwable failed) {
            // nowhere left to say it
        }
    }
}
