package io.github.uring4j.nio;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/** Helpers shared by the conformance tests of the drop-in channels. */
final class Conform {
    private Conform() {
    }

    /** The JDK's O_DIRECT option, {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}. */
    static final java.nio.file.OpenOption DIRECT = io.github.uring4j.file.JdkOptions.DIRECT;

    /** How long any single wait in these tests may take before it fails with a message. */
    static final long WAIT_SECONDS = 60;

    /** How a child JVM ended: whether it did within the time given, its exit code (-1 if killed), what it printed. */
    record Child(boolean ended, int exit, String output) {
    }

    /**
     * Runs {@code main} in a child JVM (this JVM's {@code java} and class path, native access, then {@code jvmArgs})
     * with {@code args}; kills it after {@link #WAIT_SECONDS}.
     */
    static Child runJava(List<String> jvmArgs, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException e) {
                // the child was killed: what it printed so far is reported
            }
        });
        boolean ended = p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(10_000);
        return new Child(ended, ended ? p.exitValue() : -1, out.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Something a channel does, which may throw anything. */
    @FunctionalInterface
    interface Action {
        Object run() throws Throwable;
    }

    /** Something a channel does that returns nothing. */
    @FunctionalInterface
    interface Step {
        void run() throws Throwable;
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed * 17 + (i >>> 8) + 1);
        }
        return b;
    }

    /**
     * What an action did, in a form two implementations can be compared by: {@code = value} or {@code ! class}.
     * Messages are left out (they name paths and differ in wording); values are described by what they are, not by
     * which class implements them.
     */
    static String outcome(Action a) {
        try {
            return "= " + describe(a.run());
        } catch (Throwable t) {
            return "! " + t.getClass().getName();
        }
    }

    static String outcomeOfStep(Step s) {
        return outcome(() -> {
            s.run();
            return "done";
        });
    }

    static String describe(Object o) {
        if (o instanceof FileLock l) {
            return "lock[" + l.position() + ":" + l.size() + (l.isShared() ? " shared" : " exclusive")
                    + (l.isValid() ? " valid]" : " invalid]");
        }
        if (o instanceof Buffer b) {
            return (b.isDirect() ? "direct " : "heap ") + (b.isReadOnly() ? "read-only " : "") + "buffer[pos="
                    + b.position() + " lim=" + b.limit() + " cap=" + b.capacity() + "]";
        }
        if (o instanceof MemorySegment s) {
            return (s.isReadOnly() ? "read-only " : "") + "segment[" + s.byteSize() + "]";
        }
        if (o instanceof Future<?> f) {
            return "future(" + outcome(() -> {
                try {
                    return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause();
                }
            }) + ")";
        }
        if (o instanceof java.nio.channels.Channel c) {
            return "channel[open=" + c.isOpen() + "]";
        }
        return String.valueOf(o);
    }

    /** The cause of a failed future, or fails when the future succeeds or takes too long. */
    static Throwable failure(Future<?> f) throws InterruptedException {
        try {
            Object v = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("expected the operation to fail, it returned " + describe(v));
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the operation did not complete in " + WAIT_SECONDS + " s", e);
        }
    }

    /** The result of a future that must succeed within the bound. */
    static <T> T await(Future<T> f) throws Exception {
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("the operation did not complete in " + WAIT_SECONDS + " s", e);
        }
    }

    /** Waits, polling, until a condition holds: for a state another thread reaches that nothing signals. */
    static void until(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen in " + WAIT_SECONDS + " s");
            }
            Thread.sleep(5);
        }
    }

    /** Joins a thread that must end within the bound. */
    static void join(Thread t, String what) throws InterruptedException {
        if (!t.join(java.time.Duration.ofSeconds(WAIT_SECONDS))) {
            throw new AssertionError(what + " did not end in " + WAIT_SECONDS + " s; it is at "
                    + List.of(t.getStackTrace()));
        }
    }

    /**
     * Whether a channel is one of the JDK's own (its class is in java.base): while {@link UringFiles} still hands those
     * out, the tests of the uring4j channels expect the JDK's behaviour where the JDK's is a documented limitation that
     * uring4j's channels are meant to go beyond.
     */
    static boolean isJdkChannel(Object channel) {
        return channel.getClass().getModule() == Object.class.getModule();
    }

    static Path fifo(Path dir, String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name);
        Process pr = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        if (!pr.waitFor(WAIT_SECONDS, TimeUnit.SECONDS) || pr.exitValue() != 0) {
            throw new IOException("mkfifo " + p + " failed");
        }
        return p;
    }

    /**
     * The descriptors still open under {@code dir} once garbage collection has had up to a minute to close what is
     * unreachable (none, if it did).
     */
    static List<String> fdsUnderAfterCollection(Path dir) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> open = fdsUnder(dir);
        while (!open.isEmpty() && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(20);
            open = fdsUnder(dir);
        }
        return open;
    }

    /**
     * The descriptors still open under {@code dir} after up to {@code seconds} for closes under way to finish, without
     * collecting garbage: a channel that was never closed stays counted.
     */
    static List<String> fdsUnderWithin(Path dir, long seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<String> open;
        while (!(open = fdsUnder(dir)).isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        return open;
    }

    /** The descriptors of this process that refer to a file under {@code dir}, as "fd -> target". */
    static List<String> fdsUnder(Path dir) throws IOException {
        String prefix = dir.toRealPath().toString();
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(prefix)) {
                        out.add(fd.getFileName() + " -> " + target);
                    }
                } catch (IOException e) {
                    // the listing's own descriptor, closed by now
                }
            }
        }
        return out;
    }

    /** The descriptor numbers of this process that refer to {@code file}. */
    static Set<Integer> fdsOf(Path file) throws IOException {
        String target = file.toRealPath().toString();
        Set<Integer> out = new java.util.TreeSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String t = Files.readSymbolicLink(fd).toString();
                    if (t.equals(target) || t.equals(target + " (deleted)")) {
                        out.add(Integer.parseInt(fd.getFileName().toString()));
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return out;
    }

    /** The lines of /proc/self/maps that map {@code file}. */
    static long mappingsOf(Path file) throws IOException {
        String target = file.toRealPath().toString();
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.endsWith(target) || l.endsWith(target + " (deleted)")).count();
        }
    }

    /** The octal {@code flags:} of a descriptor as the kernel keeps them (/proc/self/fdinfo). */
    static int openFlags(int fd) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (l.startsWith("flags:")) {
                return Integer.parseInt(l.substring(6).trim(), 8);
            }
        }
        throw new IOException("no flags for fd " + fd);
    }

    // The read system calls, by number, of the two architectures the project builds for.
    private static final Set<Integer> READ_CALLS = switch (System.getProperty("os.arch").toLowerCase(Locale.ROOT)) {
        case "amd64", "x86_64" -> Set.of(0, 17, 19, 295, 327);  // read, pread64, readv, preadv, preadv2
        case "aarch64" -> Set.of(63, 65, 67, 69, 286);          // read, readv, pread64, preadv, preadv2
        default -> Set.of();
    };

    /**
     * Waits until {@code reader} is blocked reading {@code file}: parked (how a channel that hands the read to
     * another thread waits), or some thread of this process sits in a read system call on a descriptor of that file
     * (how the JDK's channel waits). Fails with the reader's stack when that does not happen within the bound. No
     * sleeping instead of knowing: the test acts only once the read has begun.
     */
    static void awaitBlockedReading(Thread reader, Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (!reader.isAlive()) {
                throw new AssertionError("the reader ended before it blocked");
            }
            Thread.State s = reader.getState();
            boolean inRead = inChannelRead(reader.getStackTrace());
            if (inRead && (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)) {
                return;
            }
            if (inRead && someThreadReads(fdsOf(file))) {
                return;
            }
            Thread.sleep(5); // polling a condition, not waiting instead of one
        }
        throw new AssertionError("the reader did not block in a read of " + file + " within " + WAIT_SECONDS
                + " s; it is " + reader.getState() + " at " + List.of(reader.getStackTrace()));
    }

    private static boolean inChannelRead(StackTraceElement[] stack) {
        for (StackTraceElement e : stack) {
            if (e.getMethodName().equals("read") && !e.getClassName().startsWith("io.github.uring4j.nio.")) {
                return true;
            }
            if (e.getMethodName().equals("read") && e.getClassName().startsWith("io.github.uring4j.nio.Uring")) {
                return true;
            }
        }
        return false;
    }

    private static boolean someThreadReads(Set<Integer> fds) throws IOException {
        return !fds.isEmpty() && !READ_CALLS.isEmpty() && someThreadIn(f -> READ_CALLS.contains(Integer.parseInt(f[0]))
                && fds.contains((int) Long.decode(f[1]).longValue()));
    }

    /**
     * Whether some thread of this process sits in a system call whose fields in {@code /proc/<tid>/syscall} (its
     * number, then its arguments) {@code call} accepts.
     */
    private static boolean someThreadIn(java.util.function.Predicate<String[]> call) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String[] f;
                try {
                    f = Files.readString(task.resolve("syscall")).trim().split(" ");
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (f.length > 1 && !f[0].equals("running") && call.test(f)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code fcntl}, by number, on the two architectures the project builds for. */
    private static final int FCNTL = switch (System.getProperty("os.arch").toLowerCase(Locale.ROOT)) {
        case "amd64", "x86_64" -> 72;
        case "aarch64" -> 25;
        default -> -1;
    };

    /**
     * Waits until some thread of this process sits in an {@code fcntl} system call (a record lock that waits for
     * another process: where the JDK's channel, and uring4j's through it, wait in {@code lock()}); fails when that does
     * not happen within the bound.
     */
    static void awaitLockWait() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (System.nanoTime() < deadline) {
            if (someThreadIn(f -> Integer.parseInt(f[0]) == FCNTL)) {
                return;
            }
            Thread.sleep(5); // polling a condition, not waiting instead of one
        }
        throw new AssertionError("no thread waited in fcntl within " + WAIT_SECONDS + " s");
    }
}
