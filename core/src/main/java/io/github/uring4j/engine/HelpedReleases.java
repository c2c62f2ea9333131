package io.github.uring4j.engine;

import java.lang.ref.Cleaner;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A cleaner whose releases the threads making new objects of the kind help with: {@link #help} runs releases already
 * due (their objects were dropped without {@code close()} and found unreachable) on the caller's thread. A program
 * that drops buffer pools faster than one thread can release them (each release closes a shared arena: a handshake
 * with every thread of the JVM) then pays for its drops as it makes new ones, where the memory of the dropped ones
 * piled up for as long as the program went on (a hostile probe: 200,000 small pools built and dropped, 1 GB to 6.4 GB
 * of native memory). A daemon thread releases the rest, as a {@link Cleaner} does; where that thread cannot be
 * started (the process's thread limit), the helpers still do, and the next registration tries to start it again.
 */
public final class HelpedReleases {
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    /** Registered and not yet released: what keeps the references themselves reachable. */
    private final Set<Release> pending = ConcurrentHashMap.newKeySet();
    /** The name of the releasing thread; null: none, the helpers alone release (tests). */
    private final String threadName;
    private volatile Thread thread;

    public HelpedReleases(String threadName) {
        this.threadName = threadName;
    }

    /**
     * As {@link Cleaner#register}: {@code action} runs once, by {@code clean()} or once {@code object} is
     * unreachable.
     */
    public Cleaner.Cleanable register(Object object, Runnable action) {
        return register(object, action, action);
    }

    /**
     * As {@link #register(Object, Runnable)}, with {@code helped} run instead of {@code action} when a helper
     * releases the object (one that must not wait for long on a thread that only wanted to build something).
     */
    public Cleaner.Cleanable register(Object object, Runnable action, Runnable helped) {
        Release r = new Release(object, action, helped);
        pending.add(r);
        startThread();
        return r;
    }

    /** Runs at most {@code max} releases that are due on this thread; how many ran. */
    public int help(int max) {
        int n = 0;
        while (n < max) {
            Reference<?> r = queue.poll();
            if (r == null) {
                break;
            }
            try {
                ((Release) r).release(true);
            } catch (RuntimeException | Error e) {
                // another object's release: not the caller's to be told (its build goes on), as on the thread
                Log.releaseFailed(e);
            }
            n++;
        }
        return n;
    }

    /** Registered and not released yet (tests). */
    public int pending() {
        return pending.size();
    }

    private void startThread() {
        if (threadName == null) {
            return;
        }
        // under the lock even when a thread runs: it may be about to end (run), and must then see this registration
        synchronized (this) {
            if (thread == null) {
                try {
                    Thread t = LibraryThreads.shared(threadName, this::run);
                    t.start();
                    thread = t;
                } catch (OutOfMemoryError | RuntimeException noThread) {
                    // the thread limit: helpers release meanwhile, and the next registration tries again
                }
            }
        }
    }

    private void run() {
        while (true) {
            try {
                Release r = (Release) queue.remove(IDLE_MILLIS);
                if (r != null) {
                    r.clean();
                } else if (endIfIdle()) {
                    return;
                }
            } catch (InterruptedException e) {
                // a daemon of the library's own: nobody asks it to stop
            } catch (Throwable t) {
                Log.releaseFailed(t); // a release that failed: the next goes on
            }
        }
    }

    /**
     * How long the thread waits with nothing registered before it ends (the next registration starts another): a
     * thread that lived for ever kept the class loader of a web application that bundles the library from being
     * unloaded after it closed everything.
     */
    private static final long IDLE_MILLIS = 10_000;

    /** The thread ends when nothing is registered; a registration checks under the same lock (startThread). */
    private synchronized boolean endIfIdle() {
        if (!pending.isEmpty()) {
            return false;
        }
        thread = null;
        return true;
    }

    private final class Release extends PhantomReference<Object> implements Cleaner.Cleanable {
        private final Runnable action;
        private final Runnable helped;
        private final AtomicBoolean done = new AtomicBoolean();

        Release(Object object, Runnable action, Runnable helped) {
            super(object, queue);
            this.action = action;
            this.helped = helped;
        }

        @Override
        public void clean() {
            release(false);
        }

        void release(boolean byHelper) {
            if (done.compareAndSet(false, true)) {
                pending.remove(this);
                clear();
                (byHelper ? helped : action).run();
            }
        }
    }
}
