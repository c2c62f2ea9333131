package io.github.uring4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct open_how} for {@code openat2(2)} and {@code IORING_OP_OPENAT2}. */
public final class OpenHow {
    private OpenHow() {
    }

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("flags"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("resolve"))
            .withName("open_how");

    public static final long FLAGS = Layouts.offsetOf(LAYOUT, "flags");
    public static final long MODE = Layouts.offsetOf(LAYOUT, "mode");
    public static final long RESOLVE = Layouts.offsetOf(LAYOUT, "resolve");

    public static final long RESOLVE_NO_XDEV = 0x01;
    public static final long RESOLVE_NO_MAGICLINKS = 0x02;
    public static final long RESOLVE_NO_SYMLINKS = 0x04;
    public static final long RESOLVE_BENEATH = 0x08;
    public static final long RESOLVE_IN_ROOT = 0x10;
    public static final long RESOLVE_CACHED = 0x20;
}
