package io.github.uring4j.file;

import io.github.uring4j.linux.Uapi;

/** {@code POSIX_FADV_*}: what {@link AsyncFile#advise} tells the kernel about the coming access pattern. */
public enum Advice {
    NORMAL(Uapi.POSIX_FADV_NORMAL),
    RANDOM(Uapi.POSIX_FADV_RANDOM),
    SEQUENTIAL(Uapi.POSIX_FADV_SEQUENTIAL),
    WILLNEED(Uapi.POSIX_FADV_WILLNEED),
    DONTNEED(Uapi.POSIX_FADV_DONTNEED),
    NOREUSE(Uapi.POSIX_FADV_NOREUSE);

    final int value;

    Advice(int value) {
        this.value = value;
    }
}
