package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.ForwardingSyscalls;
import io.github.uring4j.ring.UringUnavailableException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Case 21 and the threads backend's own behaviour. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FallbackTest {
    @TempDir
    Path dir;

    static ForwardingSyscalls setupFails(int errno) {
        return new ForwardingSyscalls() {
            @Override
            public int ioUringSetup(int entries, MemorySegment params) {
                return -errno;
            }
        };
    }

    /** Case 21 (injected): EPERM, ENOSYS, ENOMEM from io_uring_setup select the threads backend, which works. */
    @ParameterizedTest(name = "errno {0}")
    @ValueSource(ints = {Errno.EPERM, Errno.ENOSYS, Errno.ENOMEM})
    void case21SetupFailureFallsBackToThreads(int errno) throws Exception {
        Path p = dir.resolve("fb");
        Files.write(p, "fallback".getBytes());
        try (IoExecutor io = IoExecutor.builder().syscalls(setupFails(errno)).build()) {
            assertEquals(Backend.THREADS, io.backend());
            String why = io.fallbackReason().orElseThrow();
            assertTrue(why.contains(Errno.name(errno)), why);
            assertTrue(why.contains("backend=threads") || errno == Errno.ENOMEM, why);
            if (errno == Errno.EPERM) {
                assertTrue(why.contains("seccomp") || why.contains("io_uring_disabled"), why);
            }
            try (AsyncFile f = get(AsyncFile.open(io, p))) {
                ByteBuffer b = ByteBuffer.allocate(8);
                assertEquals(8, get(f.read(b, 0)));
                assertEquals("fallback", new String(b.array()));
            }
        }
    }

    /** Case 21: with backend IO_URING the failure is an exception naming cause and fix, not a fallback. */
    @Test
    void case21ExplicitIoUringThrowsWithCauseAndFix() {
        UringUnavailableException e = assertThrows(UringUnavailableException.class,
                () -> IoExecutor.builder().backend(Backend.IO_URING).syscalls(setupFails(Errno.EPERM)).build());
        assertTrue(e.getMessage().contains("EPERM"), e.getMessage());
        assertTrue(e.getMessage().contains("uring4j.backend=threads"), e.getMessage());
    }

    @Test
    void backendPropertyValues() {
        assertEquals(Backend.AUTO, Backend.parse(null));
        assertEquals(Backend.AUTO, Backend.parse("auto"));
        assertEquals(Backend.IO_URING, Backend.parse("io_uring"));
        assertEquals(Backend.THREADS, Backend.parse(" Threads "));
        assertThrows(IllegalArgumentException.class, () -> Backend.parse("aio"));
    }

    /** Case 3 on the threads backend with a real short pread/pwrite from the syscall layer (injected). */
    @Test
    void case3ShortPreadAndPwriteAreFinished() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ForwardingSyscalls shortIo = new ForwardingSyscalls() {
            @Override
            public long pread(int fd, MemorySegment buf, long count, long offset) {
                calls.incrementAndGet();
                return super.pread(fd, buf, Math.min(count, 777), offset);
            }

            @Override
            public long pwrite(int fd, MemorySegment buf, long count, long offset) {
                calls.incrementAndGet();
                return super.pwrite(fd, buf, Math.min(count, 777), offset);
            }
        };
        byte[] data = TestFiles.pattern(50_000, 21);
        Path p = dir.resolve("shortio");
        try (IoExecutor io = IoExecutor.builder().backend(Backend.THREADS).syscalls(shortIo).build();
                AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE))) {
            assertEquals(data.length, get(f.writeFully(ByteBuffer.wrap(data), 3)));
            ByteBuffer back = ByteBuffer.allocate(data.length);
            assertEquals(data.length, get(f.readFully(back, 3)));
            assertEquals(ByteBuffer.wrap(data), back.flip());
        }
        assertTrue(calls.get() >= 2 * (50_000 / 777), "calls: " + calls.get());
    }

    /** Threads backend: a cancelled operation that has not started (waiting behind its file's limit) never runs. */
    @Test
    void threadsCancelOfQueuedOperationSkipsIt() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoQ");
        try (IoExecutor io = IoExecutor.builder().backend(Backend.THREADS).threads(1).build();
                AsyncFile pipe = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            var blocker = pipe.read(ByteBuffer.allocate(1), 0); // the file's one running call
            var w = pipe.write(ByteBuffer.wrap("XXXX".getBytes()), 0); // waits behind it
            assertTrue(w.cancel(true));
            try (var ch = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {1}));
                assertEquals(1, get(blocker));
                get(pipe.size()); // runs after the cancelled write's turn
                ch.write(ByteBuffer.wrap("M".getBytes()));
                ByteBuffer next = ByteBuffer.allocate(1);
                assertEquals(1, ch.read(next));
                assertEquals('M', next.get(0), "the cancelled write must not have run");
            }
        }
    }

    /**
     * Threads backend: close() of the executor does not hang on a call that never returns (a read on an empty
     * pipe): the call's future fails, the file reports closed, the call gives up within a wait slice of being told
     * and its descriptor closes then, and bytes written to the pipe after it are not taken by it. (The test once
     * wrote through a write-only open of the FIFO, which blocks for ever once the reader's descriptor is closed: it
     * hung in CI when the call gave up first.)
     */
    @Test
    void threadsCloseFailsACallThatNeverReturnsAndClosesItsFileAfterIt() throws Exception {
        Path fifo = TestFiles.fifo(dir, "fifoStuck");
        Path other = dir.resolve("other");
        Files.write(other, new byte[1]);
        IoExecutor io = IoExecutor.builder().backend(Backend.THREADS).threads(2).build();
        AsyncFile pipe = get(AsyncFile.open(io, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
        AsyncFile f = get(AsyncFile.open(io, other));
        var stuck = pipe.read(ByteBuffer.allocate(1), 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (io.inFlight() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        io.close(); // gives running calls uring4j.threads.closeWaitMillis (2 s), then returns
        assertTrue(stuck.isDone(), "the stuck call's future fails when close() returns");
        assertInstanceOf(java.nio.channels.AsynchronousCloseException.class, TestFiles.failure(stuck));
        assertFalse(f.isOpen(), "idle files are closed");
        assertFalse(pipe.isOpen(), "the file reports closed");
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (TestFiles.fdTargets().stream().anyMatch(l -> l.endsWith("/fifoStuck"))
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertFalse(TestFiles.fdTargets().stream().anyMatch(l -> l.endsWith("/fifoStuck")),
                "the descriptor closes once the call gave up");
        // A read-write open of a FIFO never blocks, whoever else has it open.
        try (var ch = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {42}));
            ByteBuffer back = ByteBuffer.allocate(1);
            assertEquals(1, ch.read(back));
            assertEquals(42, back.get(0), "the byte written after the close is still in the pipe");
        }
    }
}
