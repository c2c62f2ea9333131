package io.github.uring4j.file;

/** The AsyncFile contract on io_uring event loops. */
class AsyncFileUringTest extends AsyncFileContract {
    @Override
    Backend backend() {
        return Backend.IO_URING;
    }
}
