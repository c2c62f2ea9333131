package io.github.uring4j.engine.uring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.Sqe;
import io.github.uring4j.ring.UringException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How other threads wake a loop that sleeps in {@code io_uring_enter}: a read of an eventfd is always armed on the
 * ring, and a producer that sees the loop asleep writes the eventfd. The state machine makes sure a producer never
 * writes a descriptor the loop has closed, and the loop never sleeps past work queued before it announced sleep.
 */
final class Wakeup {
    static final long USER_DATA = -1L;

    private static final int AWAKE = 0;
    private static final int SLEEPING = 1;
    /** A producer is writing the eventfd; the loop must not close it meanwhile. */
    private static final int WAKING = 2;
    private static final int DEAD = 3;

    /** The 8 bytes a producer writes: the value 1. Read-only for the kernel. */
    private static final MemorySegment ONE;

    static {
        MemorySegment one = Arena.global().allocate(8, 8);
        one.set(JAVA_LONG, 0, 1L);
        ONE = one;
    }

    private final Syscalls sys;
    private final AtomicInteger state = new AtomicInteger(AWAKE);
    private final int fd;
    private final FileTarget target;
    private final MemorySegment buf;
    /** Loop thread: the read is in the kernel. */
    private boolean armed;
    /** Loop thread: the ring cannot read the eventfd (IOPOLL rings take only pollable file I/O): nap instead. */
    private boolean broken;

    Wakeup(Syscalls sys, Arena arena) throws UringException {
        this.sys = sys;
        int fd = sys.eventfd(0, Uapi.EFD_CLOEXEC);
        if (fd < 0) {
            throw new UringException("eventfd", -fd);
        }
        this.fd = fd;
        this.target = FileTarget.fd(fd);
        this.buf = arena.allocate(8, 8);
    }

    /** The loop's thread while it naps in Java (the JVM exits, see {@link EventLoop#EXIT_NAP_NANOS}), else null. */
    private volatile Thread napping;

    /** Loop thread: it naps from now on ({@code t}), or no longer (null). */
    void napping(Thread t) {
        napping = t;
    }

    /** Any thread: wakes the loop if it sleeps. */
    void wake() {
        if (state.get() == SLEEPING && state.compareAndSet(SLEEPING, WAKING)) {
            try {
                sys.write(fd, ONE, 8);
            } catch (Throwable t) {
                // The write did not happen (a StackOverflowError in the downcall of a caller deep in its stack, an
                // OutOfMemoryError): the loop sleeps on, and the next producer must find it asleep and wake it. Left
                // WAKING, no producer ever wrote again, the loop slept for good and close() waited for it for ever.
                state.set(SLEEPING);
                throw t;
            }
            state.set(AWAKE);
            Thread t = napping;
            if (t != null) {
                java.util.concurrent.locks.LockSupport.unpark(t); // the nap ends now, not when it runs out
            }
        }
    }

    /** Loop thread: prepares the eventfd read unless it is in the kernel already; true when an entry was added. */
    boolean arm(IoUring ring) {
        if (armed || broken || ring.sqSpaceLeft() < 1) {
            return false;
        }
        Sqe s = ring.nextSqe();
        s.read(target, buf, 0).userData(USER_DATA);
        armed = true;
        return true;
    }

    /** Loop thread: the read completed (a wake-up, or a cancel at close). */
    /** True while the eventfd read is in the ring (one completion the loop expects). */
    boolean armed() {
        return armed;
    }

    void completed(int res) {
        armed = false;
        if (res < 0 && res != -Errno.ECANCELED && res != -Errno.EINTR) {
            broken = true;
        }
    }

    boolean isBroken() {
        return broken;
    }

    /** Loop thread: announces sleep; false while a producer is still finishing its write (try again). */
    boolean trySleep() {
        return state.compareAndSet(AWAKE, SLEEPING);
    }

    /** Loop thread: awake again. */
    void awake() {
        state.compareAndSet(SLEEPING, AWAKE);
    }

    /** Loop thread, at the end: no producer writes the eventfd from now on; then it is closed. */
    void close() {
        while (true) {
            int st = state.get();
            if (st == DEAD || ((st == AWAKE || st == SLEEPING) && state.compareAndSet(st, DEAD))) {
                break;
            }
            Thread.onSpinWait();
        }
        sys.close(fd);
    }

    String describe() {
        return "wake=" + state.get() + (armed ? " armed" : "") + (broken ? " broken" : "");
    }
}
