package io.github.uring4j.linux;

/**
 * Whether uring4j may call native code. On JDK 22+ that needs native access for the module that calls it:
 * {@code --enable-native-access=ALL-UNNAMED} on the class path, {@code --enable-native-access=io.github.uring4j.core}
 * on the module path. Without the flag the JDK warns (the default) or, with {@code --illegal-native-access=deny},
 * refuses; this class turns the refusal into one sentence with the fix.
 */
public final class NativeAccess {
    private static final Object LOCK = new Object();
    private static volatile boolean checked;
    private static volatile String problem;

    private NativeAccess() {
    }

    /** Null when native calls work here; otherwise why not, and the flag that fixes it. */
    public static String problem() {
        if (!checked) {
            synchronized (LOCK) {
                if (!checked) {
                    try {
                        LibcSyscalls.linkOne(); // handles are linked on first use: link one now
                        problem = null;
                    } catch (VirtualMachineError e) {
                        throw e; // out of memory or stack now, not a refusal: asked again next time
                    } catch (Throwable t) {
                        problem = explain(t);
                    }
                    checked = true;
                }
            }
        }
        return problem;
    }

    /** Why a native call failed, in one sentence with the flag that fixes it. */
    public static String explain(Throwable t) {
        Throwable cause = t;
        while (cause.getCause() != null && !(cause instanceof IllegalCallerException)) {
            cause = cause.getCause();
        }
        if (cause instanceof VirtualMachineError) {
            // the first link of a call ran out of heap or stack (and its holder class cannot be initialised again):
            // not a refusal of native access, whatever flag is given
            return "a native call could not be linked: the JVM ran out of " + (cause instanceof StackOverflowError
                    ? "stack" : "memory") + " while it linked it (" + cause + ")";
        }
        Module m = NativeAccess.class.getModule();
        // A module of a layer other than the boot layer (a plugin host's) is not reached by the command line's
        // flag (the JVM warns "Unknown module"): the layer's creator grants it
        String fix = !m.isNamed() ? "start Java with --enable-native-access=ALL-UNNAMED"
                : m.getLayer() == null || m.getLayer() == ModuleLayer.boot()
                        ? "start Java with --enable-native-access=" + m.getName()
                        : "module " + m.getName() + " is in a module layer of its own, which the command line's"
                                + " --enable-native-access does not reach: the code that creates the layer must call"
                                + " ModuleLayer.Controller.enableNativeAccess for it";
        return "native access is not enabled for uring4j (" + cause.getClass().getSimpleName()
                + (cause.getMessage() != null ? ": " + cause.getMessage() : "") + "): " + fix;
    }
}
