package io.github.uring4j.bench.common;

import java.nio.ByteBuffer;

/** Direct buffers as O_DIRECT wants them. */
public final class Buffers {

    private Buffers() {
    }

    /**
     * A direct buffer of exactly {@code size} bytes starting on a 4 KiB boundary. Its capacity is {@code size}, so
     * {@code clear()} can never make it larger than asked.
     */
    public static ByteBuffer alignedDirect(int size) {
        // alignedSlice also rounds the limit down to a multiple of the alignment: allocate whole pages plus one.
        int pages = (size + 4095) / 4096;
        return ByteBuffer.allocateDirect((pages + 1) * 4096).alignedSlice(4096).slice(0, size);
    }
}
