package io.github.uring4j.engine;

/**
 * A backend's counters at one moment, for monitoring.
 *
 * @param threads     event loops (io_uring) or worker threads (threads backend)
 * @param inFlight    requests in the kernel or on a worker
 * @param queued      requests waiting: behind their file's in-flight limit, for room in a ring, or for a worker
 * @param completed   requests ended since the backend started
 * @param cqOverflows completions the kernel dropped because a completion queue was full (0 with IORING_FEAT_NODROP)
 * @param loopCalls   writes, syncs, sizes and opens the event loops made themselves instead of through the ring
 *                    (0 on threads)
 * @param slowLoopCalls of those, the calls that held their loop longer than 10 ms
 * @param fixedBufferOps reads and writes made on registered buffers ({@code READ_FIXED}/{@code WRITE_FIXED}; 0 on
 *                    threads)
 */
public record BackendStats(int threads, int inFlight, int queued, long completed, long cqOverflows, long loopCalls,
                           long slowLoopCalls, long fixedBufferOps) {
}
