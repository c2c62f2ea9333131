package io.github.uring4j.engine;

/**
 * Idle {@link Request}s. Threads that complete requests all day (event loops) get a cache of their own, used
 * without a lock; everyone else shares a small locked stack. A request returns to the cache of the thread that ends
 * it, so a handler that issues its next request from a completion reuses one without contention.
 */
public final class RequestPool {
    private static final int SHARED = 1024;
    private static final int LOCAL = 256;

    /** A loop thread's own idle requests; touched by that thread only. */
    private static final class Cache {
        final Thread owner;
        final Request[] items = new Request[LOCAL];
        int size;

        Cache(Thread owner) {
            this.owner = owner;
        }
    }

    final BouncePool bounces;
    private final Request[] idle = new Request[SHARED];
    private int size;
    private volatile Cache[] caches = new Cache[0];

    public RequestPool(BouncePool bounces) {
        this.bounces = bounces;
    }

    public BouncePool bounces() {
        return bounces;
    }

    /** Gives {@code owner} (an event loop thread) a private cache. */
    public synchronized void addCache(Thread owner) {
        Cache[] now = caches;
        Cache[] next = java.util.Arrays.copyOf(now, now.length + 1);
        next[now.length] = new Cache(owner);
        caches = next;
    }

    private Cache cache() {
        Thread t = Thread.currentThread();
        for (Cache c : caches) {
            if (c.owner == t) {
                return c;
            }
        }
        return null;
    }

    public Request acquire() {
        Cache c = cache();
        if (c != null && c.size > 0) {
            Request r = c.items[--c.size];
            c.items[c.size] = null;
            return r;
        }
        synchronized (this) {
            if (size > 0) {
                Request r = idle[--size];
                idle[size] = null;
                return r;
            }
        }
        return new Request(this);
    }

    void release(Request r) {
        Cache c = cache();
        if (c != null && c.size < LOCAL) {
            c.items[c.size++] = r;
            return;
        }
        synchronized (this) {
            if (size < SHARED) {
                idle[size++] = r;
            }
        }
    }
}
