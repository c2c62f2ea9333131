package io.github.uring4j.file;

/**
 * An {@link IoExecutor} as JMX shows it ({@code jconsole}, JDK Mission Control, any JMX client), under the name
 * {@code io.github.uring4j:type=IoExecutor,name=<executor name>}: its name is reserved when the executor is built, and
 * a daemon thread of the library registers it right after (the platform MBean server takes a tenth of a second or more
 * to start in a fresh JVM, which {@code build()} does not wait for) and unregisters it right after the close: a
 * client that asks at once may not find it yet, or still find it, for a few milliseconds. In a program's first five
 * seconds the library does not start the platform MBean server for it: the bean is registered within a quarter of a
 * second of the server's start by the program or a monitoring tool, or after those five seconds
 * ({@link IoExecutor#jmxName()} registers it at once).
 */
public interface IoExecutorMXBean {
    /** The executor's name (its threads' prefix). */
    String getName();

    /** {@code IO_URING} or {@code THREADS}: what runs the operations. */
    String getBackend();

    /** Why the executor runs on threads (io_uring blocked, disabled, native access denied), or empty. */
    String getFallbackReason();

    /** Event loops (io_uring) or worker threads (threads backend). */
    int getThreads();

    /** Operations in the kernel or on a worker now. */
    int getInFlight();

    /** Operations waiting: behind their file's in-flight limit, for room in a ring, or for a worker. */
    int getQueued();

    /** Operations completed since the executor started. */
    long getCompleted();

    /** Completions the kernel dropped because a completion queue was full (0 on kernels with IORING_FEAT_NODROP). */
    long getCqOverflows();

    /**
     * Writes, syncs, sizes and opens the event loops made themselves instead of through the ring (buffered writes on
     * file systems that cannot take them without blocking, such as ext4; syncs, sizes, and opens that create or
     * truncate, of an idle loop; see {@link IoExecutor.Builder#inlineWriteMax}). 0 on the threads backend.
     */
    long getLoopCalls();

    /**
     * Of {@link #getLoopCalls()}, the calls that held their loop longer than 10 ms (dirty-page throttling, a slow
     * device flush). After a second such write within a second that others waited for (other threads' requests,
     * operations in the kernel), or such a sync that other threads' requests waited for, the file's calls go through
     * the ring for a quarter of a second. Many of these mean the loops wait on the file system.
     */
    long getSlowLoopCalls();

    /**
     * Reads and writes made on the buffers of {@linkplain BufferPool.Builder#register registered} pools
     * ({@code READ_FIXED}/{@code WRITE_FIXED}): the kernel copies them with {@code memcpy} instead of pinning the
     * pages of each. 0 on the threads backend, and where no pool is registered.
     */
    long getFixedBufferOperations();

    boolean isOpen();
}
