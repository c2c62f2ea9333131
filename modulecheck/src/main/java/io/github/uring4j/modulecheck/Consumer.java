package io.github.uring4j.modulecheck;

import io.github.uring4j.ErrnoException;
import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.At;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.OpenFlag;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** What a module-path user writes: the ring API and the async API, through exported packages only. */
public final class Consumer {
    private Consumer() {
    }

    /** Reads the first {@code n} bytes of {@code file} through a ring: open, read and close as three operations. */
    public static byte[] readWithRing(Path file, int n) throws IOException {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.nextSqe().openat(At.FDCWD, arena.allocateFrom(file.toString()), OpenFlag.RDONLY | OpenFlag.CLOEXEC, 0)
                    .userData(1);
            ring.submitAndWait(1);
            int[] fd = {-1};
            ring.reap((userData, res, flags) -> fd[0] = res);
            if (fd[0] < 0) {
                throw new ErrnoException("OPEN", -fd[0]);
            }
            MemorySegment buf = arena.allocate(n, 4096);
            ring.nextSqe().read(FileTarget.fd(fd[0]), buf, 0).userData(2);
            ring.nextSqe().close(fd[0]).userData(3);
            ring.submitAndWait(2);
            int[] read = {-1};
            ring.reap((userData, res, flags) -> {
                if (userData == 2) {
                    read[0] = res;
                }
            });
            if (read[0] < 0) {
                throw new ErrnoException("READ", -read[0]);
            }
            return buf.asSlice(0, read[0]).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Reads the first {@code n} bytes of {@code file} with AsyncFile into a pooled buffer. */
    public static byte[] readWithAsyncFile(Path file, int n) throws IOException {
        try (IoExecutor io = IoExecutor.builder().loops(1).build();
                BufferPool pool = BufferPool.builder().bufferSize(n).count(1).register(io).build();
                AsyncFile f = AsyncFile.open(io, file, StandardOpenOption.READ).join()) {
            MemorySegment buf = pool.acquire();
            int got = f.read(buf.asSlice(0, n), 0).join();
            byte[] out = buf.asSlice(0, Math.max(0, got)).toArray(ValueLayout.JAVA_BYTE);
            pool.release(buf);
            return out;
        }
    }
}
