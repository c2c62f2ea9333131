package io.github.uring4j.nio;

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Calls of virtual threads that could hold their carrier for long, made on a platform thread instead while the
 * virtual thread waits unmounted: buffered writes while the kernel makes writers wait, and large copies that read
 * the device (a copy of cached pages stays, as a write does).
 *
 * <p>ext4 cannot take a buffered write without possibly waiting ({@code RWF_NOWAIT} is refused), so a write of a
 * virtual thread is a call on its carrier: as fast as a write gets while the page cache takes it. When the kernel
 * throttles writers (more dirty pages than {@code vm.dirty_ratio} allows) or a write waits for a journal commit or
 * for another writer's inode lock, the call sleeps, and so does the carrier: every virtual thread waiting for that
 * carrier waits with it. So a virtual thread's write that took longer than its copy could ({@link #baseNanos} plus a
 * nanosecond a byte), when it is the second within {@link #STRIKE_NANOS}, sends the buffered writes of every virtual
 * thread to the platform threads of a pool ({@link #offCarrier}) for {@link #FIRST_BACKOFF_NANOS}: throttling is the
 * machine's and the file system's, not one file's, so a stall says the next write of any file may stall too. After
 * the period one write probes on its carrier while the others still leave theirs (so that a probe that waits holds
 * one carrier, not all): if it waited too, the next period is twice as long, up to {@link #MAX_BACKOFF_NANOS}; if
 * not, writes stay on their carriers again.
 *
 * <p>Measured on a 2-core VM (ext4 on virtio, JDK 25), five seconds each, two runs of each way alternating: a
 * platform thread rewriting a file 64 MiB at a time (holding its inode lock for about 25 ms a call), four virtual
 * threads writing 4 KiB to the same file every millisecond, and a virtual thread ticking every millisecond. With
 * every write on the carriers the ticker ran 241-256 of its 5,000 ticks, a median 26-27 ms late; the JDK's channel
 * 164-174, 28 ms late; with this 2,742-2,977, a median 0.09 ms late (p99 5.4-6.0 ms). Under the kernel's dirty-page
 * throttling alone (eight virtual threads writing 256 KiB every 2 ms for 8 s, {@code vm.dirty_bytes} 256 MiB) the
 * ticker's worst lateness was 27-50 ms with every write on the carriers, 23-51 ms with this, 4-21 ms on the JDK's
 * channel: there the first two stalls and the probes still wait on carriers. The ring was tried as the place for these
 * writes and not kept: io_uring hands an ext4 buffered write to a worker thread of its own anyway, after a hop
 * through the event loop, and wrote up to a third less than this in the throttled runs. A write timed here costs two
 * {@code System.nanoTime()} calls: 4-5% of the rate of eight virtual threads writing 4 KiB blocks to cached files
 * (1.8 million writes a second on 2 cores), nothing measurable at 256 KiB.
 */
final class CarrierStalls {
    /** How long the first period lasts: writes of virtual threads leave their carriers meanwhile. */
    static final long FIRST_BACKOFF_NANOS = 250_000_000L;
    static final long MAX_BACKOFF_NANOS = 8_000_000_000L;
    /**
     * A write that took this much longer than a nanosecond a byte (a copy slower than 1 GB/s) stalled its carrier:
     * the time the event loop allows its own writes. Shorter waits are common without any throttling (a journal
     * handle, the carrier's thread preempted by another on a busy machine): at 2 ms, eight virtual threads writing
     * 4 KiB blocks to cached files saw enough of them to send 95% of their writes off their carriers.
     */
    static final long DEFAULT_BASE_NANOS = 10_000_000L;
    /**
     * A stall starts a period only when another came at most this long before it: the kernel's throttling makes
     * writers wait again and again, where one slow write may have been the JVM's. With one stall enough, a virtual
     * thread writing 2,000 blocks of 4 KiB alone in a fresh JVM sent 1,493-1,999 of them off its carrier: one of its
     * first writes took over 10 ms (most likely the JIT and the linking of the call's path).
     */
    static final long STRIKE_NANOS = 1_000_000_000L;
    /** {@link #DEFAULT_BASE_NANOS}, or -1 in tests, so that every write made on a carrier counts as a stall. */
    static volatile long baseNanos = DEFAULT_BASE_NANOS;

    /** {@link System#nanoTime()} until which writes of virtual threads leave their carriers. */
    private static volatile long until = System.nanoTime();
    /** A period began, and no write has been seen since to pass without waiting: writes leave, or one probes. */
    private static volatile boolean episode;
    /** A write is on its carrier to see whether the kernel still makes writers wait; the others leave meanwhile. */
    private static final AtomicBoolean PROBING = new AtomicBoolean();
    private static volatile long lastStall = System.nanoTime() - MAX_BACKOFF_NANOS * 4;
    private static volatile long backoff = FIRST_BACKOFF_NANOS;
    /** Stalls seen (for tests). */
    private static final AtomicLong STALLS = new AtomicLong();

    /** {@link #route}: the write is made on the carrier, and timed. */
    static final int INLINE = 0;
    /** {@link #route}: the write goes to a platform thread ({@link #offCarrier}). */
    static final int OFF = 1;
    /** {@link #route}: the write is made on the carrier, and tells whether writers still wait. */
    static final int PROBE = 2;

    /** Most platform threads making calls for virtual threads at once: as many as the JDK adds carriers. */
    static final int MAX_THREADS = 256;
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor WRITERS = new ThreadPoolExecutor(0, MAX_THREADS, 10, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> io.github.uring4j.engine.LibraryThreads.shared(
                    "uring4j-off-carrier-" + THREADS.incrementAndGet(), r));

    private CarrierStalls() {
    }

    /** A system call made for a virtual thread: its result, or {@code -errno}. */
    interface Syscall {
        long call() throws IOException;
    }

    /**
     * Makes {@code call} on a platform thread while the calling virtual thread parks, so that its carrier runs
     * others meanwhile; on the caller's thread when {@link #MAX_THREADS} calls wait already. An interrupt meanwhile
     * stays pending, as for a call made on the carrier.
     */
    static long offCarrier(Syscall call) throws IOException {
        Counters.OFF_CARRIER_CALLS.increment();
        Handed h = new Handed(call);
        try {
            WRITERS.execute(h);
        } catch (RejectedExecutionException e) {
            return call.call();
        }
        h.await();
        if (h.error instanceof IOException e) {
            throw e;
        }
        if (h.error instanceof RuntimeException e) {
            throw e;
        }
        if (h.error instanceof Error e) {
            throw e;
        }
        return h.value;
    }

    /** One call handed to the pool, and the thread waiting for it. */
    private static final class Handed implements Runnable {
        private final Thread waiter = Thread.currentThread();
        private final Syscall call;
        private long value;
        private Throwable error;
        private volatile boolean done;

        Handed(Syscall call) {
            this.call = call;
        }

        @Override
        public void run() {
            try {
                value = call.call();
            } catch (Throwable t) {
                error = t;
            }
            done = true;
            LockSupport.unpark(waiter); // may throw with the heap full (a virtual thread's unpark allocates)
        }

        void await() {
            boolean interrupted = false;
            while (!done) {
                // Timed: an unpark lost to an OutOfMemoryError on the pool's thread left the caller parked for ever
                LockSupport.parkNanos(this, 100_000_000L);
                if (!done && Thread.interrupted()) {
                    interrupted = true; // park would not wait while the flag is set
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Where a virtual thread's buffered write goes: {@link #INLINE} (no period), {@link #OFF} (in a period, or after
     * one while another write probes), {@link #PROBE} (the first write after a period: the others leave until it
     * is back, so a probe that waits holds one carrier, not all). One volatile read when there is no period.
     */
    static int route() {
        if (!episode) {
            return INLINE;
        }
        if (System.nanoTime() - until < 0) {
            return OFF;
        }
        return PROBING.compareAndSet(false, true) ? PROBE : OFF;
    }

    /** True while buffered writes of virtual threads leave their carriers (tests). */
    static boolean active() {
        return episode && System.nanoTime() - until < 0;
    }

    /**
     * A virtual thread's write of {@code len} bytes, made on its carrier ({@link #route} {@link #INLINE} or
     * {@link #PROBE}), began at {@code t0} and ended now (or failed).
     */
    static void ended(long t0, long len, boolean probe) {
        long now = System.nanoTime();
        boolean stalled = now - t0 > baseNanos + len;
        if (stalled) {
            STALLS.incrementAndGet();
        }
        // Racy on purpose: two threads that see a stall at once agree closely enough on the period.
        if (probe) {
            if (stalled) {
                long b = Math.min(2 * backoff, MAX_BACKOFF_NANOS); // writers still wait: a longer period
                backoff = b;
                lastStall = now;
                until = now + b;
            } else {
                episode = false; // the kernel takes writes at once again
                backoff = FIRST_BACKOFF_NANOS;
            }
            PROBING.set(false);
            return;
        }
        if (!stalled) {
            return;
        }
        long last = lastStall;
        lastStall = now;
        if (now - last > STRIKE_NANOS) {
            return; // alone, it may have been the JVM's: a first call linked, a pause for the garbage collector
        }
        backoff = FIRST_BACKOFF_NANOS;
        until = now + FIRST_BACKOFF_NANOS;
        episode = true;
    }

    /** The length of the last period (tests). */
    static long period() {
        return backoff;
    }

    /** Stalls seen since the JVM started. */
    static long stalls() {
        return STALLS.get();
    }

    /** Ends any period at once and forgets the backoff (tests). */
    static void reset() {
        long now = System.nanoTime();
        episode = false;
        until = now;
        lastStall = now - MAX_BACKOFF_NANOS * 4;
        backoff = FIRST_BACKOFF_NANOS;
        PROBING.set(false);
    }
}
