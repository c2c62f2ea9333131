package io.github.uring4j.engine;

/**
 * How uring4j's other packages reach the engine behind an {@code IoExecutor} without the exported API naming an
 * engine type: the executor's class registers the access when it initialises (call any of its static methods first).
 */
public final class ExecutorDoor {
    private ExecutorDoor() {
    }

    /** What the executor shares with the library's other clients of its engine. */
    public interface Access {
        /** The backend of {@code executor}, an {@code IoExecutor}. */
        IoBackend backend(Object executor);

        /** The pool of copy buffers of {@code executor}. */
        BouncePool bounces(Object executor);
    }

    private static volatile Access access;

    public static void register(Access a) {
        access = a;
    }

    public static Access get() {
        Access a = access;
        if (a == null) {
            throw new IllegalStateException("IoExecutor not initialised");
        }
        return a;
    }
}
