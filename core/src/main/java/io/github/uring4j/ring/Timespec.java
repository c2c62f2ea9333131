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

    public static MemorySegment allocate(Arena arena, Duration d) {
        MemorySegment ts = arena.allocate(KernelTimespec.LAYOUT);
        set(ts, d.toNanos());
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
