package io.github.uring4j.nio;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The built-in watch service, handing out keys whose watchable is the path that was registered and whose events'
 * contexts are this file system's paths.
 * <p>
 * Programs compare keys by identity ({@code key == registered}, keys as map keys) and watchables too, so each
 * built-in key has one key of ours for as long as anyone can see it: a weak map from the built-in key (kept alive
 * by the built-in service while it is registered or queued) to our key, held only weakly itself, so that neither
 * keeps the other and a cancelled key that nobody holds any more goes away. The registered path is kept beside it,
 * so a key made again for a queued built-in key still answers with that same path object.
 */
final class UringWatchService implements WatchService {
    private final UringFileSystem fs;
    private final WatchService builtin;
    /** Built-in key to ours and the path first registered for it; guarded by itself. */
    private final Map<WatchKey, Entry> keys = new WeakHashMap<>();

    private record Entry(WeakReference<Key> key, Path watchable) {
    }

    UringWatchService(UringFileSystem fs, WatchService builtin) {
        this.fs = fs;
        this.builtin = builtin;
    }

    /** {@code path.register(this, ...)}. */
    WatchKey register(UringPath path, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers)
            throws IOException {
        WatchKey inner = path.builtin().register(builtin, events, modifiers);
        return key(inner, path);
    }

    /** Ours for {@code inner}; {@code registered} is the watchable of a key made now, if one must be. */
    private WatchKey key(WatchKey inner, Path registered) {
        if (inner == null) {
            return null;
        }
        synchronized (keys) {
            Entry e = keys.get(inner);
            Key k = e == null ? null : e.key().get();
            if (k == null) {
                Path watchable = e != null ? e.watchable()
                        : registered != null ? registered : fs.wrap((Path) inner.watchable());
                k = new Key(inner, watchable);
                keys.put(inner, new Entry(new WeakReference<>(k), watchable));
            }
            return k;
        }
    }

    @Override
    public void close() throws IOException {
        builtin.close();
    }

    @Override
    public WatchKey poll() {
        return key(builtin.poll(), null);
    }

    @Override
    public WatchKey poll(long timeout, TimeUnit unit) throws InterruptedException {
        return key(builtin.poll(timeout, unit), null);
    }

    @Override
    public WatchKey take() throws InterruptedException {
        return key(builtin.take(), null);
    }

    /** A built-in key with the registered path as its watchable and events about this file system's paths. */
    private final class Key implements WatchKey {
        private final WatchKey inner;
        private final Path watchable;

        Key(WatchKey inner, Path watchable) {
            this.inner = inner;
            this.watchable = watchable;
        }

        @Override
        public boolean isValid() {
            return inner.isValid();
        }

        @Override
        public List<WatchEvent<?>> pollEvents() {
            List<WatchEvent<?>> events = inner.pollEvents();
            List<WatchEvent<?>> ours = new ArrayList<>(events.size());
            for (WatchEvent<?> e : events) {
                ours.add(e.context() instanceof Path p ? new Event<Path>(e, fs.wrap(p)) : e);
            }
            return ours;
        }

        @Override
        public boolean reset() {
            return inner.reset();
        }

        @Override
        public void cancel() {
            inner.cancel();
        }

        @Override
        public Path watchable() {
            return watchable;
        }

        @Override
        public String toString() {
            return inner.toString();
        }
    }

    /** A built-in event about a path, with that path as this file system's. */
    private static final class Event<T> implements WatchEvent<T> {
        private final WatchEvent<?> inner;
        private final T context;

        Event(WatchEvent<?> inner, T context) {
            this.inner = inner;
            this.context = context;
        }

        @Override
        @SuppressWarnings("unchecked") // the event's kind is of the type of its context, a Path
        public Kind<T> kind() {
            return (Kind<T>) inner.kind();
        }

        @Override
        public int count() {
            return inner.count();
        }

        @Override
        public T context() {
            return context;
        }

        @Override
        public String toString() {
            return inner.toString();
        }
    }
}
