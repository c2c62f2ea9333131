package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Cases that need a JVM of their own: 22 (memlock limit), 29 (JVM exit), 30 (kill -9). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChildJvmTest {
    @TempDir
    Path dir;

    static List<String> output(Process p, long seconds) throws Exception {
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        }
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "child still running: " + lines);
        return lines;
    }

    /** Case 29 (and the backend property): a JVM whose main returns with executors open exits promptly. */
    @ParameterizedTest(name = "uring4j.backend={0}")
    @ValueSource(strings = {"auto", "threads"})
    void case29JvmExitsWithExecutorsOpen(String backend) throws Exception {
        long start = System.nanoTime();
        Process p = ChildJvm.start(List.of(), List.of("-During4j.backend=" + backend), "exit", dir.toString());
        List<String> out = output(p, 60);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, p.exitValue(), out.toString());
        String expectDefault = backend.equals("threads") ? "THREADS" : "IO_URING";
        assertTrue(out.contains("READY " + expectDefault + " IO_URING"), out + " after " + ms + " ms");
    }

    /**
     * A JVM exiting while an executor's loops sleep in {@code io_uring_enter}: they nap in Java instead, so that the
     * JVM's exit, which waits for threads in native code (up to 300 ms for a program's), need not wait for them.
     */
    @Test
    void idleLoopsLeaveTheKernelWhenTheJvmExits() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(), "exitNap", dir.toString());
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("BEFORE napper") && l.contains("RUNNABLE")),
                "the loops were in the kernel before the exit: " + out);
        assertTrue(out.contains("NAPPING 2"), out.toString());
    }

    /**
     * {@code System.exit} from a continuation on an event loop, and a shutdown hook writing to a file of that loop:
     * the loop waits inside the exit for the hooks, so the write fails at once, saying why, and the JVM exits with the
     * program's status (the write waited for ever, and so did the exit; found by a hostile probe).
     */
    @Test
    void aShutdownHooksWriteToALoopInsideSystemExitFailsAtOnce() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(), "exitInCompletion", dir.toString());
        List<String> out = output(p, 60);
        assertEquals(3, p.exitValue(), out.toString());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("HOOK failed") && l.contains("inside System.exit")),
                out.toString());
    }

    /** Case 22: buffers over the memlock limit stay unregistered, the message shows the limit, I/O works. */
    @Test
    void case22RegistrationOverMemlockFallsBack() throws Exception {
        Path file = dir.resolve("memlock");
        Files.write(file, new byte[1]);
        // As root, CAP_IPC_LOCK would exempt the child from the limit: drop it from the bounding set.
        List<String> wrapper = List.of("setpriv", "--bounding-set=-ipc_lock", "prlimit", "--memlock=65536:65536");
        Process probe;
        try {
            probe = new ProcessBuilder("setpriv", "--bounding-set=-ipc_lock", "prlimit", "--memlock=65536:65536",
                    "true").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            Assumptions.abort("setpriv/prlimit not available: " + e);
            return;
        }
        Assumptions.assumeTrue(probe.waitFor() == 0, "setpriv/prlimit cannot run here");
        Process p = ChildJvm.start(wrapper, List.of(), "memlock", file.toString());
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.contains("REGISTERED false"), out.toString());
        String failure = out.stream().filter(l -> l.startsWith("FAILURE ")).findFirst().orElseThrow();
        assertTrue(failure.contains("ENOMEM"), failure);
        assertTrue(failure.contains("64 KiB"), "the message shows the limit: " + failure);
        assertTrue(out.contains("IO OK"), out.toString());
        assertTrue(out.contains("SMALL REGISTERED true "), out.toString());
        assertTrue(out.contains("SMALL IO OK"), out.toString());
    }

    /**
     * Closes of threads-backend executors made by handlers of other executors (two that close each other, an io_uring
     * loop's handler closing a third), each executor with a FIFO read that never ends, in a JVM whose close wait is an
     * hour: every close starts and returns, as the {@code IoExecutor} javadoc promises for closes on such threads
     * (each waited for its pool, busy in the other's handler, for the whole wait: two seconds by default, logged as
     * "0 call(s) still blocked"). A fourth, closed by main, ends its FIFO read with {@code AsynchronousCloseException}
     * and returns (it waited the whole wait for the read, then warned that a call was still blocked).
     */
    @Test
    void threadsExecutorsClosedByHandlersOfOtherExecutorsDoNotWait() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of("-During4j.threads.closeWaitMillis=3600000"),
                "threadsClosedByHandlers", dir.toString());
        // a close that waits the hour is ended here, and the assertions below say so
        java.util.concurrent.CompletableFuture.delayedExecutor(60, TimeUnit.SECONDS).execute(p::destroyForcibly);
        List<String> out = output(p, 90);
        String all = String.join("\n", out);
        assertTrue(out.contains("MUTUAL CLOSED") && out.contains("LOOP CLOSED true") && out.contains("END"), all);
        assertTrue(out.contains("MAIN CLOSED AsynchronousCloseException in flight 0"), all);
        assertEquals(0, p.exitValue(), all);
    }

    /**
     * Two handlers on the two loops of an executor close a registered pool each at once, then build one each (a child
     * JVM, whose log the test reads): the closes and the builds return without waiting for the other loop, so no
     * warning says a loop held them up (before, each close waited two seconds for the other loop, which waited for
     * it, and each build as long, then gave up registering), both new pools are registered and every read into them
     * is a {@code READ_FIXED}, whichever loop makes it; afterwards every slot of the table is free.
     */
    @Test
    void poolsClosedAndBuiltByHandlersOnTwoLoopsAtOnceDoNotWaitForEachOther() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(), "poolsOnLoops", dir.toString());
        List<String> out = output(p, 120);
        String all = String.join("\n", out);
        assertEquals(0, p.exitValue(), all);
        assertTrue(out.contains("CLOSED true") && out.contains("END"), all);
        Assumptions.assumeTrue(out.contains("LOOPS 2"), "both reads completed on one loop: nothing to show");
        assertTrue(out.stream().noneMatch(l -> l.contains("has not turned")),
                "a close or a build waited for a loop: " + all);
        assertTrue(out.contains("BUILT true true "), all);
        assertTrue(out.contains("READS 4 FIXED 4"), all);
        String whole = out.stream().filter(l -> l.startsWith("WHOLE ")).findFirst().orElseThrow();
        Assumptions.assumeFalse(whole.contains("ENOMEM"), "the locked-memory limit refused 8 MiB: " + whole);
        assertTrue(whole.startsWith("WHOLE true"), all);
    }

    /**
     * The descriptor limit (a child under {@code prlimit --nofile=128}): opening {@code AsyncFile}s and the drop-in's
     * channels, and reading whole files, fails at the limit with {@code EMFILE} said in words, as the JDK's channel
     * says "Too many open files"; an executor closes at the limit; once they are closed everything works again and
     * no descriptor is left.
     */
    @Test
    void theDescriptorLimitIsSaidAndNothingLeaks() throws Exception {
        Path file = dir.resolve("descriptors");
        Files.write(file, new byte[16]);
        assumePrlimit("--nofile=128:128");
        Process p = ChildJvm.start(List.of("prlimit", "--nofile=128:128"), List.of(), "descriptors", file.toString());
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        for (String what : List.of("AsyncFile", "FileChannel", "readFile")) {
            String limit = out.stream().filter(l -> l.startsWith("LIMIT " + what + " ")).findFirst().orElseThrow();
            assertTrue(limit.contains("EMFILE") && limit.contains("ulimit -n")
                    || limit.contains("Too many open files"), limit);
            assertTrue(out.contains("AGAIN " + what + " 16 16"), out.toString());
        }
        assertTrue(out.contains("SPARE CLOSED true"), "an executor closed at the limit: " + out);
        // on the file, and io_uring instances: none on the file before or after, as many rings after as before
        String[] fds = out.stream().filter(l -> l.startsWith("DESCRIPTORS ")).findFirst().orElseThrow().split(" ");
        assertEquals(List.of("0", fds[2], "0", fds[2]), List.of(fds[1], fds[2], fds[3], fds[4]),
                "descriptors on the file and rings, before and after: " + out);
    }

    /**
     * A registration of the library's JMX view asked for while a program (under {@code prlimit --nofile=256}) holds
     * every descriptor: it waits until descriptors are free, and the program's own {@code ManagementFactory} works
     * afterwards (before: the registration started the platform MBean server at the limit, whose class failed to
     * initialise for the JVM's life: the program's {@code getPlatformMBeanServer()} threw
     * {@code NoClassDefFoundError}; found by a hostile probe).
     */
    /**
     * A program that has not asked for the platform MBean server does not have it started by uring4j in its first
     * seconds (it cost a fresh JVM a quarter of a second of CPU beside the program's start); once the program asks
     * for it, the executor's view is there within a second.
     */
    @Test
    void theJmxViewWaitsForTheServerInAProgramsFirstSeconds() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(), "jmxDeferred", dir.toString());
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.contains("SERVERS 0"), "an MBean server was started for the view: " + out);
        String line = out.stream().filter(l -> l.startsWith("REGISTERED ")).findFirst().orElseThrow();
        assertTrue(line.startsWith("REGISTERED true"), line);
        assertTrue(Long.parseLong(line.split(" ")[3]) < 1000, line);
    }

    @Test
    void aJmxRegistrationAtTheDescriptorLimitWaitsInsteadOfBreakingJmx() throws Exception {
        assumePrlimit("--nofile=256:256");
        Process p = ChildJvm.start(List.of("prlimit", "--nofile=256:256"), List.of(), "jmxAtTheLimit");
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("SERVER ")), out.toString());
        assertTrue(out.contains("REGISTERED true"), out.toString());
    }

    /**
     * A program under {@code prlimit --nofile=40} writes small files through the drop-in, one open at a time, for four
     * seconds while the drop-in's JMX registration waits for more free descriptors: none of its opens fails, and
     * nothing warns of the low limit (before: the registration
     * looked once a second by opening as many as it wanted, 32, and a probe's single-threaded loop of
     * {@code Files.write} at {@code ulimit -n 20}, and {@code javac} at 24, failed with "Too many open files"; and
     * the ring's table of 256 registered files, refused above the limit, was said in a warning on every run).
     */
    @Test
    void aWaitingJmxRegistrationTakesNoDescriptorFromTheProgram() throws Exception {
        List<String> out = childUnder("--nofile=40:40", "writesBesideAWaitingJmxView", dir.toString());
        String line = out.stream().filter(l -> l.startsWith("WRITES ")).findFirst().orElseThrow();
        String[] f = line.split(" ");
        assertTrue(Long.parseLong(f[1]) > 100, line);
        assertEquals("0", f[3], line);
        // nor a warning that the limit is low: the ring's table of registered files is made to fit under it
        assertTrue(out.stream().noneMatch(l -> l.contains("WARNING")), out.toString());
    }

    /**
     * A virtual thread with every descriptor of the process taken after it opened two drop-in channels: its
     * {@code force} and an {@code O_DIRECT} read and write (calls the drop-in sends through the ring on a virtual
     * thread) succeed, as the JDK's channel's do (before: {@code force} failed with "Too many open files", since the
     * ring made a copy of the file's descriptor, or with an unchecked exception when the ring itself could not be
     * made; found by a hostile probe). The ring uses the channel's own descriptor now; where the ring cannot be made,
     * the calls are made on the thread itself, as the JDK's channel makes them.
     */
    @ParameterizedTest(name = "ring made before the limit: {0}")
    @ValueSource(booleans = {true, false})
    void aVirtualThreadsCallsAtTheDescriptorLimitSucceed(boolean ringMade) throws Exception {
        List<String> out = ringMade ? childUnder("--nofile=64:64", "virtualThreadAtTheLimit", dir.toString())
                : childUnder("--nofile=64:64", "virtualThreadAtTheLimit", dir.toString(), "cold");
        assertTrue(out.contains("DONE"), out.toString());
        assertTrue(out.contains("force -> ok"), out.toString());
        if (out.stream().noneMatch(l -> l.startsWith("NO DIRECT"))) {
            assertTrue(out.contains("direct read -> 4096") && out.contains("direct write -> 4096"), out.toString());
        }
    }

    /**
     * The default executor closed under drop-in channels that used its ring, with 16 writes of 1 MiB in flight and a
     * virtual thread's FIFO read waiting: every write succeeds and the read gets the bytes written after the close
     * (those the close ended are made again on the executor the channels get now), later writes and a virtual
     * thread's {@code force} succeed, and the file holds every byte (before: the writes in flight and the read failed
     * with {@code AsynchronousCloseException} on the open channels, and so did every later write and {@code force}
     * of them, for good; found by a hostile probe).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theDefaultExecutorClosedUnderDropInChannelsLeavesThemWorking() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(), "defaultExecutorClosed", dir.toString());
        List<String> out = output(p, 90);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.contains("FIFO READ 5 hello"), out.toString());
        assertTrue(out.contains("IN FLIGHT ok 16"), out.toString());
        assertTrue(out.contains("LATER WRITE 1048576"), out.toString());
        assertTrue(out.contains("LATER FORCE ok"), out.toString());
        assertTrue(out.contains("CONTENT ok"), out.toString());
        assertTrue(out.contains("DONE"), out.toString());
    }

    /**
     * The default executor closed every 2 ms for 3 s under four virtual threads writing their own blocks through a
     * drop-in {@code AsynchronousFileChannel} and forcing a drop-in {@code FileChannel}: no call fails and every block
     * holds its last write (a hostile probe closing it every few ms saw "the executor ... is closed" and
     * {@code AsynchronousCloseException} on the open channels: an executor closed between its pick and the adopt of
     * the descriptor, or between the adopt and the submit).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theDefaultExecutorClosedOverAndOverFailsNoCallOfTheDropIns() throws Exception {
        List<String> out = childWith("-Dx=1", "executorClosedRepeatedly");
        assertTrue(out.stream().anyMatch(l -> l.startsWith("CLOSES ") && Integer.parseInt(l.substring(7)) > 20),
                out.toString());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("WRITES ") && Integer.parseInt(l.substring(7)) > 100),
                out.toString());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("FAILED 0 ")), out.toString());
        assertTrue(out.contains("BAD BLOCKS 0"), out.toString());
    }

    /**
     * An {@code AsynchronousFileChannel}'s first writes with every descriptor of the process taken, before any ring
     * was made: they succeed, made on the caller's thread, as the JDK's channel's do (before: both failed with the
     * library's internal {@code NoRing}, "EMFILE during eventfd"; found by a hostile probe).
     */
    @Test
    void anAsyncChannelsWritesAtTheDescriptorLimitSucceed() throws Exception {
        List<String> out = childUnder("--nofile=64:64", "asyncChannelAtTheLimit", dir.toString());
        assertTrue(out.contains("future write -> 4096"), out.toString());
        assertTrue(out.contains("handler write -> 4096"), out.toString());
        assertTrue(out.contains("CONTENT ok"), out.toString());
        assertTrue(out.contains("DONE"), out.toString());
    }

    /**
     * {@code -During4j.loops} sets the default executor's event loops (the drop-ins' too); a value it cannot take
     * leaves the default, with a warning that names it.
     */
    @Test
    void theLoopsPropertySetsTheDefaultExecutorsLoops() throws Exception {
        List<String> three = childWith("-During4j.loops=3", "defaultLoops");
        assertTrue(three.contains("LOOPS 3"), three.toString());
        List<String> none = childWith("-Dx=1", "defaultLoops");
        int byDefault = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 4));
        assertTrue(none.contains("LOOPS " + byDefault), none.toString());
        for (String bad : List.of("0", "many", "2000")) {
            List<String> out = childWith("-During4j.loops=" + bad, "defaultLoops");
            assertTrue(out.contains("LOOPS " + byDefault), out.toString());
            assertTrue(out.stream().anyMatch(l -> l.contains("WARNING") && l.contains("-During4j.loops=" + bad)),
                    out.toString());
        }
    }

    /**
     * 2,000 pools of 512 KiB dropped without {@code close()} (half with a buffer lent out) by a program with a 64 MiB
     * heap that never asks for a collection: the pools' native memory stays within a few times the heap's size, as
     * the JDK's direct buffers do (before: dropped pools were freed only when a collection happened to find them; a
     * hostile probe's 40,000 held 20 GB).
     */
    @Test
    void droppedPoolsMemoryStaysBoundedWithoutCollections() throws Exception {
        List<String> out = childWith("-Xmx64m", "droppedPools");
        long most = out.stream().filter(l -> l.startsWith("MOST OPEN ")).mapToLong(l -> Long.parseLong(l.substring(10)))
                .findFirst().orElseThrow();
        assertTrue(most < 256L << 20, "the most native memory of pools not freed yet: " + most + " bytes; " + out);
    }

    /** The output of a child run with the JVM option {@code option}, which must exit with 0 and say {@code DONE}. */
    private List<String> childWith(String option, String program) throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(option), program, dir.toString());
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.contains("DONE"), out.toString());
        return out;
    }

    /** The output of a child run under {@code prlimit limit} (skipped where it cannot run), which must exit with 0. */
    private static List<String> childUnder(String limit, String... args) throws Exception {
        assumePrlimit(limit);
        Process p = ChildJvm.start(List.of("prlimit", limit), List.of(), args);
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        return out;
    }

    /** Skips the test where {@code prlimit limit true} cannot run. */
    private static void assumePrlimit(String limit) throws InterruptedException {
        Process probe;
        try {
            probe = new ProcessBuilder("prlimit", limit, "true").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            Assumptions.abort("prlimit not available: " + e);
            return;
        }
        Assumptions.assumeTrue(probe.waitFor() == 0, "prlimit cannot run here");
    }

    /** Case 30: kill -9 during a write+fdatasync loop; every acknowledged record is in the file. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    void case30KillDuringWriteAndSync(Backend backend) throws Exception {
        Path file = dir.resolve("durable");
        Process p = ChildJvm.start(List.of(), List.of(), "durable", file.toString(), backend.name());
        long lastAck = -1;
        List<String> other = new ArrayList<>();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line;
        while (lastAck < 200 && System.nanoTime() < deadline && (line = r.readLine()) != null) {
            if (line.startsWith("ACK ")) {
                lastAck = Long.parseLong(line.substring(4));
            } else {
                other.add(line);
            }
        }
        p.destroyForcibly(); // SIGKILL on Linux (and closes our end of its pipes)
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertTrue(lastAck >= 0, "no record acknowledged: " + other);
        byte[] content = Files.readAllBytes(file);
        for (long i = 0; i <= lastAck; i++) {
            assertTrue(ChildMain.check(content, i), "acknowledged record " + i + " of " + lastAck + " missing");
        }
    }

    /** Case 21 under a real seccomp filter (installed by the child through prctl): fallback with cause and fix. */
    @Test
    void case21SeccompBlockedIoUringFallsBack() throws Exception {
        Path file = dir.resolve("seccomp");
        Files.write(file, "0123456789".getBytes());
        Process p = ChildJvm.start(List.of(), List.of(), "seccomp", file.toString());
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        Assumptions.assumeTrue(out.contains("FILTER ON"), "could not install a seccomp filter: " + out);
        assertTrue(out.contains("BACKEND THREADS"), out.toString());
        String reason = out.stream().filter(l -> l.startsWith("REASON ")).findFirst().orElseThrow();
        assertTrue(reason.contains("EPERM") && reason.contains("seccomp") && reason.contains("backend=threads"), reason);
        assertTrue(out.contains("READ 10"), out.toString());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("IO_URING refused: ") && l.contains("EPERM")), out.toString());
        assertEquals(1, out.stream().filter(l -> l.contains("falling back to the threads backend")).count(),
                "one warning: " + out);
    }

    /**
     * A JVM with {@code --illegal-native-access=deny} and no {@code --enable-native-access}: the default executor
     * works on the threads backend (the JDK's channels) and says once why, with the flag, a FIFO's calls included
     * (the JDK's positional calls fail on it with "Illegal seek"; a write is not held back by a read waiting for
     * it); io_uring is refused.
     */
    @Test
    void nativeAccessDeniedFallsBackToTheJdkWithOneMessage() throws Exception {
        Process p = ChildJvm.bare(List.of(), List.of("--illegal-native-access=deny"), "denied", dir.toString())
                .start();
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.contains("BACKEND THREADS"), out.toString());
        String reason = out.stream().filter(l -> l.startsWith("REASON ")).findFirst().orElseThrow();
        assertTrue(reason.contains("--enable-native-access=ALL-UNNAMED"), reason);
        assertTrue(out.contains("IO OK"), out.toString());
        assertTrue(out.contains("FIFO 16 16 through the fifo"), out.toString());
        assertTrue(out.contains("FIFO WAITING 5 5"), out.toString());
        String refused = out.stream().filter(l -> l.startsWith("REFUSED ")).findFirst().orElseThrow();
        assertTrue(refused.contains("--enable-native-access=ALL-UNNAMED"), refused);
        assertEquals(1, out.stream().filter(l -> l.contains("uring4j: falling back")).count(), out.toString());
        assertEquals(2, out.stream().filter(l -> l.equals("DROPIN sun.nio.ch.FileChannelImpl OK")).count(),
                out.toString());
        assertEquals(1, out.stream().filter(l -> l.contains("the drop-in channels are the JDK's own")).count(),
                out.toString());
        String stats = out.stream().filter(l -> l.startsWith("DROPIN-STATS ")).findFirst().orElseThrow();
        assertTrue(stats.contains("uringChannels=0,") && stats.contains("jdkChannels=2,"), stats);
    }

    /**
     * The provider installed in a JVM whose native access is denied: the thread that links its calls at start-up
     * finds that out, and the program's files are the JDK's channels', with one message and nothing else printed.
     */
    @Test
    void theProviderInstalledWithNativeAccessDeniedServesTheJdksChannels() throws Exception {
        Process p = ChildJvm.bare(List.of(), List.of("--illegal-native-access=deny", PROVIDER_PROPERTY), "provider",
                dir.toString(), "files").start();
        List<String> out = output(p, 60);
        assertEquals(0, p.exitValue(), out.toString());
        assertTrue(out.contains("PROVIDER io.github.uring4j.nio.UringFileSystemProvider"), out.toString());
        assertTrue(out.contains("FILES OK"), out.toString());
        String stats = out.stream().filter(l -> l.startsWith("DROPIN-STATS ")).findFirst().orElseThrow();
        assertTrue(stats.contains("uringChannels=0,") && !stats.contains("jdkChannels=0,"), stats);
        assertEquals(1, out.stream().filter(l -> l.contains("the drop-in channels are the JDK's own")).count(),
                out.toString());
        assertTrue(out.stream().noneMatch(l -> l.startsWith("Exception in thread") || l.startsWith("\tat ")),
                out.toString());
    }

    /**
     * The provider installed in a program that ends right after its first path: the thread linking the provider's
     * calls (and starting its rings) does not hold the JVM up or print anything.
     */
    @Test
    void aProgramThatEndsWhileTheProviderStartsExitsCleanly() throws Exception {
        for (int i = 0; i < 3; i++) {
            Process p = ChildJvm.start(List.of(), List.of(PROVIDER_PROPERTY), "provider", dir.toString());
            List<String> out = output(p, 60);
            assertEquals(0, p.exitValue(), out.toString());
            assertEquals(List.of("PROVIDER io.github.uring4j.nio.UringFileSystemProvider"), out);
        }
        // Its first files: Files.write and readAllBytes at once, then a FileChannel it keeps. Made while the
        // provider still links its calls, the whole-file calls are the JDK's and counted; the channel is uring4j's.
        // With uring4j.whileLinking=wait, all three are uring4j's.
        for (boolean wait : new boolean[] {false, true}) {
            List<String> props = wait ? List.of(PROVIDER_PROPERTY, "-During4j.whileLinking=wait")
                    : List.of(PROVIDER_PROPERTY);
            Process p = ChildJvm.start(List.of(), props, "provider", dir.toString(), "files");
            List<String> out = output(p, 60);
            assertEquals(0, p.exitValue(), out.toString());
            assertTrue(out.contains("FILES OK"), out.toString());
            assertTrue(out.contains("CHANNEL io.github.uring4j.nio.UringFileChannel OK"), out.toString());
            String stats = out.stream().filter(l -> l.startsWith("DROPIN-STATS ")).findFirst().orElseThrow();
            long byJdk = statistic(stats, "jdkWhileLinking");
            assertEquals(0, statistic(stats, "jdkChannels"), stats);
            // the library's own reads (of /sys, as it starts its rings) are uring4j's and not counted here
            assertTrue(wait ? byJdk == 0 : byJdk <= 2, stats);
            assertTrue(statistic(stats, "uringChannels") >= (wait ? 3 : 1), stats);
        }
    }

    /** A figure of {@code DropInStatistics.toString()}. */
    private static long statistic(String stats, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b" + name + "=(\\d+)").matcher(stats);
        assertTrue(m.find(), name + " in " + stats);
        return Long.parseLong(m.group(1));
    }

    private static final String PROVIDER_PROPERTY =
            "-Djava.nio.file.spi.DefaultFileSystemProvider=io.github.uring4j.nio.UringFileSystemProvider";

    /**
     * A {@code CompletionHandler} that blocks its event loop while another read waits for the loop: the executor's
     * {@code blockedLoopWarning} (300 ms here) names the loop once, with the handler's frame on its stack; the read
     * completes when the handler returns, and a second warning says the loop runs again. An idle loop (asleep in the
     * kernel) is never named; with the warning off, nothing is said. (The child's log goes to its output.)
     */
    @Test
    void aLoopKeptFromItsWorkIsNamedInAWarningWithItsStack() throws Exception {
        Process p = ChildJvm.start(List.of(), List.of(), "blocked", dir.toString());
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean released = false;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                if (!released && line.contains("blockTheLoop") && lines.contains("BLOCKED")) {
                    p.getOutputStream().write('\n'); // seen: the child lets its handler return
                    p.getOutputStream().flush();
                    released = true;
                }
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child still running: " + lines);
        assertEquals(0, p.exitValue(), String.join("\n", lines));
        String all = String.join("\n", lines);
        int idle = lines.indexOf("IDLE-DONE");
        int unwatched = lines.indexOf("UNWATCHED");
        assertTrue(idle >= 0 && unwatched > idle && lines.contains("END"), all);
        List<String> before = lines.subList(0, idle);
        assertTrue(before.stream().noneMatch(l -> l.contains("has not turned")), "an idle loop was named: " + all);
        long stalls = lines.stream().filter(l -> l.contains("event loop watched-0") && l.contains("has not turned"))
                .count();
        assertEquals(1, stalls, all);
        assertTrue(lines.contains("WAITING-DONE-BEFORE-RELEASE false"), all);
        assertTrue(lines.contains("READ 10"), all);
        assertTrue(lines.subList(lines.indexOf("READ 10"), unwatched).stream()
                .anyMatch(l -> l.contains("event loop watched-0 runs again")), all);
        assertTrue(lines.subList(unwatched, lines.size()).stream().noneMatch(l -> l.contains("has not turned")),
                "a loop with the warning off was named: " + all);
    }
}
