/**
 * The JDK's file channels on io_uring: {@link io.github.uring4j.nio.UringFiles} opens a
 * {@link java.nio.channels.FileChannel} or {@link java.nio.channels.AsynchronousFileChannel} with the JDK's
 * semantics, and {@code UringFileSystemProvider}, named by the system property
 * {@code java.nio.file.spi.DefaultFileSystemProvider}, gives them to unchanged programs.
 */
package io.github.uring4j.nio;
