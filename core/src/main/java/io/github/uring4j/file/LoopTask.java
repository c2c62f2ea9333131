package io.github.uring4j.file;

/** Work that must run on an event loop's thread (the ring belongs to it): registration and the like. */
@FunctionalInterface
interface LoopTask {
    void run(UringLoop loop) throws Exception;
}
