package io.github.uring4j.engine.threads;

import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.OpenSpec;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** A file of the threads backend: the calls running on workers and those waiting for the file's limit. Guarded by this. */
final class ThreadsFile extends FileHandle {
    int running;
    /** Running calls that change the file (writes, truncates, allocations): a sync waits for them (guarded by this). */
    int runningChanges;
    /**
     * The last ticket given to a change of the file ({@link Task#ticket}, guarded by this): a write-and-sync's sync
     * waits for the running changes with lower ones.
     */
    long changeTickets;
    final List<Task> runningTasks = new ArrayList<>(4);
    final ArrayDeque<Task> waiting = new ArrayDeque<>(4);
    /** Closed from the client's view while calls still run: the descriptor closes when the last one returns. */
    boolean closeWhenIdle;
    boolean descriptorClosed;
    /** The file's close, waiting for the calls still running to return (at most the close wait). */
    Task pendingClose;
    /**
     * The worker telling the client of the file's last call, which then closes the descriptor and ends the file's
     * close; null otherwise. That client's handler, closing the file, must not wait for the close: the thread that
     * ends it is its own.
     */
    volatile Thread closesAfterTelling;
    /**
     * How a read of a pipe, FIFO, socket or device waits without taking bytes it may not deliver
     * ({@link NativeCalls}): {@link #NOWAIT} until the descriptor refuses {@code RWF_NOWAIT}, then {@link #POLL},
     * and {@link #BLOCKING} when it cannot count its bytes either.
     */
    volatile int readiness;
    static final int NOWAIT = 0;
    static final int POLL = 1;
    static final int BLOCKING = 2;
    /** Held from the count of what the descriptor holds to the read of it, in {@link #POLL} mode. */
    final Object readLock = new Object();
    /** The same for writes: {@link #NOWAIT}, {@link #POLL} or {@link #BLOCKING}, by the same steps. */
    volatile int writeReadiness;
    /** Held from the look for room in the descriptor to the write that fills it, in {@link #POLL} mode. */
    final Object writeLock = new Object();

    /**
     * The status flags to set back ({@code F_SETFL}) once a call finds the descriptor is not seekable, when it was
     * opened with an {@code O_NONBLOCK} the caller did not ask for (so that the open could not block); else -1.
     */
    volatile int statusFlagsToRestore = -1;

    /** A call found the descriptor has no offsets and is no regular file: a pipe, FIFO, socket or device. */
    volatile boolean offsetless;

    /** The JDK's channel when the calls go through it (native access denied), else null. */
    final FileChannel channel;
    /**
     * {@link #channel} is a FIFO: it has no positions ({@code ESPIPE} for a positional call), so its reads and writes
     * are the channel's relative ones, as the kernel's calls at offset -1 are.
     */
    boolean fifo;
    /** A FIFO's second channel, for its writes, when {@link #channel} reads it too; else null. */
    FileChannel fifoWriter;

    /** The channel a FIFO's writes go through. */
    FileChannel fifoWriter() {
        return fifoWriter != null ? fifoWriter : channel;
    }

    ThreadsFile(IoBackend backend, OpenSpec spec, int fd, FileChannel channel, int memAlign, int offAlign) {
        super(backend, spec, fd, memAlign, offAlign);
        this.channel = channel;
    }

    @Override
    public boolean isRegistered() {
        return false;
    }
}
