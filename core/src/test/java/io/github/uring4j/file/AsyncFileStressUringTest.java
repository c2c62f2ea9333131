package io.github.uring4j.file;

/** {@link AsyncFileStressContract} on io_uring event loops. */
class AsyncFileStressUringTest extends AsyncFileStressContract {
    @Override
    Backend backend() {
        return Backend.IO_URING;
    }
}
