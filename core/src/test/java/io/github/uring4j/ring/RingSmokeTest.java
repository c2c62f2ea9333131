package io.github.uring4j.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RingSmokeTest {
    @TempDir
    Path dir;

    @Test
    void nopAndReadRoundTrip() throws Exception {
        Path f = dir.resolve("data");
        byte[] content = new byte[8192];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7);
        }
        Files.write(f, content);
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            ring.nextSqe().nop().userData(11);
            assertEquals(1, ring.submitAndWait(1));
            List<long[]> got = new ArrayList<>();
            ring.reap((ud, res, fl) -> got.add(new long[] {ud, res}));
            assertEquals(1, got.size());
            assertEquals(11, got.get(0)[0]);

            MemorySegment path = arena.allocateFrom(f.toString());
            ring.nextSqe().openat(-100, path, 0, 0).userData(1);
            ring.submitAndWait(1);
            got.clear();
            ring.reap((ud, res, fl) -> got.add(new long[] {ud, res}));
            int fd = (int) got.get(0)[1];
            MemorySegment buf = arena.allocate(4096, 4096);
            ring.nextSqe().read(FileTarget.fd(fd), buf, 4096).userData(2);
            ring.submitAndWait(1);
            got.clear();
            ring.reap((ud, res, fl) -> got.add(new long[] {ud, res}));
            assertEquals(4096, got.get(0)[1]);
            for (int i = 0; i < 4096; i++) {
                assertEquals(content[4096 + i], buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i));
            }
            ring.nextSqe().close(fd).userData(3);
            ring.submitAndWait(1);
            got.clear();
            ring.reap((ud, res, fl) -> got.add(new long[] {ud, res}));
            assertEquals(0, got.get(0)[1]);
        }
    }
}
