package io.github.uring4j.file;

import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.Request;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR events for the file operations of {@link AsyncFile}, modelled on the JDK's {@code jdk.FileRead} and
 * {@code jdk.FileWrite}, so JDK Mission Control and {@code jfr print --events io.github.uring4j.FileRead} show
 * uring4j I/O beside the JDK's. An event spans the operation from the call to its completion. Nothing is allocated
 * unless a recording has the event enabled. A runtime image without the {@code jdk.jfr} module (made with
 * {@code jlink}, uring4j on its class path) has no events: the JFR types are named only in {@link Jfr}, which is then
 * never loaded.
 */
final class FileIoEvents {
    /** Whether this runtime has {@code jdk.jfr}. */
    private static final boolean JFR = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private FileIoEvents() {
    }

    /** What a completion needs to finish the event: the client's own target, and the event begun at the call. */
    record Traced(Object target, Object event, String path, String operation, String backend) {
    }

    /** The client's own target: ends the event first when the target carries one. */
    static Object finish(Object target, long value, Throwable error) {
        if (target instanceof Traced t) {
            Jfr.end(t, value, error);
            return t.target();
        }
        return target;
    }

    /**
     * Begins an event for {@code r} if a recording wants it, and wraps the request's target so its completion ends
     * it; otherwise leaves the request untouched (the usual case: one branch, no allocation).
     */
    static void begin(Request r, String backend) {
        if (JFR) {
            Jfr.begin(r, backend);
        }
    }

    /** The events themselves. */
    private static final class Jfr {
        @Name("io.github.uring4j.FileRead")
        @Label("uring4j File Read")
        @Category({"uring4j", "File I/O"})
        @Description("A read of a file through uring4j, from the call to its completion")
        @StackTrace(false)
        static final class FileRead extends Event {
            @Label("Path")
            String path;

            @Label("Operation")
            @Description("READ, READV")
            String operation;

            @Label("Bytes Read")
            @DataAmount
            long bytesRead;

            @Label("End of File")
            boolean endOfFile;

            @Label("Backend")
            @Description("io_uring or threads")
            String backend;
        }

        @Name("io.github.uring4j.FileWrite")
        @Label("uring4j File Write")
        @Category({"uring4j", "File I/O"})
        @Description("A write of a file through uring4j, from the call to its completion")
        @StackTrace(false)
        static final class FileWrite extends Event {
            @Label("Path")
            String path;

            @Label("Operation")
            @Description("WRITE, WRITEV, WRITE+FDATASYNC")
            String operation;

            @Label("Bytes Written")
            @DataAmount
            long bytesWritten;

            @Label("Backend")
            String backend;
        }

        @Name("io.github.uring4j.FileOperation")
        @Label("uring4j File Operation")
        @Category({"uring4j", "File I/O"})
        @Description("Any other file operation through uring4j (open, close, fsync, statx, ftruncate, ...)")
        @StackTrace(false)
        static final class FileOperation extends Event {
            @Label("Path")
            String path;

            @Label("Operation")
            String operation;

            @Label("Backend")
            String backend;
        }

        private static final FileRead READS = new FileRead();
        private static final FileWrite WRITES = new FileWrite();
        private static final FileOperation OTHERS = new FileOperation();

        static void begin(Request r, String backend) {
            Event e = switch (r.kind) {
                case Request.READ, Request.READV -> READS.isEnabled() ? new FileRead() : null;
                case Request.WRITE, Request.WRITEV, Request.WRITE_SYNC -> WRITES.isEnabled() ? new FileWrite() : null;
                default -> OTHERS.isEnabled() ? new FileOperation() : null;
            };
            if (e == null) {
                return;
            }
            e.begin();
            FileHandle h = r.handle;
            String path = h != null ? h.path : r.open != null ? r.open.path() : null;
            r.target = new Traced(r.target, e, path, r.name(), backend);
        }

        /** Ends and commits the event of a completed operation. */
        static void end(Traced t, long value, Throwable error) {
            Event e = (Event) t.event();
            e.end();
            if (!e.shouldCommit()) {
                return;
            }
            long bytes = error == null ? Math.max(0, value) : 0;
            if (e instanceof FileRead f) {
                f.path = t.path();
                f.operation = t.operation();
                f.bytesRead = bytes;
                f.endOfFile = error == null && value < 0;
                f.backend = t.backend();
            } else if (e instanceof FileWrite f) {
                f.path = t.path();
                f.operation = t.operation();
                f.bytesWritten = bytes;
                f.backend = t.backend();
            } else if (e instanceof FileOperation f) {
                f.path = t.path();
                f.operation = t.operation() + (error != null ? " (failed)" : "");
                f.backend = t.backend();
            }
            e.commit();
        }
    }
}
