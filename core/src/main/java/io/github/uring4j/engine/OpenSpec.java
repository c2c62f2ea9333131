package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * How to open a file: the {@code open(2)} flags and what the engine must know beside them.
 *
 * @param path          absolute path
 * @param cPath         the path as a NUL-terminated string in memory the library keeps alive
 * @param flags         {@code O_*} flags, {@code O_CLOEXEC} included
 * @param readable      reads are allowed (the access mode)
 * @param writable      writes are allowed
 * @param direct        {@code O_DIRECT}: transfers must be aligned
 * @param registered    also place the file in the ring's registered-file table (io_uring only)
 * @param deleteOnClose unlink the path when the file is closed
 */
public record OpenSpec(String path, MemorySegment cPath, int flags, boolean readable, boolean writable,
        boolean direct, boolean registered, boolean deleteOnClose) {

    public static OpenSpec of(String path, int flags, boolean readable, boolean writable, boolean direct,
            boolean registered, boolean deleteOnClose) {
        return new OpenSpec(path, Arena.ofAuto().allocateFrom(path), flags, readable, writable, direct, registered,
                deleteOnClose);
    }
}
