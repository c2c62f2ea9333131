package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import io.github.uring4j.engine.Jmx;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What a running program shows of uring4j: JFR events per file operation, and each executor as an MXBean. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ObservabilityTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    void fileOperationsAreJfrEvents(Backend backend) throws Exception {
        Path p = dir.resolve("jfr-" + backend);
        Path dump = dir.resolve("rec-" + backend + ".jfr");
        try (Recording rec = new Recording();
                IoExecutor io = IoExecutor.builder().backend(backend).loops(1).build()) {
            rec.enable("io.github.uring4j.FileRead").withoutThreshold();
            rec.enable("io.github.uring4j.FileWrite").withoutThreshold();
            rec.enable("io.github.uring4j.FileOperation").withoutThreshold();
            rec.start();
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE))) {
                assertEquals(5000, get(f.writeFully(ByteBuffer.wrap(new byte[5000]), 0)));
                assertEquals(4096, get(f.read(ByteBuffer.allocateDirect(4096), 0)));
                assertEquals(-1, get(f.read(ByteBuffer.allocateDirect(10), 5000)));
                get(f.force(true));
            }
            rec.stop();
            rec.dump(dump);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(dump);
        String name = backend == Backend.IO_URING ? "io_uring" : "threads";
        RecordedEvent write = one(events, "io.github.uring4j.FileWrite", "WRITE");
        assertEquals(5000, write.getLong("bytesWritten"));
        assertEquals(p.toAbsolutePath().toString(), write.getString("path"));
        assertEquals(name, write.getString("backend"));
        assertTrue(write.getDuration().toNanos() > 0, "an event spans the operation");
        RecordedEvent read = events.stream().filter(e -> e.getEventType().getName().equals("io.github.uring4j.FileRead")
                && e.getLong("bytesRead") == 4096).findFirst().orElseThrow(() -> new AssertionError(events.toString()));
        assertFalse(read.getBoolean("endOfFile"));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.github.uring4j.FileRead")
                && e.getBoolean("endOfFile")), "a read at the end of the file says so");
        one(events, "io.github.uring4j.FileOperation", "FSYNC");
        one(events, "io.github.uring4j.FileOperation", "OPEN");
        one(events, "io.github.uring4j.FileOperation", "CLOSE");
    }

    private static RecordedEvent one(List<RecordedEvent> events, String type, String operation) {
        return events.stream().filter(e -> e.getEventType().getName().equals(type)
                && operation.equals(e.getString("operation"))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " " + operation + " in " + events));
    }

    /** A stand-in for a bean of other code (another class loader's copy of uring4j) under an executor's name. */
    public interface ForeignMBean {
        int getAnswer();
    }

    /**
     * An executor whose name another bean holds already: it says it has no JMX name, and its close leaves the other
     * bean registered (it unregistered it, while the other executor went on: a hostile probe's two class loaders).
     */
    @org.junit.jupiter.api.Test
    void anExecutorUnregistersOnlyTheBeanItRegistered() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName taken = new ObjectName("io.github.uring4j:type=IoExecutor,name=" + ObjectName.quote("taken-name"));
        server.registerMBean(new javax.management.StandardMBean((ForeignMBean) () -> 42, ForeignMBean.class), taken);
        try {
            try (IoExecutor io = IoExecutor.builder().loops(1).name("taken-name").build()) {
                assertTrue(io.jmxName().isEmpty(), "the name is another bean's: " + io.jmxName());
            }
            Jmx.settle();
            assertTrue(server.isRegistered(taken), "the other bean is still there");
            assertEquals(42, server.getAttribute(taken, "Answer"));
            IoExecutor closed;
            try (IoExecutor io = IoExecutor.builder().loops(1).name("free-name").build()) {
                assertTrue(io.jmxName().isPresent());
                closed = io;
            }
            assertTrue(closed.jmxName().isEmpty(), "a closed executor has no bean");
        } finally {
            server.unregisterMBean(taken);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    void executorsAreMxBeans(Backend backend) throws Exception {
        Path p = dir.resolve("jmx");
        Files.write(p, new byte[8192]);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName on;
        try (IoExecutor io = IoExecutor.builder().backend(backend).loops(1).callerReads(false).name("jmx-" + backend)
                .build()) {
            on = new ObjectName(io.jmxName().orElseThrow());
            Jmx.settle(); // registered off the caller's path
            assertTrue(server.isRegistered(on));
            try (AsyncFile f = get(AsyncFile.open(io, p))) {
                for (int i = 0; i < 10; i++) {
                    get(f.read(ByteBuffer.allocateDirect(4096), 0));
                }
            }
            try (AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.WRITE))) {
                get(f.write(ByteBuffer.allocateDirect(4096), 0));
                get(f.force(false));
            }
            assertEquals(0L, server.getAttribute(on, "FixedBufferOperations"), "no pool registered yet");
            try (BufferPool pool = BufferPool.builder().bufferSize(4096).count(2).register(io).build();
                    AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
                ByteBuffer b = pool.acquireBuffer();
                get(f.write(b, 0));
                get(f.read(b.clear(), 4096));
                pool.release(b);
            }
            long fixed = (Long) server.getAttribute(on, "FixedBufferOperations");
            if (backend == Backend.THREADS) {
                assertEquals(0L, fixed);
            } else {
                // the read through the ring (the write may be made by the loop itself: a buffered write on ext4)
                assertTrue(fixed >= 1, "fixed-buffer operations: " + fixed);
            }
            assertEquals(backend.name(), server.getAttribute(on, "Backend"));
            assertEquals("jmx-" + backend, server.getAttribute(on, "Name"));
            assertTrue((Long) server.getAttribute(on, "Completed") >= 10, "completed: " + server.getAttribute(on, "Completed"));
            assertEquals(0, server.getAttribute(on, "InFlight"));
            assertEquals(0, server.getAttribute(on, "Queued"));
            assertEquals(0L, server.getAttribute(on, "CqOverflows"));
            assertTrue((Integer) server.getAttribute(on, "Threads") >= 1);
            assertEquals(backend == Backend.THREADS, !((String) server.getAttribute(on, "FallbackReason")).isEmpty());
            assertTrue((Boolean) server.getAttribute(on, "Open"));
            long loopCalls = (Long) server.getAttribute(on, "LoopCalls");
            long slow = (Long) server.getAttribute(on, "SlowLoopCalls");
            if (backend == Backend.THREADS) {
                assertEquals(0L, loopCalls);
            } else {
                // the idle loop makes the sync itself (and on ext4 or tmpfs the write too)
                assertTrue(loopCalls >= 1, "calls made by the loop: " + loopCalls);
            }
            assertTrue(slow >= 0 && slow <= loopCalls, slow + " slow of " + loopCalls);
        }
        Jmx.settle();
        assertFalse(server.isRegistered(on), "closing the executor unregisters it");
    }
}
