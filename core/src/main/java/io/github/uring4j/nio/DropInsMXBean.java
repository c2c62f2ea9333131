package io.github.uring4j.nio;

/**
 * The drop-in channels' counters as a JMX MXBean, registered as {@code io.github.uring4j:type=DropIns} when the
 * first channel opens: see {@link DropInStatistics} for what each counts.
 */
public interface DropInsMXBean {
    /** Whether the drop-ins run on io_uring (false: they serve the JDK's own channels). */
    boolean isIoUring();

    /** Why they serve the JDK's own channels, or an empty string. */
    String getFallbackReason();

    long getUringChannels();

    long getJdkChannels();

    long getCallerCalls();

    long getRingOperations();

    long getMappedReads();

    long getBytesRead();

    long getBytesWritten();

    long getKernelCopies();

    long getOffCarrierCalls();

    long getJdkWhileLinking();
}
