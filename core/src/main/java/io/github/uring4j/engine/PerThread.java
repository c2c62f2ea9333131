package io.github.uring4j.engine;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * One value per thread, as a {@code ThreadLocal} holding it, except that a platform thread's map holds only a weak
 * reference to it (the value itself is held here, for as long as its thread lives): a value of the library's own class
 * in the maps of a server's long-lived request threads kept the class loader of a web application that bundles the
 * library from being unloaded. A virtual thread's value is held by its map, as usual (the thread is short-lived, and
 * registering each one here would serialise them).
 */
public final class PerThread<T> {
    private final Supplier<T> make;
    private final ThreadLocal<WeakReference<T>> platform = new ThreadLocal<>();
    private final ThreadLocal<T> virtual;
    /** The platform threads' values; an entry goes once its thread is unreachable. */
    private final Map<Thread, T> held = Collections.synchronizedMap(new WeakHashMap<>());

    public PerThread(Supplier<T> make) {
        this.make = make;
        this.virtual = ThreadLocal.withInitial(make);
    }

    /** The calling thread's value, made on its first call. */
    public T get() {
        Thread t = Thread.currentThread();
        if (t.isVirtual()) {
            return virtual.get();
        }
        WeakReference<T> r = platform.get();
        T v = r == null ? null : r.get();
        if (v == null) {
            v = make.get();
            held.put(t, v);
            platform.set(new WeakReference<>(v));
        }
        return v;
    }
}
