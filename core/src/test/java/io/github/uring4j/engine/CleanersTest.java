package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.nio.UringFiles;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dropped channel's descriptor is closed while the release of a dropped executor or pool is under way: those take
 * milliseconds each, and a program that dropped them by the thousand held back every dropped file on the one cleaner
 * thread until it ran out of descriptors (a hostile probe).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CleanersTest {
    @TempDir
    Path dir;

    @Test
    void aDroppedChannelIsClosedWhileASlowReleaseIsUnderWay() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        dropWithSlowRelease(busy, release);
        try {
            for (int i = 0; i < 500 && busy.getCount() > 0; i++) {
                System.gc();
                busy.await(10, TimeUnit.MILLISECONDS);
            }
            assertTrue(busy.getCount() == 0, "the slow release never started");
            Path f = Files.write(dir.resolve("dropped"), new byte[] {1, 2, 3});
            dropChannel(f);
            boolean closed = false;
            for (int i = 0; i < 500 && !closed; i++) {
                System.gc();
                Thread.sleep(10);
                closed = !descriptorOf(f);
            }
            assertTrue(closed, "the dropped channel's descriptor waited behind the slow release");
        } finally {
            release.countDown();
        }
    }

    /** Registers, with the cleaner of executors and pools, an object dropped at once whose release waits. */
    private static void dropWithSlowRelease(CountDownLatch busy, CountDownLatch release) {
        Cleaners.EXECUTORS.register(new Object(), () -> {
            busy.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static void dropChannel(Path f) throws Exception {
        FileChannel ch = UringFiles.newFileChannel(f, StandardOpenOption.READ);
        assertTrue(ch.size() == 3 && descriptorOf(f));
    }

    private static boolean descriptorOf(Path f) throws Exception {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.anyMatch(p -> {
                try {
                    return Files.readSymbolicLink(p).equals(f);
                } catch (java.io.IOException e) {
                    return false; // closed meanwhile
                }
            });
        }
    }
}
