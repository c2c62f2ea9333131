package io.github.uring4j.engine;

import java.io.IOException;

/**
 * Turns the engine's failures into the exceptions a client promises: the file API and the JDK channels describe
 * the same {@code errno} differently. The engine knows the facts (errno, operation, file, offset); the client
 * chooses the type.
 */
public interface ErrorMapper {
    /** {@code errno} (positive) during {@code operation} ({@code "READ"}, {@code "OPEN"}, ...); offset -1 when none. */
    IOException error(int errno, String operation, String path, long offset, boolean direct);

    /**
     * The {@code fdatasync} of a write-and-sync failed after its write had moved all {@code written} bytes from
     * {@code offset} (-1 when none): the bytes are in the file, not known to be on the device.
     */
    default IOException syncAfterWrite(int errno, String path, long offset, long written) {
        return error(errno, "FDATASYNC after a WRITE of " + written + " bytes", path, offset, false);
    }

    /**
     * {@code errno} during a transfer that moves all its bytes in pieces, after its first {@code done} of
     * {@code total} bytes moved; {@code offset} is where the transfer began (-1 when none); {@code bufferMoved} when
     * the client gave a {@code ByteBuffer}, whose position moved past them.
     */
    default IOException errorAfter(int errno, String operation, String path, long offset, boolean direct, long done,
            long total, boolean bufferMoved) {
        return error(errno, operation, path, offset < 0 ? -1 : offset + done, direct);
    }

    /** A write the kernel accepted without writing a byte. */
    IOException zeroWrite(String operation, String path, long offset);

    /** A read that had to fill its buffer met the end of the file. */
    IOException endOfFile(String path, long offset, long done, long wanted);
}
