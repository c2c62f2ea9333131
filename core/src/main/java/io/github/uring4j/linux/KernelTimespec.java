package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct __kernel_timespec}: 64-bit seconds and nanoseconds, used by TIMEOUT, LINK_TIMEOUT and waits. */
public final class KernelTimespec {
    private KernelTimespec() {
    }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec"))
            .withName("__kernel_timespec");

    public static final long TV_SEC = Layouts.offsetOf(LAYOUT, "tv_sec");
    public static final long TV_NSEC = Layouts.offsetOf(LAYOUT, "tv_nsec");
}
