package io.github.uring4j.linux;

/**
 * Doors between uring4j's own packages that must not show in the exported API (the JDK's {@code SharedSecrets}
 * idea): a package registers an implementation when its class initialises, and another uring4j package calls it.
 * Nothing outside the module can reach this package.
 */
public final class InternalAccess {
    private InternalAccess() {
    }

    /** Lets the engine give a ring's options a {@link Syscalls} (tests inject failures through it). */
    public interface RingOptions {
        /** Sets the system-call layer of {@code options}, an {@code IoUring.Options}. */
        void syscalls(Object options, Syscalls syscalls);
    }

    private static volatile RingOptions ringOptions;

    public static void ringOptions(RingOptions access) {
        ringOptions = access;
    }

    /** Registered by {@code IoUring}'s class initialiser: call {@code IoUring.options()} first. */
    public static RingOptions ringOptions() {
        RingOptions a = ringOptions;
        if (a == null) {
            throw new IllegalStateException("IoUring not initialised");
        }
        return a;
    }
}
