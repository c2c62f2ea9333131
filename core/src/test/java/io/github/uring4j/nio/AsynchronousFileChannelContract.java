package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.await;
import static io.github.uring4j.nio.Conform.failure;
import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.DELETE_ON_CLOSE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the JDK documents for {@link AsynchronousFileChannel}, as tests that any channel with its contract must pass.
 * {@link JdkAsynchronousFileChannelTest} runs them on the JDK's channel (the reference) and
 * {@link UringAsynchronousFileChannelTest} on uring4j's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AsynchronousFileChannelContract {
    @TempDir
    Path dir;

    /** The executor handed to open: its threads are known, so a test can tell where a handler ran. */
    ExecutorService executor;
    final Set<Thread> executorThreads = ConcurrentHashMap.newKeySet();

    abstract Kind kind();

    @BeforeEach
    void startExecutor() {
        AtomicInteger n = new AtomicInteger();
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "conform-executor-" + n.incrementAndGet());
            t.setDaemon(true);
            executorThreads.add(t);
            return t;
        });
    }

    @AfterEach
    void stopExecutorAndCheckDescriptors() throws Exception {
        executor.shutdown();
        assertTrue(executor.awaitTermination(Conform.WAIT_SECONDS, TimeUnit.SECONDS), "the executor did not end");
        assertEquals(List.of(), Conform.fdsUnder(dir), "descriptors left open under the test's directory");
    }

    AsynchronousFileChannel open(Path p, OpenOption... o) throws IOException {
        return kind().openAsync(p, Set.of(o), executor);
    }

    Path file(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    /** A handler that records its outcome, the thread it ran on and the attachment it got. */
    static final class Recorder<V> implements CompletionHandler<V, String> {
        final CompletableFuture<V> result = new CompletableFuture<>();
        volatile Thread thread;
        volatile String attachment;

        @Override
        public void completed(V v, String a) {
            thread = Thread.currentThread();
            attachment = a;
            result.complete(v);
        }

        @Override
        public void failed(Throwable e, String a) {
            thread = Thread.currentThread();
            attachment = a;
            result.completeExceptionally(e);
        }
    }

    void assertRanOnTheExecutor(Recorder<?> r) {
        assertTrue(executorThreads.contains(r.thread), "the handler ran on " + r.thread
                + ", not on a thread of the executor given to open");
    }

    // ============================================================================================ opening

    @Test
    void appendIsRejectedAsTheJdkRejectsIt() throws Exception {
        Path p = file("f", pattern(10, 1));
        assertThrows(UnsupportedOperationException.class, () -> open(p, WRITE, APPEND));
        assertThrows(UnsupportedOperationException.class, () -> open(p, READ, APPEND));
        assertThrows(UnsupportedOperationException.class, () -> kind().openAsync(p, WRITE, APPEND));
        assertEquals(10, Files.size(p));
    }

    @Test
    void openingErrorsAreTheFileSystemExceptionsOfFileChannel() throws Exception {
        Path p = file("f", pattern(10, 2));
        assertThrows(NoSuchFileException.class, () -> open(dir.resolve("missing")));
        assertThrows(NoSuchFileException.class, () -> open(dir.resolve("missing"), READ, CREATE));
        assertThrows(FileAlreadyExistsException.class, () -> open(p, WRITE, CREATE_NEW));
        assertThrows(UnsupportedOperationException.class, () -> open(p, WRITE, TRUNCATE_EXISTING, APPEND),
                "APPEND is refused before its combinations are looked at");
        assertThrows(UnsupportedOperationException.class, () -> open(p, READ, new OpenOption() {
        }));
        assertThrows(UnsupportedOperationException.class, () -> kind().openAsync(dir.resolve("x"),
                Set.of(WRITE, CREATE), executor, new java.nio.file.attribute.FileAttribute<String>() {
                    @Override
                    public String name() {
                        return "acl:acl";
                    }

                    @Override
                    public String value() {
                        return "none";
                    }
                }));
        try (AsynchronousFileChannel ch = kind().openAsync(p)) {
            assertEquals(10, ch.size(), "no options: reading");
            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1), 0));
        }
        try (AsynchronousFileChannel ch = kind().openAsync(dir.resolve("perm"), Set.of(WRITE, CREATE_NEW), null,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            assertEquals(0, ch.size());
        }
        assertEquals(PosixFilePermissions.fromString("rw-------"),
                Files.getPosixFilePermissions(dir.resolve("perm")));
        try (AsynchronousFileChannel ch = open(p, WRITE, TRUNCATE_EXISTING)) {
            assertEquals(0, ch.size());
        }
        Path gone = file("gone", pattern(10, 3));
        open(gone, READ, WRITE, DELETE_ON_CLOSE).close();
        assertFalse(Files.exists(gone));
    }

    @Test
    void directoryOpensForReadingAndForces() throws Exception {
        try (AsynchronousFileChannel ch = open(dir, READ)) {
            ch.force(true);
        }
    }

    // ===================================================================================== read and write

    @Test
    void futureReadsAndWritesRoundTripHeapAndDirectBuffers() throws Exception {
        byte[] data = pattern(100_000, 4);
        Path p = dir.resolve("f");
        try (AsynchronousFileChannel ch = open(p, READ, WRITE, CREATE)) {
            assertEquals(50_000, await(ch.write(ByteBuffer.wrap(data, 0, 50_000), 0)));
            ByteBuffer direct = ByteBuffer.allocateDirect(50_000).put(data, 50_000, 50_000).flip();
            assertEquals(50_000, await(ch.write(direct, 50_000)));
            assertFalse(direct.hasRemaining());
            assertEquals(100_000, ch.size());
            ByteBuffer heap = ByteBuffer.allocate(100_000);
            assertEquals(100_000, await(ch.read(heap, 0)));
            assertArrayEquals(data, heap.array());
            ByteBuffer d = ByteBuffer.allocateDirect(30);
            assertEquals(30, await(ch.read(d, 12_345)));
            byte[] b = new byte[30];
            d.flip().get(b);
            assertArrayEquals(Arrays.copyOfRange(data, 12_345, 12_375), b);
            assertEquals(5, await(ch.write(ByteBuffer.wrap(pattern(5, 5)).asReadOnlyBuffer(), 200_000)));
            assertEquals(200_005, ch.size(), "a write past the end grows the file");
            ByteBuffer hole = ByteBuffer.allocate(100);
            assertEquals(100, await(ch.read(hole, 150_000)));
            assertArrayEquals(new byte[100], hole.array());
        }
    }

    @Test
    void handlersGetTheResultAndAttachmentOnTheExecutorGivenToOpen() throws Exception {
        byte[] data = pattern(10_000, 6);
        Path p = file("f", data);
        try (AsynchronousFileChannel ch = open(p, READ, WRITE)) {
            Recorder<Integer> read = new Recorder<>();
            ByteBuffer b = ByteBuffer.allocate(100);
            ch.read(b, 500, "attachment-1", read);
            assertEquals(100, await(read.result));
            assertEquals("attachment-1", read.attachment);
            assertRanOnTheExecutor(read);
            assertArrayEquals(Arrays.copyOfRange(data, 500, 600), b.array());

            Recorder<Integer> write = new Recorder<>();
            ch.write(ByteBuffer.wrap(pattern(10, 7)), 20_000, "attachment-2", write);
            assertEquals(10, await(write.result));
            assertEquals("attachment-2", write.attachment);
            assertRanOnTheExecutor(write);

            Recorder<Integer> eof = new Recorder<>();
            ch.read(ByteBuffer.allocate(10), 30_000, null, eof);
            assertEquals(-1, await(eof.result));
            assertRanOnTheExecutor(eof);

            Recorder<FileLock> lock = new Recorder<>();
            ch.lock(0, 10, false, "attachment-3", lock);
            FileLock l = await(lock.result);
            assertRanOnTheExecutor(lock);
            assertEquals("attachment-3", lock.attachment);
            l.release();
        }
    }

    @Test
    void readsAtAndPastTheEndAreMinusOneAndEmptyBuffersZero() throws Exception {
        Path p = file("f", pattern(1024, 8));
        try (AsynchronousFileChannel ch = open(p, READ)) {
            assertEquals(1024, await(ch.read(ByteBuffer.allocate(4096), 0)), "case 1: what is there");
            assertEquals(-1, await(ch.read(ByteBuffer.allocate(10), 1024)), "case 2: -1 at the end");
            assertEquals(-1, await(ch.read(ByteBuffer.allocate(10), 1_000_000)));
            assertEquals(24, await(ch.read(ByteBuffer.allocate(100), 1000)));
            assertEquals(0, await(ch.read(ByteBuffer.allocate(0), 0)));
            assertEquals(0, await(ch.read(ByteBuffer.allocate(0), 1_000_000)));
        }
    }

    /** Argument and mode errors are thrown by the call itself, not through the future or the handler. */
    @Test
    void badArgumentsAndWrongModesAreThrownAtOnce() throws Exception {
        Path p = file("f", pattern(100, 9));
        try (AsynchronousFileChannel ro = open(p, READ); AsynchronousFileChannel wo = open(p, WRITE)) {
            Recorder<Integer> never = new Recorder<>();
            assertThrows(IllegalArgumentException.class, () -> ro.read(ByteBuffer.allocate(1), -1));
            assertThrows(IllegalArgumentException.class, () -> ro.read(ByteBuffer.allocate(1), -1, "", never));
            assertThrows(IllegalArgumentException.class, () -> wo.write(ByteBuffer.allocate(1), -1));
            assertThrows(IllegalArgumentException.class, () -> ro.read(ByteBuffer.allocate(1).asReadOnlyBuffer(), 0));
            assertThrows(IllegalArgumentException.class, () -> wo.truncate(-1));
            assertThrows(IllegalArgumentException.class, () -> ro.lock(-1, 1, true));
            assertThrows(IllegalArgumentException.class, () -> ro.tryLock(0, -1, true));
            assertThrows(NullPointerException.class, () -> ro.read(null, 0));
            assertThrows(NullPointerException.class, () -> ro.read(ByteBuffer.allocate(1), 0, "", null));
            assertThrows(NonReadableChannelException.class, () -> wo.read(ByteBuffer.allocate(1), 0));
            assertThrows(NonReadableChannelException.class, () -> wo.read(ByteBuffer.allocate(1), 0, "", never));
            assertThrows(NonWritableChannelException.class, () -> ro.write(ByteBuffer.allocate(1), 0));
            assertThrows(NonWritableChannelException.class, () -> ro.truncate(1));
            assertThrows(NonWritableChannelException.class, () -> ro.lock());
            assertThrows(NonWritableChannelException.class, () -> ro.tryLock());
            assertThrows(NonReadableChannelException.class, () -> wo.lock(0, 1, true));
            assertThrows(NonReadableChannelException.class, () -> wo.tryLock(0, 1, true));
            assertFalse(never.result.isDone());
        }
        assertArrayEquals(pattern(100, 9), Files.readAllBytes(p));
    }

    @Test
    void manyConcurrentPositionalWritesAllLand() throws Exception {
        Path p = dir.resolve("f");
        int n = 500;
        try (AsynchronousFileChannel ch = open(p, READ, WRITE, CREATE)) {
            List<Future<Integer>> writes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                writes.add(ch.write(ByteBuffer.wrap(pattern(1000, i)), 1000L * i));
            }
            for (Future<Integer> w : writes) {
                assertEquals(1000, await(w));
            }
            assertEquals(1000L * n, ch.size());
        }
        byte[] disk = Files.readAllBytes(p);
        for (int i = 0; i < n; i++) {
            assertArrayEquals(pattern(1000, i), Arrays.copyOfRange(disk, 1000 * i, 1000 * i + 1000), "block " + i);
        }
    }

    // ================================================================================== size, truncate, force

    @Test
    void sizeTruncateAndForce() throws Exception {
        byte[] data = pattern(1000, 10);
        Path p = file("f", data);
        try (AsynchronousFileChannel ch = open(p, READ, WRITE)) {
            assertEquals(1000, ch.size());
            assertSame(ch, ch.truncate(5000));
            assertEquals(1000, ch.size(), "truncating to more leaves the file");
            ch.truncate(400);
            assertEquals(400, ch.size());
            ch.force(true);
            ch.force(false);
            try (FileChannel other = FileChannel.open(p, WRITE)) {
                other.write(ByteBuffer.allocate(1), 999);
            }
            assertEquals(1000, ch.size(), "the size is the file's, not remembered");
        }
        assertArrayEquals(Arrays.copyOf(data, 400), Arrays.copyOf(Files.readAllBytes(p), 400));
    }

    // ============================================================================================== close

    /**
     * After close, what returns a value throws ClosedChannelException; what returns a future or takes a handler
     * reports it through them, and a handler hears of it on the executor.
     */
    @Test
    void aClosedChannelReportsClosedChannelException() throws Exception {
        Path p = file("f", pattern(10, 11));
        AsynchronousFileChannel ch = open(p, READ, WRITE);
        ch.close();
        assertFalse(ch.isOpen());
        assertThrows(ClosedChannelException.class, ch::size);
        assertThrows(ClosedChannelException.class, () -> ch.truncate(1));
        assertThrows(ClosedChannelException.class, () -> ch.force(true));
        assertThrows(ClosedChannelException.class, () -> ch.tryLock());
        assertInstanceOf(ClosedChannelException.class, failure(ch.read(ByteBuffer.allocate(1), 0)));
        assertInstanceOf(ClosedChannelException.class, failure(ch.write(ByteBuffer.allocate(1), 0)));
        assertInstanceOf(ClosedChannelException.class, failure(ch.lock()));
        Recorder<Integer> read = new Recorder<>();
        ch.read(ByteBuffer.allocate(1), 0, "a", read);
        assertInstanceOf(ClosedChannelException.class, failure(read.result));
        assertRanOnTheExecutor(read);
        assertEquals("a", read.attachment);
        Recorder<FileLock> lock = new Recorder<>();
        ch.lock("b", lock);
        assertInstanceOf(ClosedChannelException.class, failure(lock.result));
        assertRanOnTheExecutor(lock);
        ch.close();
        assertEquals(Set.of(), Conform.fdsOf(p));
    }

    /**
     * An operation that cannot finish (a lock another process holds) fails with AsynchronousCloseException when the
     * channel closes, through the future or the handler (on the executor).
     */
    @Test
    void closeFailsPendingOperationsWithAsynchronousClose() throws Exception {
        Path p = file("f", pattern(10, 12));
        try (SecondProcess other = SecondProcess.start()) {
            assertEquals("HOLDING", other.ask("hold " + p));
            // One pending lock at a time: a pending lock is already in the JVM's table, and a second would overlap.
            AsynchronousFileChannel ch = open(p, READ, WRITE);
            try {
                Future<FileLock> pending = ch.lock();
                assertFalse(pending.isDone(), "the other process holds the file");
                ch.close();
                assertInstanceOf(AsynchronousCloseException.class, failure(pending));
            } finally {
                ch.close();
            }
            AsynchronousFileChannel ch2 = open(p, READ, WRITE);
            try {
                Recorder<FileLock> handler = new Recorder<>();
                ch2.lock(100, 10, true, "c", handler);
                assertFalse(handler.result.isDone());
                ch2.close();
                assertInstanceOf(AsynchronousCloseException.class, failure(handler.result));
                assertRanOnTheExecutor(handler);
                assertEquals("c", handler.attachment);
            } finally {
                ch2.close();
            }
            assertEquals("RELEASED", other.ask("release"));
            assertEquals("ACQUIRED", other.ask("try " + p + " 0 1000 false"), "nothing of ours is left locked");
        }
    }

    /**
     * AsynchronousFileChannel is not interruptible: an interrupted caller, on a platform or a virtual thread, leaves it
     * open and keeps its status ({@code force} of a virtual thread went through uring4j's ring, where the interrupt
     * closed the channel).
     */
    @Test
    void anInterruptedCallerLeavesTheChannelOpen() throws Exception {
        Path p = file("f", pattern(100, 13));
        for (Thread.Builder threads : List.of(Thread.ofPlatform(), Thread.ofVirtual())) {
            try (AsynchronousFileChannel ch = open(p, READ, WRITE)) {
                CompletableFuture<String> got = new CompletableFuture<>();
                threads.start(() -> {
                    Thread.currentThread().interrupt();
                    Future<Integer> f = ch.read(ByteBuffer.allocate(10), 0);
                    String size = Conform.outcome(ch::size);
                    String force = Conform.outcomeOfStep(() -> ch.force(false));
                    String forceAll = Conform.outcomeOfStep(() -> ch.force(true));
                    boolean interrupted = Thread.interrupted();
                    String read = Conform.outcome(() -> f.get(Conform.WAIT_SECONDS, TimeUnit.SECONDS));
                    got.complete(size + " / " + force + " / " + forceAll + " / " + read + " / interrupted="
                            + interrupted);
                });
                assertEquals("= 100 / = done / = done / = 10 / interrupted=true", await(got), threads.toString());
                assertTrue(ch.isOpen());
                assertEquals(10, await(ch.read(ByteBuffer.allocate(10), 0)));
            }
        }
    }

    /**
     * {@code cancel(true)} of a lock waiting for another process closes the channel, as the JDK's does
     * ({@code AsynchronousChannel}: the operation "may be interrupted by closing the channel"), so no lock is taken
     * behind the caller's back once the other process lets go (uring4j's wait went on, took the lock and kept it).
     */
    @Test
    void cancellingAWaitingLockWithInterruptClosesTheChannel() throws Exception {
        Path p = file("f", pattern(10, 14));
        try (SecondProcess other = SecondProcess.start(); AsynchronousFileChannel ch = open(p, READ, WRITE)) {
            assertEquals("HOLDING", other.ask("hold " + p));
            Future<FileLock> waiting = ch.lock();
            Conform.awaitLockWait();
            assertTrue(waiting.cancel(true));
            assertTrue(waiting.isCancelled());
            assertFalse(ch.isOpen(), "cancel(true) closed the channel");
            assertEquals("RELEASED", other.ask("release"));
            assertEquals("ACQUIRED", other.ask("try " + p + " 0 10 false"), "the file is free");
        }
    }

    /**
     * A future of a lock that waits for another process, asked with negative timeouts, {@code Long.MIN_VALUE}
     * included: {@code TimeoutException} at once, as the JDK's (uring4j's computed a deadline of now plus
     * {@code Long.MIN_VALUE}, which wrapped, and waited for the lock).
     */
    @Test
    void aNegativeTimeoutTimesOutAtOnce() throws Exception {
        Path p = file("f", pattern(10, 15));
        try (SecondProcess other = SecondProcess.start(); AsynchronousFileChannel ch = open(p, READ, WRITE)) {
            assertEquals("HOLDING", other.ask("hold " + p));
            Future<FileLock> waiting = ch.lock();
            for (long t : new long[] {Long.MIN_VALUE, -1, 0}) {
                for (TimeUnit u : new TimeUnit[] {TimeUnit.NANOSECONDS, TimeUnit.SECONDS, TimeUnit.DAYS}) {
                    assertThrows(java.util.concurrent.TimeoutException.class, () -> waiting.get(t, u), t + " " + u);
                }
            }
            assertEquals("RELEASED", other.ask("release"));
            assertTrue(await(waiting).isValid());
        }
    }

    /**
     * While a lock waits for another process, an overlapping {@code lock} or {@code tryLock} of the same channel is
     * refused at the call with {@code OverlappingFileLockException}, as the JDK's channel refuses it (its lock table
     * holds the waiting range); a range beside it is not (a hostile probe's case: uring4j refused the second lock
     * through its future, or {@code tryLock} said null, only once a handler thread had begun the first wait).
     */
    @Test
    void aLockWaitingForAnotherProcessRefusesOverlappingLocksAtTheCall() throws Exception {
        Path p = file("f", pattern(200, 16));
        try (SecondProcess other = SecondProcess.start(); AsynchronousFileChannel ch = open(p, READ, WRITE)) {
            assertEquals("HOLDING", other.ask("hold " + p));
            Future<FileLock> waiting = ch.lock(0, 100, false);
            assertThrows(OverlappingFileLockException.class, () -> ch.lock(0, 100, false));
            assertThrows(OverlappingFileLockException.class, () -> ch.lock(50, 10, true));
            assertThrows(OverlappingFileLockException.class, () -> ch.tryLock(99, 1, false));
            assertFalse(waiting.isDone(), "the first lock still waits");
            assertEquals("RELEASED", other.ask("release"));
            FileLock first = await(waiting);
            assertTrue(first.isValid());
            FileLock beside = ch.tryLock(100, 100, false);
            assertTrue(beside != null && beside.isValid(), "a range beside it");
            assertThrows(OverlappingFileLockException.class, () -> ch.tryLock(0, 1, false), "held now");
        }
    }

    // ============================================================================================== locks

    @Test
    void locksInFutureAndHandlerForms() throws Exception {
        Path p = file("f", pattern(10, 14));
        AsynchronousFileChannel ch = open(p, READ, WRITE);
        try (FileChannel jdk = FileChannel.open(p, READ, WRITE)) {
            FileLock all = await(ch.lock());
            assertSame(ch, all.acquiredBy());
            assertNull(all.channel(), "a lock of an AsynchronousFileChannel has no FileChannel");
            assertFalse(all.isShared());
            assertEquals(Long.MAX_VALUE, all.size());
            assertThrows(OverlappingFileLockException.class, () -> ch.tryLock(0, 1, true));
            // The JDK throws the overlap at once rather than through the future.
            assertThrows(OverlappingFileLockException.class, () -> ch.lock(5, 5, true));
            assertThrows(OverlappingFileLockException.class, () -> jdk.tryLock(5, 5, false),
                    "one JVM, one lock table, whatever the channel");
            all.release();
            assertFalse(all.isValid());
            FileLock shared = ch.tryLock(0, 100, true);
            assertNotNull(shared);
            assertTrue(shared.isShared());
            assertSame(ch, shared.acquiredBy());
            FileLock jdkShared = jdk.tryLock(200, 10, false);
            assertNotNull(jdkShared);
            assertThrows(OverlappingFileLockException.class, () -> ch.tryLock(205, 1, false));
            jdkShared.release();
            shared.release();
            Recorder<FileLock> h = new Recorder<>();
            ch.lock(0, 10, true, null, h);
            FileLock l = await(h.result);
            assertTrue(l.isShared());
            assertRanOnTheExecutor(h);
            ch.close();
            assertFalse(l.isValid(), "closing the channel invalidates its locks");
        } finally {
            ch.close();
        }
    }

    @Test
    void anotherProcessSeesOurLocksAndWeSeeItsLocks() throws Exception {
        Path p = file("f", pattern(10, 15));
        try (SecondProcess other = SecondProcess.start(); AsynchronousFileChannel ch = open(p, READ, WRITE)) {
            FileLock l = await(ch.lock(0, 100, false));
            assertEquals("BUSY", other.ask("try " + p + " 10 10 true"));
            l.release();
            assertEquals("ACQUIRED", other.ask("try " + p + " 10 10 false"));
            assertEquals("HOLDING", other.ask("hold " + p));
            assertNull(ch.tryLock(), "tryLock does not wait for another process");
            Future<FileLock> waiting = ch.lock();
            assertFalse(waiting.isDone());
            assertEquals("RELEASED", other.ask("release"));
            FileLock got = await(waiting);
            assertTrue(got.isValid());
            got.release();
        }
    }

    // ================================================================================== virtual threads

    /** Case 19 through the asynchronous channel: 100,000 virtual threads wait on futures of one channel. */
    @Test
    void case19HundredThousandVirtualThreadsShareOneChannel() throws Exception {
        int threads = 100_000;
        byte[] data = pattern(1 << 20, 16);
        Path p = file("f", data);
        AtomicInteger wrong = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        try (AsynchronousFileChannel ch = kind().openAsync(p, READ);
                ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < threads; i++) {
                int at = (i * 4099) % (data.length - 64);
                exec.execute(() -> {
                    ByteBuffer b = ByteBuffer.allocate(64);
                    try {
                        int n = ch.read(b, at).get();
                        if (n != 64 || !Arrays.equals(b.array(), Arrays.copyOfRange(data, at, at + 64))) {
                            wrong.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        wrong.incrementAndGet();
                    }
                    done.incrementAndGet();
                });
            }
            exec.shutdown();
            assertTrue(exec.awaitTermination(Conform.WAIT_SECONDS, TimeUnit.SECONDS),
                    "only " + done.get() + " of " + threads + " reads finished");
        }
        assertEquals(threads, done.get());
        assertEquals(0, wrong.get());
    }

    /**
     * Writes onto a full disk (a 32 MiB file system of the test's own, skipped where none can be mounted): futures
     * until one fails, then a handler's; each fails with the JDK's {@code IOException("No space left on device")},
     * the handler on the executor given to open; the file holds what the writes said they wrote; once there is room
     * again the same channel writes.
     */
    @Test
    void writesOntoAFullDiskFailAsTheJdksDoAndTheChannelWritesOnceThereIsRoomAgain() throws Exception {
        Path fs = io.github.uring4j.file.TestFiles.smallFileSystem(dir, 32L << 20);
        try {
            Path room = Files.write(fs.resolve("room"), new byte[4 << 20]);
            byte[] chunk = pattern(1 << 20, 96);
            try (AsynchronousFileChannel ch = open(fs.resolve("f"), CREATE, READ, WRITE)) {
                long written = 0;
                Throwable full = null;
                for (int i = 0; i < 64 && full == null; i++) {
                    ByteBuffer b = i % 2 == 0 ? ByteBuffer.wrap(chunk) : ByteBuffer.allocateDirect(chunk.length)
                            .put(chunk).flip();
                    Future<Integer> w = ch.write(b, written);
                    try {
                        written += await(w);
                    } catch (IOException e) {
                        full = e;
                    }
                }
                assertNotNull(full, "64 MiB on 32 MiB");
                assertEquals(IOException.class, full.getClass());
                assertEquals("No space left on device", full.getMessage());
                assertEquals(written, ch.size());
                Recorder<Integer> r = new Recorder<>();
                ByteBuffer b = ByteBuffer.wrap(chunk);
                ch.write(b, written, "a", r);
                Throwable e = failure(r.result);
                assertEquals(IOException.class, e.getClass());
                assertEquals("No space left on device", e.getMessage());
                assertRanOnTheExecutor(r);
                assertEquals(0, b.position(), "nothing of the buffer consumed");
                ByteBuffer tail = ByteBuffer.allocate(1000);
                assertEquals(1000, await(ch.read(tail, written - 1000)));
                long from = (written - 1000) % chunk.length;
                assertArrayEquals(Arrays.copyOfRange(chunk, (int) from, (int) from + 1000), tail.array(),
                        "the last bytes written are on the disk");
                Files.delete(room);
                while (b.hasRemaining()) {
                    await(ch.write(b, written + b.position()));
                }
                ByteBuffer back = ByteBuffer.allocate(chunk.length);
                while (back.hasRemaining() && await(ch.read(back, written + back.position())) > 0) {
                    // until the chunk is read back
                }
                assertArrayEquals(chunk, back.array());
            }
        } finally {
            io.github.uring4j.file.TestFiles.unmount(fs);
        }
    }

    /** An executor that runs every task on the thread that gives it (as Guava's direct executor service does). */
    static final class DirectExecutorService extends java.util.concurrent.AbstractExecutorService {
        private volatile boolean shut;

        @Override
        public void execute(Runnable r) {
            r.run();
        }

        @Override
        public void shutdown() {
            shut = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shut = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shut;
        }

        @Override
        public boolean isTerminated() {
            return shut;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /**
     * Executors that run a task on the thread that gives it: a direct executor, and a saturated pool whose
     * {@code CallerRunsPolicy} runs the task on the giver. A handler there may wait for another operation of its
     * channel, and may close the channel, as on the
     * JDK's channel, which makes its I/O on the executor itself. (What such a handler throws differs: the JDK's
     * channel, which ran it inside {@code read}, throws it from there.)
     */
    @Test
    void handlersOfExecutorsThatRunTasksOnTheGiverMayWaitForTheChannel() throws Exception {
        Path p = file("giver", pattern(100_000, 61));
        java.util.concurrent.ThreadPoolExecutor busy = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
                TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(),
                new java.util.concurrent.ThreadPoolExecutor.CallerRunsPolicy());
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        busy.execute(() -> {
            try {
                release.await(); // the pool's one thread stays busy: every task runs on the thread that gives it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            for (ExecutorService giver : List.of(new DirectExecutorService(), busy)) {
                try (AsynchronousFileChannel ch = kind().openAsync(p, Set.of(READ), giver)) {
                    CompletableFuture<Integer> nested = new CompletableFuture<>();
                    ch.read(ByteBuffer.allocate(4096), 50_000, "a", new CompletionHandler<Integer, String>() {
                        @Override
                        public void completed(Integer n, String a) {
                            try {
                                ByteBuffer b = ByteBuffer.allocate(4096);
                                int m = ch.read(b, 0).get(Conform.WAIT_SECONDS, TimeUnit.SECONDS);
                                assertArrayEquals(Arrays.copyOf(pattern(100_000, 61), 4096), b.array());
                                nested.complete(n + m);
                            } catch (Throwable e) {
                                nested.completeExceptionally(e);
                            }
                        }

                        @Override
                        public void failed(Throwable e, String a) {
                            nested.completeExceptionally(e);
                        }
                    });
                    assertEquals(8192, await(nested), "the handler's own wait for the channel ended");
                    assertEquals(10, await(ch.read(ByteBuffer.allocate(10), 0)), "the channel works on");
                    CompletableFuture<Integer> closes = new CompletableFuture<>();
                    ch.read(ByteBuffer.allocate(10), 0, "c", new CompletionHandler<Integer, String>() {
                        @Override
                        public void completed(Integer n, String a) {
                            try {
                                ch.close();
                                closes.complete(n);
                            } catch (Throwable e) {
                                closes.completeExceptionally(e);
                            }
                        }

                        @Override
                        public void failed(Throwable e, String a) {
                            closes.completeExceptionally(e);
                        }
                    });
                    assertEquals(10, await(closes));
                    assertFalse(ch.isOpen());
                }
            }
        } finally {
            release.countDown();
            busy.shutdown();
        }
    }
}
