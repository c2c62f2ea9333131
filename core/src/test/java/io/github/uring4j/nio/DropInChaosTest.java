package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many threads calling every kind of drop-in {@code FileChannel} operation on a few shared channels at random, while
 * another thread interrupts them at random and closes channels under them (the threads open them again): no call
 * fails with anything but what the JDK's channel throws in that case, no thread is left waiting, every byte a read
 * returns is one some positional write put there (or a zero), and once every channel is closed no descriptor of the
 * files is left open. The same workload beside the JDK's channel, timed ({@code uring4j-bench mixed}), found that a
 * virtual thread's read across the end of a file went through the event loop, and its copy of cached pages through
 * a platform thread.
 */
class DropInChaosTest {
    private static final int FILES = 6;
    private static final int SIZE = 256 * 1024;

    @TempDir
    Path dir;

    /** The byte positional writes put at {@code offset}: a read finds it there, or a zero. */
    private static byte at(long offset) {
        return (byte) (offset * 7 + 1 | 1);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void randomOperationsInterruptsAndClosesBreakNothing(boolean virtual) throws Exception {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            Path p = dir.resolve("f" + i);
            Files.write(p, new byte[SIZE]);
            files.add(p);
        }
        Path sink = dir.resolve("sink");
        AtomicReferenceArray<FileChannel> channels = new AtomicReferenceArray<>(FILES);
        for (int i = 0; i < FILES; i++) {
            channels.set(i, open(files.get(i)));
        }
        Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
        AtomicLong calls = new AtomicLong();
        AtomicLong checked = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<Thread> workers = new ArrayList<>();
        try (FileChannel out = UringFiles.newFileChannel(sink, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (int t = 0; t < 48; t++) {
                int seed = t;
                Runnable work = () -> {
                    Random rnd = new Random(seed);
                    ByteBuffer direct = ByteBuffer.allocateDirect(70_000);
                    ByteBuffer heap = ByteBuffer.allocate(70_000);
                    while (System.nanoTime() < end) {
                        int i = rnd.nextInt(FILES);
                        FileChannel c = channels.get(i);
                        if (!c.isOpen()) {
                            try {
                                FileChannel again = open(files.get(i));
                                if (!channels.compareAndSet(i, c, again)) {
                                    again.close();
                                }
                            } catch (ClosedChannelException e) {
                                // interrupted while it opened (ClosedByInterruptException): as the JDK's
                            } catch (Throwable e) {
                                unexpected.putIfAbsent("open: " + e, e);
                            }
                            Thread.interrupted();
                            continue;
                        }
                        ByteBuffer b = (rnd.nextBoolean() ? direct : heap).clear().limit(rnd.nextInt(1, 70_000));
                        long pos = rnd.nextInt(SIZE + 40_000);
                        int op = rnd.nextInt(11);
                        try {
                            call(op, c, b, pos, out, rnd, checked);
                            calls.incrementAndGet();
                        } catch (ClosedChannelException | OverlappingFileLockException
                                | FileLockInterruptionException e) {
                            // what the JDK's channel throws when another thread closes it or interrupts the caller,
                            // or when another thread of the JVM holds the range's lock
                        } catch (Throwable e) {
                            unexpected.putIfAbsent("op " + op + ": " + e, e);
                        }
                        Thread.interrupted();
                    }
                };
                workers.add(virtual ? Thread.ofVirtual().start(work) : Thread.ofPlatform().start(work));
            }
            Random rnd = new Random(99);
            while (System.nanoTime() < end) {
                Thread.sleep(0, 300_000);
                workers.get(rnd.nextInt(workers.size())).interrupt();
                if (rnd.nextInt(30) == 0) {
                    channels.get(rnd.nextInt(FILES)).close();
                }
            }
            for (Thread w : workers) {
                w.join(TimeUnit.SECONDS.toMillis(30));
                assertTrue(!w.isAlive(), () -> "a thread still waits: " + List.of(w.getStackTrace()));
            }
        }
        for (int i = 0; i < FILES; i++) {
            channels.get(i).close();
        }
        if (!unexpected.isEmpty()) {
            AssertionError e = new AssertionError("unexpected failures: " + unexpected.keySet());
            unexpected.values().forEach(e::addSuppressed);
            throw e;
        }
        assertTrue(calls.get() > 1000, "calls: " + calls);
        assertTrue(checked.get() > 100, "reads checked: " + checked);
        assertEquals(List.of(), Conform.fdsUnderWithin(dir, 10), "descriptors of the files left open");
    }

    private static FileChannel open(Path p) throws IOException {
        return UringFiles.newFileChannel(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    private static void call(int op, FileChannel c, ByteBuffer b, long pos, FileChannel out, Random rnd,
            AtomicLong checked) throws IOException {
        switch (op) {
            case 0 -> {
                int n = c.read(b, pos);
                for (int k = 0; k < n; k++) {
                    byte got = b.get(k);
                    if (got != 0 && got != at(pos + k)) {
                        throw new AssertionError("byte " + (pos + k) + " read as " + got + ", written as " + at(pos + k));
                    }
                }
                checked.incrementAndGet();
            }
            case 1 -> {
                for (int k = 0; k < b.limit(); k++) {
                    b.put(k, at(pos + k));
                }
                c.write(b, pos);
            }
            case 2 -> c.read(b);
            case 3 -> c.write(b.put(0, (byte) 0).limit(Math.min(b.limit(), 1)).position(0)); // a zero where it lands
            case 4 -> c.read(new ByteBuffer[] {b, ByteBuffer.allocate(100)});
            case 5 -> c.size();
            case 6 -> c.position(pos);
            case 7 -> {
                if (rnd.nextInt(20) == 0) {
                    c.truncate(SIZE + rnd.nextInt(40_000));
                }
            }
            case 8 -> {
                FileLock l = c.tryLock(pos, 10, false);
                if (l != null) {
                    l.release();
                }
            }
            case 9 -> c.transferTo(pos, 65_536 + rnd.nextInt(65_536), out);
            default -> {
                if (rnd.nextInt(10) == 0) {
                    c.force(false);
                } else {
                    c.lock(pos, 10, rnd.nextBoolean()).release();
                }
            }
        }
    }
}
