package io.github.uring4j.file;

/** The AsyncFile contract on the thread-pool fallback. */
class AsyncFileThreadsTest extends AsyncFileContract {
    @Override
    Backend backend() {
        return Backend.THREADS;
    }
}
