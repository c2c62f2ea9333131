/**
 * Asynchronous file I/O on io_uring: {@link io.github.uring4j.file.IoExecutor} (event loops, each a thread with
 * its own ring, or a thread-pool fallback where io_uring cannot be used), {@link io.github.uring4j.file.AsyncFile}
 * (positional reads and writes, fsync, statx, fallocate, fadvise, sync_file_range, linked write&rarr;fdatasync;
 * each as a {@link java.util.concurrent.CompletableFuture} or with a zero-allocation
 * {@link java.nio.channels.CompletionHandler}), {@link io.github.uring4j.file.BufferPool} (aligned, optionally
 * registered buffers) and the exceptions they report.
 *
 * <pre>{@code
 * try (AsyncFile f = AsyncFile.open(path, StandardOpenOption.READ).join()) {
 *     ByteBuffer b = ByteBuffer.allocateDirect(4096);
 *     f.read(b, 0).thenAccept(n -> System.out.println(n + " bytes")).join();
 * }
 * }</pre>
 *
 * <h2>When to use it</h2>
 * For event-driven code and for servers on virtual threads that want the kernel's fastest file I/O with typed
 * errors and no way to crash the JVM. The expert {@link io.github.uring4j.ring} API is one layer down.
 *
 * <h2>Threads</h2>
 * Completions run on the executor's loop threads (or the workers of the thread-pool backend): keep them short,
 * never block in them; {@code join()} on a loop thread fails at once. Operations may be started from any thread.
 *
 * <h2>Memory</h2>
 * The kernel is never given memory that may be freed before the operation ends: see {@link io.github.uring4j.file.AsyncFile}
 * for which memory goes to the kernel directly and which is copied.
 *
 * <p>The backend is chosen with {@link io.github.uring4j.file.IoExecutor.Builder#backend} or, for the default
 * executor, the system property {@code uring4j.backend=auto|io_uring|threads}.
 */
package io.github.uring4j.file;
