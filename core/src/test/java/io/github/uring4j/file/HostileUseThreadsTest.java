package io.github.uring4j.file;

/** {@link HostileUseContract} on the thread-pool backend. */
class HostileUseThreadsTest extends HostileUseContract {
    @Override
    Backend backend() {
        return Backend.THREADS;
    }
}
