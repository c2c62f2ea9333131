package io.github.uring4j.ring;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.github.uring4j.linux.KernelTimespec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/** A {@code struct __kernel_timespec} for {@link Sqe#timeout} and {@link Sqe#linkTimeout}. */
public final class Timespec {
    private Timespec() {
    }

    /** A timespec of {@code d} (not negative; whole seconds beyond what nanoseconds in a {@code long} hold are taken). */
    public static MemorySegment allocate(Arena arena, Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("negative timeout: " + d);
        }
        MemorySegment ts = arena.allocate(KernelTimespec.LAYOUT);
        // seconds and nanoseconds apart: toNanos() overflows past 292 years (a bare ArithmeticException)
        ts.set(JAVA_LONG, KernelTimespec.TV_SEC, d.getSeconds());
        ts.set(JAVA_LONG, KernelTimespec.TV_NSEC, d.getNano());
        return ts;
    }

    /** Overwrites {@code ts} with {@code nanos}. */
    public static void set(MemorySegment ts, long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative timeout: " + nanos);
        }
        ts.set(JAVA_LONG, KernelTimespec.TV_SEC, nanos / 1_000_000_000L);
        ts.set(JAVA_LONG, KernelTimespec.TV_NSEC, nanos % 1_000_000_000L);
    }
}
