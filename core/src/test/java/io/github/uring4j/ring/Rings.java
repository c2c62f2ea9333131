package io.github.uring4j.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Syscalls;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/** Small helpers shared by the ring tests. */
final class Rings {
    private Rings() {
    }

    /** A completion as reaped. */
    record Cqe(long userData, int res, int flags) {
    }

    /** Submits what is prepared and returns the single completion that follows. */
    static Cqe one(IoUring ring) throws UringException {
        Map<Long, Cqe> all = all(ring, 1);
        assertEquals(1, all.size());
        return all.values().iterator().next();
    }

    /** Submits what is prepared and waits for exactly {@code n} completions, keyed by user data (each seen once). */
    static Map<Long, Cqe> all(IoUring ring, int n) throws UringException {
        ring.submit();
        Map<Long, Cqe> got = new LinkedHashMap<>();
        while (got.size() < n) {
            ring.submitAndWait(1);
            ring.reap((ud, res, fl) -> {
                Cqe prev = got.put(ud, new Cqe(ud, res, fl));
                assertTrue(prev == null, "user_data " + ud + " completed twice");
            });
        }
        assertEquals(n, got.size());
        return got;
    }

    static int open(Path p, int flags, int mode) {
        try (Arena a = Arena.ofConfined()) {
            int fd = Syscalls.system().open(a.allocateFrom(p.toString()), flags, mode);
            assertTrue(fd >= 0, "open " + p + " -> " + fd);
            return fd;
        }
    }

    static void close(int fd) {
        assertEquals(0, Syscalls.system().close(fd));
    }

    static int[] pipe() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fds = a.allocate(8);
            assertEquals(0, Syscalls.system().pipe2(fds, 02000000));
            return new int[] {fds.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0),
                fds.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 1)};
        }
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed * 17 + (i >>> 8));
        }
        return b;
    }

    static byte[] bytes(MemorySegment s) {
        return s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    static long countFds(String contains) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return contains == null || Files.readSymbolicLink(p).toString().contains(contains);
                } catch (IOException e) {
                    return false; // the directory's own fd, closed while listing
                }
            }).count();
        }
    }

    static long countMaps(String contains) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(contains)).count();
    }
}
