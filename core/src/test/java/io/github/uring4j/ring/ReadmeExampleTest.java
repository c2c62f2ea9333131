package io.github.uring4j.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's ring example, as written there (with a temporary file instead of /etc/hostname). */
class ReadmeExampleTest {
    @TempDir
    Path dir;

    @Test
    void readmeExampleRuns() throws Exception {
        Path file = dir.resolve("hostname");
        Files.writeString(file, "uring4j-host\n");
        Map<Long, Integer> results = new HashMap<>();
        try (Arena arena = Arena.ofConfined();
                IoUring ring = IoUring.open(IoUring.options().entries(64).flags(SetupFlag.SINGLE_ISSUER))) {
            ring.nextSqe().openat(At.FDCWD, arena.allocateFrom(file.toString()), OpenFlag.RDONLY | OpenFlag.CLOEXEC, 0)
                    .userData(1);
            ring.submitAndWait(1);
            int[] fd = {-1};
            ring.reap((userData, res, flags) -> fd[0] = res);
            if (fd[0] < 0) {
                throw new io.github.uring4j.ErrnoException("OPEN", -fd[0]);
            }
            assertTrue(fd[0] >= 0);

            MemorySegment buf = arena.allocate(4096, 4096);
            ring.nextSqe().read(FileTarget.fd(fd[0]), buf, 0).userData(2);
            ring.nextSqe().close(fd[0]).userData(3);
            ring.submitAndWait(2);
            while (results.size() < 2) {
                ring.reap((userData, res, flags) -> results.put(userData, res));
            }
            assertEquals(13, results.get(2L));
            assertEquals(0, results.get(3L));
            assertEquals("uring4j-host\n", new String(buf.asSlice(0, 13).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8));
        }
    }
}
