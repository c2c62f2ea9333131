package io.github.uring4j.linux;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Links the downcall handles that holder classes make in their initialisers. A {@code StackOverflowError} there (the
 * first call of a kind, made by a caller deep in its stack: the linker needs far more stack than the call) or an
 * {@code OutOfMemoryError} (the heap full for a moment) failed the initialiser, and a class whose initialiser failed
 * can never be used again: every later call of that kind threw {@code NoClassDefFoundError} for the life of the JVM.
 * After either, the link is made again on a thread of its own, which has a whole stack.
 */
final class Downcalls {
    private Downcalls() {
    }

    /** The handle of libc's {@code name} with {@code options}; {@code UnsatisfiedLinkError} if libc lacks it. */
    static MethodHandle link(Linker linker, String name, FunctionDescriptor fd, Linker.Option... options) {
        Link link = new Link(linker, name, fd, options);
        try {
            return link.make();
        } catch (StackOverflowError | OutOfMemoryError e) {
            if (e instanceof OutOfMemoryError) {
                MethodHandle h = linkOnceMemoryIsBack(link);
                if (h != null) {
                    return h;
                }
            }
            for (int tries = 0; tries < 3; tries++) {
                try {
                    if (tries > 0 || e instanceof OutOfMemoryError) {
                        Thread.sleep(50); // memory may be given back meanwhile
                    }
                    Thread t = Thread.ofPlatform().name("uring4j-link-retry").daemon(true)
                            .inheritInheritableThreadLocals(false).unstarted(link);
                    t.start();
                    boolean interrupted = false;
                    while (true) {
                        try {
                            t.join();
                            break;
                        } catch (InterruptedException ie) {
                            interrupted = true;
                        }
                    }
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                } catch (Throwable again) {
                    // no thread, no memory: try again, then give up with the first error
                }
                if (link.handle != null) {
                    return link.handle;
                }
                if (link.failure != null && !(link.failure instanceof VirtualMachineError)) {
                    break; // it cannot be linked at all: the first error stands (the caller's own says so)
                }
            }
            throw e;
        }
    }

    /**
     * The link made again on this thread every 10 ms while the heap stays full, for up to ten seconds (three tries
     * 50 ms apart were too few: a heap full for two seconds failed the holder class of {@code pwrite} for good, and
     * every later write of the threads backend with it); null after a {@code StackOverflowError}, or once the time is
     * up.
     */
    private static MethodHandle linkOnceMemoryIsBack(Link link) {
        for (int tries = 0; tries < 1000; tries++) {
            try {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
                return link.make();
            } catch (OutOfMemoryError stillFull) {
                // wait on
            } catch (StackOverflowError tooDeep) {
                return null; // a thread of its own makes it
            }
        }
        return null;
    }

    /** One link, made on the caller's thread or on a thread of its own. */
    private static final class Link implements Runnable {
        private final Linker linker;
        private final String name;
        private final FunctionDescriptor fd;
        private final Linker.Option[] options;
        volatile MethodHandle handle;
        volatile Throwable failure;

        Link(Linker linker, String name, FunctionDescriptor fd, Linker.Option[] options) {
            this.linker = linker;
            this.name = name;
            this.fd = fd;
            this.options = options;
        }

        MethodHandle make() {
            Optional<MemorySegment> symbol = linker.defaultLookup().find(name);
            if (symbol.isEmpty()) {
                throw new UnsatisfiedLinkError("libc has no " + name);
            }
            return linker.downcallHandle(symbol.get(), fd, options);
        }

        @Override
        public void run() {
            try {
                handle = make();
            } catch (Throwable t) {
                failure = t;
            }
        }
    }
}
