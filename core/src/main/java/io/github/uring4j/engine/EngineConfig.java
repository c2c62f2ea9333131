package io.github.uring4j.engine;

import io.github.uring4j.linux.Syscalls;
import java.util.concurrent.ThreadFactory;

/** Settings a client gives the engine; every field has a value (the client applies its defaults). */
public final class EngineConfig {
    /** Which backend to start. */
    public enum Want {
        /** io_uring, else the threads backend with one warning. */
        AUTO,
        IO_URING,
        THREADS
    }

    public Want want = Want.AUTO;
    /** Why the threads backend was chosen, when {@link Want#THREADS} (for the fallback reason). */
    public String threadsReason = "the threads backend was chosen";
    /** Event loops (io_uring). */
    public int loops = 1;
    /** SQ entries per ring. */
    public int entries = 256;
    /** {@code IORING_SETUP_*} flags. */
    public int setupFlags;
    /** A loop kept from its work this long is named in a warning ({@code LoopWatchdog}); 0: never. */
    public long blockedWarnNanos = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    /** How long an idle loop spins before it sleeps. */
    public long spinNanos = 20_000;
    /** Requests of one file one loop (or the thread pool) keeps in flight; more wait in order. */
    public int inFlightLimit = 256;
    /**
     * Largest buffered write a loop makes itself with a plain {@code pwrite} when the file system refuses
     * {@code RWF_NOWAIT} writes (ext4), instead of handing it to the kernel's io-wq workers; 0: never.
     */
    public int inlineWriteMax = 1 << 20;
    /**
     * The most io-wq workers each loop's ring runs at once for work on regular files that blocks ({@code fsync},
     * buffered ext4 writes, opens that miss the cache); 0: the kernel's default, four per CPU.
     */
    public int ioWorkers = 64;
    /**
     * Bytes of buffered (page-cache) transfers one file keeps in flight on one loop; more wait, in order (one
     * transfer always runs, whatever its size). The kernel copies them with the CPU: buffers beyond the caches
     * cost more than the parallelism gains ({@link CpuCaches}). Only regular files count, and not their
     * {@code O_DIRECT} transfers.
     */
    public long inFlightBytes = CpuCaches.defaultInFlightBytes();
    /**
     * {@code O_DIRECT} requests one loop keeps in the kernel per block device; more wait, in order. 0: as many as
     * one hardware queue of the device hands out without waiting (from sysfs: the scheduler's requests, or the
     * driver's tags without a scheduler), no limit where that is unknown.
     */
    public int directInFlight;
    /** Registered-file slots per ring. */
    public int registeredFiles = 256;
    /** Core worker threads of the threads backend. */
    public int threads = 4;
    /** Most worker threads the threads backend grows to while calls block. */
    public int maxThreads = 256;
    public ThreadFactory threadFactory;
    /** The process-wide default executor's: its own threads take the system class loader as context. */
    public boolean processWide;
    public String name = "uring4j";
    /** The system-call layer; null: the real one, looked up only when a backend needs native calls. */
    public Syscalls syscalls;
    public ErrorMapper errors;
    /** The system-call layer to use (the real one unless a test gave another). */
    public Syscalls syscalls() {
        return syscalls != null ? syscalls : Syscalls.system();
    }

    /** Test seam: rewrites results before the rules see them. */
    public ResultFilter resultFilter;
}
