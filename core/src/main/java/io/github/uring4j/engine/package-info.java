/**
 * The engine under every face (not exported): a client (the file API, the JDK channels) fills a
 * {@link io.github.uring4j.engine.Request} for a {@link io.github.uring4j.engine.FileHandle}, submits it to an
 * {@link io.github.uring4j.engine.IoBackend}, and learns the end through its
 * {@link io.github.uring4j.engine.Completion}. The backends live in {@code engine.uring} (event loops on io_uring)
 * and {@code engine.threads} (blocking calls on a thread pool); {@code engine.select} starts one. The rules both
 * apply the same way are here: {@link io.github.uring4j.engine.Rules} (end of file, short transfers, errno
 * meanings, alignment) and {@link io.github.uring4j.engine.Memory} (which memory the kernel may be given).
 */
package io.github.uring4j.engine;
