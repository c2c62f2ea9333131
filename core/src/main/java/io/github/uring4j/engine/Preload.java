package io.github.uring4j.engine;

/**
 * Initialises, while the heap has room, the library's classes that a running program's operations would otherwise
 * initialise first: when an executor is built, and on the provider's early thread. A class whose initialiser first
 * runs on a full heap ({@code OutOfMemoryError}) fails, and stays failed for the life of the JVM: every later use
 * throws {@code NoClassDefFoundError}, the JDK's own classes included. Found by a hostile probe: with the heap filled
 * before a program's first {@code force}, every later {@code force} of the drop-in channel failed for good (the class
 * of the wait was first initialised then), and so on for the classes of other calls.
 *
 * <p>The lists are the classes a program's calls first initialised after the provider's start-up (the JVM's class
 * initialisation log, {@code -Xlog:class+init}, over every kind of call); a test runs those calls after the
 * preload and fails for each library class they still initialise.
 */
public final class Preload {
    /** Classes of the engine and the layers below it that operations first initialise. */
    private static final String[] ENGINE = {
        "io.github.uring4j.engine.Memory",
        "io.github.uring4j.engine.PathBytes",
        "io.github.uring4j.engine.Memory$Base",
        "io.github.uring4j.engine.KernelCopy",
        "io.github.uring4j.engine.OpenSpec",
        "io.github.uring4j.engine.FileHandle",
        "io.github.uring4j.engine.Request",
        "io.github.uring4j.engine.Rules",
        "io.github.uring4j.engine.Waits",
        "io.github.uring4j.engine.uring.UringFile",
        "io.github.uring4j.engine.uring.UringFile$PerLoop",
        "io.github.uring4j.engine.uring.DeviceBudget",
        "io.github.uring4j.linux.IoUringCqe",
        "io.github.uring4j.linux.Statx",
        "io.github.uring4j.linux.LeanCalls$FSYNC",
        "io.github.uring4j.linux.LeanCalls$LSEEK",
        "io.github.uring4j.linux.LeanCalls$FDATASYNC",
        "io.github.uring4j.linux.LeanCalls$COPY_FILE_RANGE",
        "io.github.uring4j.linux.LeanCalls$FSTATFS",
        "io.github.uring4j.linux.LeanCalls$STATVFS_BSIZE",
        "io.github.uring4j.linux.LibcSyscalls$WRITE",
    };

    private Preload() {
    }

    /**
     * The engine's classes ({@link #ENGINE}), and the JDK's classes behind the library's accesses to native memory,
     * which the JDK initialises at their first use (a probe's program met {@code NoClassDefFoundError: Could not
     * initialize class java.lang.invoke.VarHandleSegmentAsLongs} in every later call after a full heap).
     */
    public static void engine() {
        classes(ENGINE);
        try {
            java.lang.foreign.MemorySegment s = java.lang.foreign.MemorySegment.ofArray(new long[2]);
            s.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, s.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8));
            s.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, s.get(java.lang.foreign.ValueLayout.JAVA_INT, 8));
            s.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 0, s.get(java.lang.foreign.ValueLayout.JAVA_SHORT, 8));
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 8));
        } catch (RuntimeException | LinkageError | VirtualMachineError e) {
            // initialised at their first use instead
        }
    }

    /** The names of {@link #engine()}'s classes, for the test that checks them. */
    public static String[] engineNames() {
        return ENGINE.clone();
    }

    /**
     * Initialises the classes named: those that cannot be (a call that cannot be linked here, say) are left for
     * their first use to report. Stops at a full heap: what is left is initialised at its first use, as without this.
     */
    public static void classes(String... names) {
        ClassLoader loader = Preload.class.getClassLoader();
        for (String name : names) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
                // said by the first use, to whoever makes it
            } catch (VirtualMachineError e) {
                return;
            }
        }
    }
}
