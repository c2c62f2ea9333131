package io.github.uring4j.bench.iops;

import java.nio.file.Path;
import java.util.List;

/** A validated {@code iops} configuration. */
record IopsConfig(int blockSize, int depth, int submitBatch, int completeBatch, boolean polled, boolean fixedBuffers,
        boolean registeredFiles, boolean direct, boolean random, int threads, int runtimeSeconds, Engine engine,
        boolean write, int verify, int setupFlags, List<Target> targets) {

    record Target(Path path, long size) {
        long blocks(int blockSize) {
            return size / blockSize;
        }
    }

    String describe() {
        return engine.label + ", " + (write ? "write" : "read") + ", bs=" + blockSize
                + ", depth=" + (engine.queued() ? depth : 1)
                + (engine == Engine.RING ? ", batch=" + submitBatch + "/" + completeBatch : "")
                + ", " + (random ? "random" : "sequential") + ", " + (direct ? "O_DIRECT" : "buffered")
                + (engine == Engine.RING
                        ? ", fixedbufs=" + fixedBuffers + ", regfiles=" + registeredFiles + ", polled=" + polled : "")
                + ", threads=" + threads;
    }
}
