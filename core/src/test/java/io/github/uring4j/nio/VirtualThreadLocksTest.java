package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A virtual thread's {@code lock} that no other process stands in the way of is taken without the JDK's compensated
 * block, which may start carrier threads beyond the cores (and with them, calls preempted on a crowded machine that
 * look like writes the kernel made wait).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VirtualThreadLocksTest {
    @TempDir
    Path tmp;

    /** In a fresh JVM (no carriers left by other tests): 200 virtual threads locking regions of their own. */
    @Test
    void uncontendedLocksOfVirtualThreadsAddNoCarriers() throws Exception {
        Conform.Child child = Conform.runJava(List.of(), ManyLockers.class, tmp.resolve("locked").toString());
        String text = child.output();
        assertTrue(child.ended(), "child still running");
        assertEquals(0, child.exit(), text);
        String last = text.lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("LOCKS 20000 CARRIERS "), text);
        String[] f = last.split(" ");
        int carriers = Integer.parseInt(f[3]);
        int cores = Integer.parseInt(f[5]);
        assertTrue(carriers <= cores, carriers + " carrier threads ran the lockers on " + cores + " cores: " + text);
    }

    /** The child of the test above: prints the locks taken, the carriers that ran the lockers, and the cores. */
    public static final class ManyLockers {
        public static void main(String[] args) throws Exception {
            Set<String> carriers = ConcurrentHashMap.newKeySet();
            int[] taken = new int[200];
            try (FileChannel ch = UringFiles.newFileChannel(Path.of(args[0]), StandardOpenOption.CREATE,
                    StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                List<Thread> lockers = new ArrayList<>();
                for (int t = 0; t < 200; t++) {
                    int me = t;
                    lockers.add(Thread.ofVirtual().start(() -> {
                        try {
                            for (int i = 0; i < 100; i++) {
                                try (FileLock l = ch.lock(me * 100L, 10, i % 2 == 0)) {
                                    taken[me] += l.isValid() ? 1 : 0;
                                }
                                // "VirtualThread[#22]/runnable@ForkJoinPool-1-worker-1": the carrier after the @
                                String self = Thread.currentThread().toString();
                                carriers.add(self.substring(self.indexOf('@') + 1));
                            }
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }));
                }
                for (Thread t : lockers) {
                    t.join();
                }
            }
            System.out.println("LOCKS " + java.util.Arrays.stream(taken).sum() + " CARRIERS " + carriers.size()
                    + " CORES " + Runtime.getRuntime().availableProcessors() + " " + carriers);
        }
    }
}
