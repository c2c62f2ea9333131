/**
 * The JDK's file channels on io_uring: {@link io.github.uring4j.nio.UringFiles} opens a
 * {@link java.nio.channels.FileChannel} or {@link java.nio.channels.AsynchronousFileChannel} with the JDK's
 * semantics, and {@code UringFileSystemProvider}, named by the system property
 * {@code java.nio.file.spi.DefaultFileSystemProvider}, gives them to unchanged programs.
 *
 * <h2>Drop-in for unchanged programs</h2>
 * {@link io.github.uring4j.nio.UringFileSystemProvider} becomes the default file system's provider when the JVM
 * starts with the system property set and uring4j where the JDK can load it. On the class path:
 * <pre>
 * java --enable-native-access=ALL-UNNAMED \
 *      -Djava.nio.file.spi.DefaultFileSystemProvider=io.github.uring4j.nio.UringFileSystemProvider \
 *      -cp app.jar:uring4j-core-0.1.0-SNAPSHOT.jar app.Main
 * </pre>
 * On the module path the JDK does not resolve a module for this property by itself: add it with
 * {@code --add-modules io.github.uring4j.core} (the application need not require it), whether the application is
 * a module too
 * <pre>
 * java --enable-native-access=io.github.uring4j.core \
 *      -Djava.nio.file.spi.DefaultFileSystemProvider=io.github.uring4j.nio.UringFileSystemProvider \
 *      --add-modules io.github.uring4j.core -p mods -m app/app.Main
 * </pre>
 * ({@code mods} holding {@code app.jar} and {@code uring4j-core-0.1.0-SNAPSHOT.jar}) or on the class path:
 * <pre>
 * java --enable-native-access=io.github.uring4j.core \
 *      -Djava.nio.file.spi.DefaultFileSystemProvider=io.github.uring4j.nio.UringFileSystemProvider \
 *      --add-modules io.github.uring4j.core -p uring4j-core-0.1.0-SNAPSHOT.jar -cp app.jar app.Main
 * </pre>
 * Every JVM started with the property needs uring4j where it can load it, or it fails with a
 * {@code java.lang.Error} at its first file operation: a child process or tool that inherits the property (through
 * {@code JAVA_TOOL_OPTIONS}, say) needs the same flags.
 * <p>
 * Then {@code FileChannel.open}, {@code Files.newByteChannel}, {@code Files.readAllBytes}, {@code readString},
 * {@code lines}, {@code AsynchronousFileChannel.open}, and {@code Files.newInputStream}, {@code newOutputStream}
 * and what is built on them ({@code newBufferedReader}, {@code newBufferedWriter}, {@code write},
 * {@code writeString}, {@code readAllLines}, {@code copy} to or from a stream, {@code mismatch}) open their files
 * through {@link io.github.uring4j.nio.UringFiles}. Everything else is the JDK's built-in provider's, unchanged.
 * {@code RandomAccessFile}, {@code FileInputStream} and {@code FileOutputStream} never reach a provider.
 * <p>
 * In a fresh JVM the provider first links its native calls, on a thread of its own (the FFM linker's first use: a
 * tenth of a second, more beside a busy program). Meanwhile the calls of {@code Files} that open a file, move its
 * bytes and close it before they return ({@code readAllBytes}, {@code readString}, {@code readAllLines},
 * {@code write}, {@code writeString}, {@code copy} to or from a stream, {@code mismatch}) are served by the JDK's own
 * channels and streams instead of waiting; they are counted in
 * {@link io.github.uring4j.nio.DropInStatistics#jdkWhileLinking()}. A channel or stream the program keeps is always
 * uring4j's (its open waits for what is left of the links). {@code -During4j.whileLinking=wait} makes the
 * whole-file calls wait too.
 *
 * <h2>Where it differs from the JDK</h2>
 * <ul>
 * <li>{@code Files.copy} between two paths stays on the built-in provider (which copies in the kernel). The
 *     channels of a {@code SecureDirectoryStream} (opened relative to its directory) and the input stream of a
 *     directory are the JDK's own; the streams of a FIFO or a device are this provider's and never seek, as the
 *     JDK's do.</li>
 * <li>Interrupts: the JDK keeps an interrupt from closing its channel behind {@code Files.readAllBytes},
 *     {@code readString} and the streams of {@code newInputStream} and {@code newOutputStream} (so also
 *     {@code write}, {@code writeString}, {@code readAllLines}). The provider does the same for a channel that can
 *     be told to ignore interrupts; with any other it clears the caller's interrupt flag around each call and sets it
 *     again after, which keeps an interrupt made before the call from failing it, but an interrupt that arrives while
 *     the call is in progress closes the channel and the call throws {@code ClosedByInterruptException}. Channels
 *     from {@code FileChannel.open} and {@code Files.newByteChannel} stay interruptible, as the JDK's are.</li>
 * <li>Paths made before the provider was installed (early in the JVM's start-up) are the built-in ones: the
 *     provider takes them wherever it takes a path, but they are not {@code equals} to its own, and their
 *     {@code toFile()} fails, as the JDK's {@code Path.toFile} does for a path of a file system that is not the
 *     default.</li>
 * <li>Unix domain sockets: {@code java.net.UnixDomainSocketAddress.of} accepts only paths of the JDK's own file
 *     system, so it throws {@code IllegalArgumentException} while another provider is the default.</li>
 * </ul>
 */
package io.github.uring4j.nio;
