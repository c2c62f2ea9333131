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
    final List<Task> runningTasks = new ArrayList<>(4);
    final ArrayDeque<Task> waiting = new ArrayDeque<>(4);
    /** Closed from the client's view while calls still run: the descriptor closes when the last one returns. */
    boolean closeWhenIdle;
    boolean descriptorClosed;

    /** The JDK's channel when the calls go through it (native access denied), else null. */
    final FileChannel channel;

    ThreadsFile(IoBackend backend, OpenSpec spec, int fd, FileChannel channel, int memAlign, int offAlign) {
        super(backend, spec, fd, memAlign, offAlign);
        this.channel = channel;
    }

    @Override
    public boolean isRegistered() {
        return false;
    }
}
