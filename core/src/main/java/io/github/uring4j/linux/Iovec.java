package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct iovec}: one buffer of a vectored transfer (64-bit Linux: pointer and {@code size_t}). */
public final class Iovec {
    private Iovec() {
    }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("iov_base"), JAVA_LONG.withName("iov_len"))
            .withName("iovec");

    public static final long BASE = Layouts.offsetOf(LAYOUT, "iov_base");
    public static final long LEN = Layouts.offsetOf(LAYOUT, "iov_len");
}
