package io.github.uring4j.file;

/** {@link HostileUseContract} on io_uring event loops. */
class HostileUseUringTest extends HostileUseContract {
    @Override
    Backend backend() {
        return Backend.IO_URING;
    }
}
