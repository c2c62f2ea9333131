package io.github.uring4j.file;

/** {@link AsyncFileStressContract} on the threads backend. */
class AsyncFileStressThreadsTest extends AsyncFileStressContract {
    @Override
    Backend backend() {
        return Backend.THREADS;
    }
}
