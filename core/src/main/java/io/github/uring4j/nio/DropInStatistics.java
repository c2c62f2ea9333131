package io.github.uring4j.nio;

/**
 * What uring4j's drop-in channels have done in this JVM since it started: a way to see that a program runs on
 * them, and where their work ran. Read it with {@link UringFiles#statistics()} or as the MXBean
 * {@code io.github.uring4j:type=DropIns}.
 *
 * @param uringChannels  channels opened on uring4j ({@code FileChannel}s and {@code AsynchronousFileChannel}s)
 * @param jdkChannels    channels that were the JDK's own because io_uring could not be used
 * @param callerCalls    system calls made on the caller's thread (reads served from the page cache, writes, ...)
 * @param ringOperations operations that went through an io_uring (reads that had to wait for the device, on a
 *                       virtual thread or an {@code O_DIRECT} file; every asynchronous operation)
 * @param mappedReads    positional reads copied from the page cache through a mapping of the file (no system call;
 *                       only by channels opened with {@code -During4j.mappedReads=true})
 * @param bytesRead      bytes read through the drop-in channels
 * @param bytesWritten   bytes written through them
 * @param kernelCopies   {@code transferTo}/{@code transferFrom}/copies done inside the kernel ({@code copy_file_range})
 * @param offCarrierCalls calls of virtual threads made on a platform thread while the virtual thread waited unmounted:
 *                       buffered writes while the kernel made writers wait (dirty-page throttling, a journal commit),
 *                       copies of 64 KiB or more (included in {@code callerCalls} as well)
 * @param jdkWhileLinking whole-file calls of {@code Files} ({@code readAllBytes}, {@code write}, ...) that the JDK's own
 *                       channels and streams served in the JVM's first moments, while the provider linked its native
 *                       calls (see {@link UringFiles#WHILE_LINKING})
 */
public record DropInStatistics(long uringChannels, long jdkChannels, long callerCalls, long ringOperations,
        long mappedReads, long bytesRead, long bytesWritten, long kernelCopies, long offCarrierCalls,
        long jdkWhileLinking) {
}
