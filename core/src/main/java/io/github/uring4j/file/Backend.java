package io.github.uring4j.file;

/**
 * How an {@link IoExecutor} performs I/O. Chosen with {@link IoExecutor.Builder#backend(Backend)}, or for the
 * default executor with the system property {@code uring4j.backend=auto|io_uring|threads}.
 */
public enum Backend {
    /** io_uring when the kernel and the security policy allow it, otherwise {@link #THREADS} with one warning. */
    AUTO,
    /** io_uring event loops; building fails when io_uring cannot be set up. */
    IO_URING,
    /** A thread pool doing blocking {@code pread}/{@code pwrite}: works wherever Linux runs. */
    THREADS;

    /** Parses a {@code uring4j.backend} value ({@code auto}, {@code io_uring}/{@code iouring}/{@code uring}, {@code threads}). */
    public static Backend parse(String value) {
        if (value == null || value.isBlank()) {
            return AUTO;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "auto" -> AUTO;
            case "io_uring", "iouring", "uring", "io-uring" -> IO_URING;
            case "threads", "thread", "threadpool" -> THREADS;
            default -> throw new IllegalArgumentException("uring4j.backend must be auto, io_uring or threads, not '"
                    + value + "'");
        };
    }
}
