package io.github.uring4j.nio;

import io.github.uring4j.engine.Log;
import io.github.uring4j.file.Backend;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.linux.LeanCalls;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The JDK's file channels on io_uring without installing a provider: each method takes what the JDK's method of
 * the same name takes and returns a channel with the JDK's semantics. They run on the
 * {@linkplain IoExecutor#defaultExecutor() default executor}; where io_uring cannot be used there (blocked,
 * disabled, no native access), they return the JDK's own channels after one warning that names the cause. A path of
 * another file system (a zip file's, say) goes to its own provider, as the JDK's {@code open} methods send it.
 */
public final class UringFiles {
    private static volatile IoExecutor executor;
    /** {@link #executor} runs on io_uring (checked once per executor, not per open). */
    private static volatile boolean onUring;
    private static volatile boolean warned;
    /** The executor the drop-ins' JMX view was registered with (guarded by the class). */
    private static IoExecutor registeredFor;

    private UringFiles() {
    }

    /** As {@link FileChannel#open(Path, OpenOption...)}. */
    public static FileChannel newFileChannel(Path path, OpenOption... options) throws IOException {
        return newFileChannel(path, optionSet(options));
    }

    /** The options as a set, as {@code FileChannel.open} takes them (a repeated option is one option). */
    private static Set<OpenOption> optionSet(OpenOption[] options) {
        Objects.requireNonNull(options, "options");
        boolean standard = true;
        for (OpenOption o : options) {
            // a null option is the provider's to refuse, as in the JDK's open: the default one says
            // NullPointerException, another (a zip file system's) may refuse the call first
            standard &= o instanceof java.nio.file.StandardOpenOption;
        }
        if (standard) {
            java.util.EnumSet<java.nio.file.StandardOpenOption> set =
                    java.util.EnumSet.noneOf(java.nio.file.StandardOpenOption.class);
            for (OpenOption o : options) {
                set.add((java.nio.file.StandardOpenOption) o);
            }
            @SuppressWarnings("unchecked") // a set of StandardOpenOption is read as a set of OpenOption only
            Set<OpenOption> read = (Set<OpenOption>) (Set<?>) set;
            return read;
        }
        Set<OpenOption> set = new HashSet<>(options.length * 2);
        for (OpenOption o : options) {
            set.add(o);
        }
        return set;
    }

    /** As {@link FileChannel#open(Path, Set, FileAttribute...)}. */
    public static FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        Objects.requireNonNull(path, "path");
        if (!Builtin.isDefault(path)) {
            // as FileChannel.open: a path of another file system (a zip file's, say) is its provider's to open, with
            // whatever options it is given
            return path.getFileSystem().provider().newFileChannel(path, options, attrs);
        }
        Objects.requireNonNull(options, "options");
        if (jdkChannels()) {
            Counters.JDK_CHANNELS.increment();
            return Builtin.provider().newFileChannel(Builtin.path(path), options, attrs);
        }
        return UringFileChannel.open(Builtin.path(path), options, attrs, UringFiles::ringExecutor);
    }

    /**
     * The channel behind the provider's output stream of {@code builtinPath} (a path of the built-in provider; the
     * caller checked {@link #jdkChannels()}): as {@link #newFileChannel}, but opened with {@code O_NONBLOCK} when it
     * is for writing only, so that its writes need not ask what the file is.
     */
    static UringFileChannel newOutputStreamChannel(Path builtinPath, Set<? extends OpenOption> options)
            throws IOException {
        return UringFileChannel.open(builtinPath, options, new FileAttribute<?>[0], UringFiles::ringExecutor, true);
    }

    /** As {@link AsynchronousFileChannel#open(Path, OpenOption...)}. */
    public static AsynchronousFileChannel newAsynchronousFileChannel(Path path, OpenOption... options)
            throws IOException {
        return newAsynchronousFileChannel(path, optionSet(options), null);
    }

    /** As {@link AsynchronousFileChannel#open(Path, Set, ExecutorService, FileAttribute...)}. */
    public static AsynchronousFileChannel newAsynchronousFileChannel(Path path, Set<? extends OpenOption> options,
            ExecutorService executor, FileAttribute<?>... attrs) throws IOException {
        Objects.requireNonNull(path, "path");
        if (!Builtin.isDefault(path)) {
            // as AsynchronousFileChannel.open: a path of another file system is its provider's to open (a zip file
            // system refuses any options, null ones too, with UnsupportedOperationException)
            return path.getFileSystem().provider().newAsynchronousFileChannel(path, options, executor, attrs);
        }
        Objects.requireNonNull(options, "options");
        if (jdkChannels()) {
            Counters.JDK_CHANNELS.increment();
            return Builtin.provider().newAsynchronousFileChannel(Builtin.path(path), options, executor, attrs);
        }
        return UringAsynchronousFileChannel.open(Builtin.path(path), options, executor, attrs,
                UringFiles::ringExecutor);
    }

    /** What the drop-in channels have done in this JVM: a way to see that a program runs on them. */
    public static DropInStatistics statistics() {
        return Counters.snapshot();
    }

    /** Why native calls cannot be made here (then the channels are the JDK's), or null; looked at once. */
    private static volatile String nativeProblem;
    private static volatile boolean looked;
    /** Whether the links were started early ({@link #lookEarly}), and the default executor started. */
    private static final AtomicBoolean EARLY = new AtomicBoolean();
    private static final AtomicBoolean RINGS = new AtomicBoolean();
    /** The thread of {@link #lookEarly} has not finished (a test sets it to see what the provider does then). */
    static final AtomicBoolean LINKING = new AtomicBoolean();
    /**
     * The system property that says what whole-file calls do while the provider links its calls: {@code jdk} (the
     * default) hands them to the JDK's own code, {@code wait} makes them wait for the links, as any other open does.
     */
    public static final String WHILE_LINKING = "uring4j.whileLinking";

    /**
     * Whether to serve the JDK's own channels: native access is denied, or the default executor found that
     * io_uring cannot be used. The first call starts that executor on a thread of its own: a channel's calls on its
     * caller's thread need no ring, so the first file opened does not wait for the rings to be set up.
     */
    static boolean jdkChannels() {
        if (!looked) {
            lookOnce();
        }
        if (nativeProblem != null) {
            warnOnce(nativeProblem);
            return true;
        }
        if (!RINGS.get() && RINGS.compareAndSet(false, true)) {
            try {
                Thread t = io.github.uring4j.engine.LibraryThreads.shared("uring4j-start",
                        io.github.uring4j.engine.BackgroundWork.counted(UringFiles::startRings));
                t.start();
            } catch (OutOfMemoryError | RuntimeException noThread) {
                // no thread to be had now (the thread limit): the rings start when a channel first needs them, and
                // a later open tries this again; the JDK's channel needs no thread, and neither does this open
                RINGS.set(false);
            }
        }
        IoExecutor e = executor;
        if (e != null && !onUring) {
            warnOnce(e.fallbackReason().orElse("io_uring cannot be used"));
            return true;
        }
        return false;
    }

    /**
     * Links the calls a program's first files make and starts the default executor, once, on a thread of its own:
     * for a provider the JDK installs, which it makes at the program's first use of a path, before the first open.
     * The FFM linker spends tens of milliseconds on its first links in a fresh JVM (a tenth of a second before the
     * first read, measured), and setting up the rings beside a first read slowed it to 13-22 ms from 1-2; done here,
     * both run beside the program. Until they are done, the provider hands whole-file calls to the JDK's own code
     * ({@link #whileLinking}), and any other first open waits only for what is left of the links.
     */
    static void lookEarly() {
        if (looked || !EARLY.compareAndSet(false, true)) {
            return;
        }
        Thread t = io.github.uring4j.engine.LibraryThreads.shared("uring4j-link",
                io.github.uring4j.engine.BackgroundWork.counted(new Linking()));
        // Without native access granted, the first open is to find that out and say so (the calls would fail or
        // warn): no whole-file call is handed to the JDK meanwhile.
        LINKING.set(UringFiles.class.getModule().isNativeAccessEnabled());
        try {
            t.start();
        } catch (OutOfMemoryError | RuntimeException e) {
            // out of threads: the first open links on its own thread, and a later first use tries this again
            LINKING.set(false);
            EARLY.set(false);
        }
    }

    /** The work of the thread of {@link #lookEarly}; a class, not a lambda: see {@link #link}. */
    private static final class Linking implements Runnable {
        @Override
        public void run() {
            try {
                link();
            } catch (LinkageError | VirtualMachineError e) {
                // as startRings: the first open links what is left, and says what went wrong
            } finally {
                LINKING.set(false);
            }
        }
    }

    /**
     * The classes of the drop-ins that a program's calls first initialise, initialised by the early thread while the
     * heap has room (see {@link io.github.uring4j.engine.Preload}).
     */
    static final String[] CHANNEL_CLASSES = {
        "io.github.uring4j.nio.Opening$1",
        "io.github.uring4j.nio.FileChannelOutputStream",
        "io.github.uring4j.nio.FileChannelInputStream",
        "io.github.uring4j.nio.ChannelTransfers",
        "io.github.uring4j.nio.CarrierStalls",
        "io.github.uring4j.nio.UringFileChannel$Engine",
        "io.github.uring4j.nio.UringFileChannel$RingUse",
        "io.github.uring4j.nio.UringFileChannel$Lock",
        "io.github.uring4j.nio.UringFileChannel$Waiter",
        "io.github.uring4j.nio.UringAsynchronousFileChannel",
        "io.github.uring4j.nio.UringAsynchronousFileChannel$Op",
        "io.github.uring4j.nio.UringAsynchronousFileChannel$Lock",
        "io.github.uring4j.nio.HandlerDispatch",
        "io.github.uring4j.nio.Call",
        "io.github.uring4j.nio.Counters",
        "io.github.uring4j.nio.PositionLock",
    };

    /**
     * Links the calls and starts the rings. No lambda on the way here from the provider's constructor, which runs at
     * the program's first path: the first lambda of a fresh JVM spins the method handles' classes (5 ms there), which
     * this thread pays instead, beside the program.
     */
    private static void link() {
        lookOnce();
        if (nativeProblem == null) {
            LeanCalls.prelink();
            try {
                MethodHandles.lookup().ensureInitialized(UringFileChannel.class);
            } catch (IllegalAccessException | RuntimeException | LinkageError e) {
                // the first open initializes it, and says what went wrong
            }
            io.github.uring4j.engine.Preload.engine();
            io.github.uring4j.engine.Preload.classes(CHANNEL_CLASSES);
            if (RINGS.compareAndSet(false, true)) {
                startRings();
            }
        }
    }

    /**
     * Whether the thread of {@link #lookEarly} is still linking and starting the rings, and whole-file calls may be
     * the JDK's meanwhile (the system property {@value #WHILE_LINKING} is not {@code wait}).
     */
    static boolean whileLinking() {
        // not for the library's own reads on its threads (the device's queue depth, the CPU's caches), which wait
        if (!LINKING.get() || io.github.uring4j.engine.BackgroundWork.onThisThread()) {
            return false;
        }
        String v = System.getProperty(WHILE_LINKING);
        if (v == null || v.equals("jdk")) {
            return true;
        }
        if (v.equals("wait")) {
            return false;
        }
        if (!warnedWhileLinking) {
            warnedWhileLinking = true;
            Log.warn("-D" + WHILE_LINKING + "=" + v + " is neither jdk nor wait: whole-file calls are the JDK's while "
                    + "the provider links its native calls");
        }
        return true;
    }

    private static volatile boolean warnedWhileLinking;

    private static void startRings() {
        try {
            ringExecutor();
        } catch (RuntimeException | LinkageError | VirtualMachineError e) {
            // reported to whoever needs the ring, which starts it again (a class loader closed under this thread, an
            // undeployed web application's: NoClassDefFoundError; a full heap): nothing to say on this thread
        }
    }

    private static synchronized void lookOnce() {
        if (looked) {
            return;
        }
        try {
            nativeProblem = LeanCalls.problem();
        } catch (VirtualMachineError e) {
            throw e; // the heap or the stack was full: asked again next time (it made every channel the JDK's, for good)
        } catch (Throwable t) {
            nativeProblem = io.github.uring4j.linux.NativeAccess.explain(t);
        }
        looked = true;
    }

    private static void warnOnce(String why) {
        if (!warned) {
            warned = true;
            Log.warn("the drop-in channels are the JDK's own: " + why);
        }
    }

    /** The executor the channels' ring operations run on, started on first use (and again if it was closed). */
    static IoExecutor ringExecutor() {
        IoExecutor e = executor;
        if (e != null && e.isOpen() && !io.github.uring4j.engine.ExecutorDoor.get().backend(e).broken()) {
            return e;
        }
        e = IoExecutor.defaultExecutor();
        onUring = e.backend() == Backend.IO_URING;
        executor = e;
        register(e);
        return e;
    }

    /** The drop-ins' JMX view, once per default executor: its close takes the view with it. */
    private static synchronized void register(IoExecutor e) {
        if (registeredFor == e) {
            return;
        }
        registeredFor = e;
        io.github.uring4j.engine.Jmx.registerProcessWide("io.github.uring4j:type=DropIns", new Beans(),
                DropInsMXBean.class);
    }

    private static final class Beans implements DropInsMXBean {
        @Override
        public boolean isIoUring() {
            IoExecutor e = executor;
            return e != null && e.backend() == Backend.IO_URING;
        }

        @Override
        public String getFallbackReason() {
            IoExecutor e = executor;
            return e == null ? "" : e.fallbackReason().orElse("");
        }

        @Override
        public long getUringChannels() {
            return Counters.URING_CHANNELS.sum();
        }

        @Override
        public long getJdkChannels() {
            return Counters.JDK_CHANNELS.sum();
        }

        @Override
        public long getCallerCalls() {
            return Counters.CALLER_CALLS.sum();
        }

        @Override
        public long getRingOperations() {
            return Counters.RING_OPERATIONS.sum();
        }

        @Override
        public long getMappedReads() {
            return Counters.MAPPED_READS.sum();
        }

        @Override
        public long getBytesRead() {
            return Counters.BYTES_READ.sum();
        }

        @Override
        public long getBytesWritten() {
            return Counters.BYTES_WRITTEN.sum();
        }

        @Override
        public long getKernelCopies() {
            return Counters.KERNEL_COPIES.sum();
        }

        @Override
        public long getOffCarrierCalls() {
            return Counters.OFF_CARRIER_CALLS.sum();
        }

        @Override
        public long getJdkWhileLinking() {
            return Counters.JDK_WHILE_LINKING.sum();
        }
    }
}
