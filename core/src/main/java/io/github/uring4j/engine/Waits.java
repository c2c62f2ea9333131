package io.github.uring4j.engine;

import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How a platform thread waits for an operation that another thread completes: it spins for a while before it parks.
 *
 * <p>A parked thread costs a wake-up to continue: a futex call by the completing thread and, when the waiter's CPU
 * went idle, the scheduler bringing that CPU back. On the development machine (a 2-core VM) a park/unpark round trip
 * between two Java threads took 12-50 µs, and a cached 4 KiB {@code AsyncFile} read awaited with {@code join()} 18 µs,
 * of which the loop's work was about 1 µs. A waiter that spins sees the result as it lands, and its next request finds
 * the loop still spinning too (no eventfd write, no wake-up): the same reads took 1.2 µs, and one thread made 441k
 * reads/s instead of 50k, with less CPU per read.
 *
 * <p>A spin that the operation outlasts (a read from the device, a sync) was wasted: the thread then spins only on
 * every second wait, then every fourth, up to one in 257, and a spin that succeeds halves the pause again. Virtual
 * threads never spin (they would hold their carrier, which other virtual threads need). At most one fewer thread than
 * there are cores spins at once (at least one): the others park at once, and the loops keep a core. With 64 and 256
 * platform threads reading on 2 cores, spinning without that bound made 5-7% fewer reads than parking; with it, as
 * many or more (8 threads: 334k reads/s against 312k without the bound).
 */
public final class Waits {
    /** {@code -During4j.waitSpinMicros}: the default spin of a wait, in microseconds (50; 0: park at once). */
    public static final String PROPERTY = "uring4j.waitSpinMicros";
    /** The longest spin accepted, in microseconds. */
    public static final long MAX_MICROS = 1_000_000;
    /** The default spin of a wait, in nanoseconds ({@link #PROPERTY}, or 50 µs). */
    public static final long DEFAULT_NANOS = defaultNanos();
    /** The most waits a thread lets pass without a spin after spins that failed. */
    static final int MAX_PAUSE = 256;

    /** Per thread: [0] waits left without a spin; [1] the pause after the next failed spin. */
    private static final ThreadLocal<int[]> STATE = ThreadLocal.withInitial(() -> new int[2]);
    /** Threads spinning now, of all executors. */
    private static final AtomicInteger SPINNING = new AtomicInteger();
    /** Threads that may spin at once: one fewer than the cores, so that the loops keep a core (at least one). */
    static final int MAX_SPINNERS = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);

    private Waits() {
    }

    private static long defaultNanos() {
        String v = System.getProperty(PROPERTY);
        long nanos = parseMicros(v);
        if (nanos < 0) {
            Log.warn("-D" + PROPERTY + "=" + v + " is not a number of microseconds from 0 to " + MAX_MICROS
                    + ": waits spin for the default 50 µs");
            return 50_000;
        }
        return nanos;
    }

    /** {@code -During4j.waitSpinMicros} in nanoseconds: 50 µs when unset or blank, -1 when it is not 0 to 1,000,000. */
    static long parseMicros(String v) {
        if (v == null || v.isBlank()) {
            return 50_000;
        }
        try {
            long us = Long.parseLong(v.trim());
            return us >= 0 && us <= MAX_MICROS ? us * 1000 : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** This thread's state, for tests: the waits it lets pass without a spin now, and its pause after a failure. */
    static int[] state() {
        return STATE.get().clone();
    }

    /** Waits until {@code latch} opens; an interrupt does not end the wait, and the flag is set again after. */
    public static void awaitUninterruptibly(java.util.concurrent.CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Whether this thread must not wait for an operation of {@code backend}: it is one of that backend's loops,
     * which complete it, or any io_uring loop waiting for an io_uring operation (two loops each waiting for an
     * operation of the other's would stop both for good).
     */
    public static boolean mayNotWait(IoBackend backend) {
        return backend.mustNotBlock(Thread.currentThread())
                || backend instanceof io.github.uring4j.engine.uring.UringBackend
                        && io.github.uring4j.engine.uring.UringBackend.onAnyLoop();
    }

    /**
     * Spins until {@code f} is done or {@code nanos} have passed, on a platform thread whose recent spins did not
     * fail too often, unless {@link #MAX_SPINNERS} threads spin already; returns at once on a virtual thread, on an interrupted one (whose wait then throws at once), with
     * {@code nanos} 0, or when {@code f} is done. An interrupt during the spin ends it as a failed one. The caller then
     * waits as it would have (parks when {@code f} is still not done).
     */
    public static void spin(Future<?> f, long nanos) {
        spin(f, nanos, MAX_SPINNERS);
    }

    /** {@link #spin(Future, long)} with at most {@code maxSpinners} threads spinning at once (tests). */
    static void spin(Future<?> f, long nanos, int maxSpinners) {
        Thread t = Thread.currentThread();
        if (nanos <= 0 || f.isDone() || t.isVirtual() || t.isInterrupted()) {
            return;
        }
        int[] s = STATE.get();
        if (s[0] > 0) {
            s[0]--;
            return;
        }
        if (SPINNING.incrementAndGet() > maxSpinners) {
            SPINNING.decrementAndGet();
            return;
        }
        try {
            long end = System.nanoTime() + nanos;
            do {
                Thread.onSpinWait();
                if (f.isDone()) {
                    s[1] >>= 1;
                    return;
                }
            } while (System.nanoTime() - end < 0 && !t.isInterrupted());
        } finally {
            SPINNING.decrementAndGet();
        }
        s[1] = Math.min(MAX_PAUSE, Math.max(1, 2 * s[1]));
        s[0] = s[1];
    }
}
