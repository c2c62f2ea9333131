package io.github.uring4j.engine;

/**
 * The threads the library makes for itself, unstarted daemons. None takes a copy of the inheritable thread locals of
 * the thread whose call happened to start it: a long-lived loop or cleaner kept a request's context (and whatever it
 * refers to) for the life of the JVM. Threads that serve the whole process (the default executor's, the cleaners',
 * the JMX and copy helpers') have the system class loader as their context class loader, as the JDK's own pools'
 * threads do, not the first caller's: a web application's class loader stayed reachable from them after it was
 * undeployed. The threads of an executor a program builds keep the builder's context class loader (its handlers run
 * there).
 */
public final class LibraryThreads {
    private LibraryThreads() {
    }

    /** A thread that serves the whole process: no inherited thread locals, the system class loader as context. */
    public static Thread shared(String name, Runnable task) {
        Thread t = Thread.ofPlatform().name(name).daemon(true).inheritInheritableThreadLocals(false).unstarted(task);
        t.setContextClassLoader(ClassLoader.getSystemClassLoader());
        return t;
    }

    /** A thread of something the caller owns: no inherited thread locals, the caller's context class loader. */
    public static Thread owned(String name, Runnable task) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        Thread t = Thread.ofPlatform().name(name).daemon(true).inheritInheritableThreadLocals(false).unstarted(task);
        t.setContextClassLoader(context);
        return t;
    }

    /** {@link #shared} or {@link #owned}. */
    public static Thread of(boolean shared, String name, Runnable task) {
        return shared ? shared(name, task) : owned(name, task);
    }
}
