package io.github.uring4j.bench.loadtypes;

import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.FileOption;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.bench.common.Buffers;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.channels.CompletionHandler;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The async API: an {@code AsyncFile} on a one-loop {@code IoExecutor} (made once for all of a spec's passes, as a
 * program would), {@code depth} operations in flight (page-cache transfers: at most the executor's default
 * {@code inFlightBytes} of them, as for the ring strategy), reads into buffers of a pool registered with the executor;
 * each completion handler (on the loop thread) checks the result, verifies a read's block and issues the next
 * operation. The measuring thread only waits.
 */
public final class AsyncLoad implements LoadStrategy {
    private IoExecutor executor;
    /** The read buffers, registered with {@link #executor}; made again when the size or the depth changes. */
    private BufferPool pool;
    private int poolIo;

    @Override
    public String name() {
        return "async";
    }

    @Override
    public long run(LoadSpec s) throws Exception {
        List<OpenOption> opts = new ArrayList<>();
        if (s.load() == Load.APPEND_WRITE) {
            opts.addAll(List.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING));
        } else {
            opts.add(s.load().write ? StandardOpenOption.WRITE : StandardOpenOption.READ);
        }
        if (s.direct()) {
            opts.add(FileOption.DIRECT);
        }
        // As the ring strategy: page-cache transfers keep at most RingLoad.CACHED_BYTES in flight (the executor would
        // queue the rest anyway), so as many buffers cycle as are in flight and they stay in the CPU's caches.
        int depth = s.direct() ? s.depth() : (int) Math.max(1, Math.min(s.depth(), RingLoad.CACHED_BYTES / s.ioSize()));
        // Writes come from memory the library holds (a direct buffer, as the channel strategy uses), so the kernel
        // takes them from it directly: a shared arena's memory would be copied through the library's own (see the
        // AsyncFile javadoc). Not an automatic arena either: every access to its segments checks that the arena is
        // alive, and the check would stay in the verifying loop (perf: verification took as long as the kernel's copy).
        MemorySegment pattern = s.load().write
                ? MemorySegment.ofBuffer(Buffers.alignedDirect((int) s.pattern().byteSize())).copyFrom(s.pattern()) : null;
        if (executor == null) {
            executor = IoExecutor.builder().loops(1).entries(Math.max(64, depth * 2)).inFlightLimit(Math.max(depth, 1))
                    .name("bench-loadtypes").build();
        }
        // Reads go into a pool of buffers registered with the executor's ring, as the ring strategy's are: the kernel
        // then copies into their pinned pages with memcpy (READ_FIXED) instead of copy_to_user through this process's
        // mapping. Unregistered, 1 MiB cached sequential reads one at a time ran at 0.98 times the channel's rate;
        // registered, 1.10-1.11 times (the same run for each). One pool for all passes of a size and depth, as a
        // program would keep one: a registration that fails (the locked-memory limit) warns once, and the pool's
        // buffers are then used unregistered. Writes come from the pattern and need none.
        boolean reads = !s.load().write;
        if (reads && (pool == null || poolIo != s.ioSize() || pool.count() != depth)) {
            if (pool != null) {
                pool.close();
            }
            pool = BufferPool.builder().bufferSize(s.ioSize()).count(depth).register(executor).build();
            poolIo = s.ioSize();
        }
        try (AsyncFile file = AsyncFile.open(executor, s.file(), opts.toArray(new OpenOption[0])).join()) {
            MemorySegment[] bufs = new MemorySegment[depth]; // one slot per buffer; a write's slot has none
            for (int i = 0; reads && i < depth; i++) {
                bufs[i] = pool.acquire().asSlice(0, s.ioSize());
            }
            try {
                Driver d = new Driver(s, file, bufs, pattern);
                long t0 = System.nanoTime();
                d.start(Math.min(depth, s.offsets().length));
                d.done.await();
                if (d.failure.get() != null) {
                    Throwable f = d.failure.get();
                    throw f instanceof Exception e ? e : new RuntimeException(f);
                }
                if (s.load().write && s.fsync()) {
                    file.force(false).join();
                }
                return System.nanoTime() - t0;
            } finally {
                for (int i = 0; reads && i < depth; i++) {
                    pool.release(bufs[i]);
                }
            }
        }
    }

    /**
     * Over the case, warm-up pass included: {@code loop_calls}, the writes and syncs the loop made itself, and
     * {@code slow_loop_calls}, those that held it over 10 ms (after such a write that others waited for, the file's writes go
     * through the ring for a quarter of a second), read from the executor's MXBean.
     */
    @Override
    public Map<String, Object> notes() {
        if (executor == null || executor.jmxName().isEmpty()) {
            return Map.of();
        }
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName on = new ObjectName(executor.jmxName().get());
            return Map.of("loop_calls", server.getAttribute(on, "LoopCalls"),
                    "slow_loop_calls", server.getAttribute(on, "SlowLoopCalls"));
        } catch (JMException e) {
            return Map.of(); // not registered (yet): no notes
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
        if (executor != null) {
            executor.close();
            executor = null;
        }
    }

    /** Hands out the offsets in order; one in-flight slot per buffer (the slot index is the attachment). */
    private final class Driver implements CompletionHandler<Integer, Integer> {
        final LoadSpec s;
        final AsyncFile file;
        final MemorySegment pattern;
        final long[] offsetOf;
        /** Each slot's buffer, made once (a slice per read was garbage, and its fresh heap pages faulted in). */
        final MemorySegment[] slotBuf;
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        int next;
        int inFlight;

        Driver(LoadSpec s, AsyncFile file, MemorySegment[] bufs, MemorySegment pattern) {
            this.s = s;
            this.file = file;
            this.pattern = pattern;
            this.offsetOf = new long[bufs.length]; // one per buffer
            this.slotBuf = bufs;
        }

        /** Issues the first operations; from then on the handlers, on the loop thread, keep it going. */
        void start(int n) {
            synchronized (this) {
                for (int slot = 0; slot < n; slot++) {
                    issue(slot);
                }
            }
        }

        private void issue(int slot) {
            long off = s.offsets()[next++];
            offsetOf[slot] = off;
            inFlight++;
            int len = s.ioSize();
            if (s.load().write) {
                file.write(pattern.asSlice(off % s.period(), len), off, slot, this);
            } else {
                file.read(slotBuf[slot], off, slot, this);
            }
        }

        @Override
        public void completed(Integer n, Integer slot) {
            synchronized (this) {
                inFlight--;
                int len = s.ioSize();
                if (n != len) {
                    fail(new IllegalStateException(name() + " " + s.load().label + ": " + (s.load().write ? "write" : "read")
                            + " at " + offsetOf[slot] + " moved " + n + " of " + len + " bytes"));
                    return;
                }
                if (!s.load().write) {
                    long bad = s.verify(slotBuf[slot], 0, offsetOf[slot], len);
                    if (bad >= 0) {
                        fail(new LoadStrategy.VerificationError(name(), s, bad));
                        return;
                    }
                }
                if (failure.get() == null && next < s.offsets().length) {
                    issue(slot);
                } else if (inFlight == 0) {
                    done.countDown();
                }
            }
        }

        @Override
        public void failed(Throwable exc, Integer slot) {
            synchronized (this) {
                inFlight--;
                fail(exc);
            }
        }

        private void fail(Throwable t) {
            failure.compareAndSet(null, t);
            if (inFlight == 0) {
                done.countDown();
            }
        }
    }
}
