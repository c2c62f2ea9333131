package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Threads calling every kind of operation of uring4j's {@code AsynchronousFileChannel} at random (futures, handlers,
 * cancels, locks, size, truncate, force) on a few shared channels while another thread closes channels under them
 * (the threads open them again): every future ends within its wait, every handler is told once, nothing fails but
 * with what the JDK's channel throws then, and no descriptor of the files is left. (The JDK's own channel, run the
 * same way, threw {@code AssertionError} from {@code tryLock} when a close raced it.)
 */
class AsynchronousChaosTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void randomOperationsAndClosesBreakNothing(boolean virtual) throws Exception {
        int files = 4;
        List<Path> paths = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            Path p = dir.resolve("f" + i);
            Files.write(p, new byte[128 * 1024]);
            paths.add(p);
        }
        AtomicReferenceArray<AsynchronousFileChannel> channels = new AtomicReferenceArray<>(files);
        for (int i = 0; i < files; i++) {
            channels.set(i, open(paths.get(i)));
        }
        Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
        AtomicLong issued = new AtomicLong();
        AtomicLong told = new AtomicLong();
        AtomicLong calls = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 24; t++) {
            int seed = t;
            Runnable work = () -> {
                Random rnd = new Random(seed);
                while (System.nanoTime() < end) {
                    int i = rnd.nextInt(files);
                    AsynchronousFileChannel c = channels.get(i);
                    if (!c.isOpen()) {
                        try {
                            AsynchronousFileChannel again = open(paths.get(i));
                            if (!channels.compareAndSet(i, c, again)) {
                                again.close();
                            }
                        } catch (Throwable e) {
                            unexpected.putIfAbsent("open: " + e, e);
                        }
                        continue;
                    }
                    ByteBuffer b = rnd.nextBoolean() ? ByteBuffer.allocateDirect(rnd.nextInt(1, 70_000))
                            : ByteBuffer.allocate(rnd.nextInt(1, 70_000));
                    long pos = rnd.nextInt(200_000);
                    int op = rnd.nextInt(10);
                    try {
                        call(op, c, b, pos, rnd, issued, told, unexpected);
                        calls.incrementAndGet();
                    } catch (Throwable e) {
                        if (!expected(e)) {
                            unexpected.putIfAbsent("op " + op + ": " + e, e);
                        }
                    }
                }
            };
            workers.add(virtual ? Thread.ofVirtual().start(work) : Thread.ofPlatform().start(work));
        }
        Random rnd = new Random(5);
        while (System.nanoTime() < end) {
            Thread.sleep(5);
            if (rnd.nextInt(4) == 0) {
                channels.get(rnd.nextInt(files)).close();
            }
        }
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!w.isAlive(), () -> "a thread still waits: " + List.of(w.getStackTrace()));
        }
        for (int i = 0; i < files; i++) {
            channels.get(i).close();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (told.get() < issued.get() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (!unexpected.isEmpty()) {
            AssertionError e = new AssertionError("unexpected failures: " + unexpected.keySet());
            unexpected.values().forEach(e::addSuppressed);
            throw e;
        }
        assertEquals(issued.get(), told.get(), "handlers told");
        assertTrue(calls.get() > 500, "calls: " + calls);
        assertEquals(List.of(), Conform.fdsUnderWithin(dir, 10), "descriptors of the files left open");
    }

    private static AsynchronousFileChannel open(Path p) throws java.io.IOException {
        return UringFiles.newAsynchronousFileChannel(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** What the JDK's channel throws when another thread closes it, or another of this JVM holds the range's lock. */
    private static boolean expected(Throwable e) {
        Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return c instanceof ClosedChannelException || c instanceof OverlappingFileLockException
                || c instanceof CancellationException;
    }

    private static void call(int op, AsynchronousFileChannel c, ByteBuffer b, long pos, Random rnd, AtomicLong issued,
            AtomicLong told, Map<String, Throwable> unexpected) throws Exception {
        CompletionHandler<Integer, Object> handler = new CompletionHandler<>() {
            @Override
            public void completed(Integer n, Object attachment) {
                told.incrementAndGet();
            }

            @Override
            public void failed(Throwable e, Object attachment) {
                told.incrementAndGet();
                if (!expected(e)) {
                    unexpected.putIfAbsent("handler: " + e, e);
                }
            }
        };
        switch (op) {
            case 0 -> c.read(b, pos).get(30, TimeUnit.SECONDS);
            case 1 -> c.write(b, pos).get(30, TimeUnit.SECONDS);
            case 2 -> {
                Future<Integer> f = c.read(b, pos);
                if (rnd.nextBoolean()) {
                    f.cancel(true);
                }
                f.get(30, TimeUnit.SECONDS);
            }
            case 3 -> {
                issued.incrementAndGet();
                c.read(b, pos, null, handler);
            }
            case 4 -> {
                issued.incrementAndGet();
                c.write(b, pos, null, handler);
            }
            case 5 -> c.size();
            case 6 -> {
                if (rnd.nextInt(10) == 0) {
                    c.truncate(100_000 + rnd.nextInt(100_000));
                } else {
                    c.force(rnd.nextBoolean());
                }
            }
            case 7 -> {
                FileLock l = c.tryLock(pos, 10, rnd.nextBoolean());
                if (l != null) {
                    l.release();
                }
            }
            default -> c.lock(pos, 10, false).get(30, TimeUnit.SECONDS).release();
        }
    }
}
