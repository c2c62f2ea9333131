package io.github.uring4j.file;

import java.nio.file.OpenOption;

/** Linux open options for {@link AsyncFile#open}, next to the {@link java.nio.file.StandardOpenOption}s. */
public enum FileOption implements OpenOption {
    /**
     * {@code O_DIRECT}: bypass the page cache. Buffer address, file offset and length must be multiples of
     * {@link AsyncFile#directIoAlignment()}; misaligned requests are refused before submission. The JDK's
     * {@code com.sun.nio.file.ExtendedOpenOption.DIRECT} means the same to {@link AsyncFile#open}.
     */
    DIRECT,
    /** {@code O_DSYNC}: each write returns once its data is on stable storage. */
    DSYNC,
    /** {@code O_NOATIME}: reads do not update the access time (owner or CAP_FOWNER only). */
    NOATIME,
    /**
     * Place the file in the ring's registered-file table instead of the process fd table (io_uring backend,
     * Linux 5.15+); operations then skip the fd lookup. Ignored by the threads backend, and where the kernel
     * cannot do it.
     */
    REGISTERED
}
