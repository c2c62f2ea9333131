package io.github.uring4j.ring;

import io.github.uring4j.linux.Errno;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * io_uring cannot be used in this process: the kernel lacks it, a seccomp profile or the
 * {@code kernel.io_uring_disabled} sysctl blocks it, or the ring memory could not be had. The message names the
 * cause and the fix.
 */
public final class UringUnavailableException extends UringException {
    private static final long serialVersionUID = 1L;

    public UringUnavailableException(int errno) {
        super("io_uring_setup", errno, explain(errno));
    }

    /** With the cause and the fix already in words (native access denied, for example). */
    public UringUnavailableException(int errno, String message) {
        super("io_uring_setup", errno, message);
    }

    /** True when {@code io_uring_setup} failing with this errno means "io_uring is not usable here". */
    public static boolean isUnavailable(int errno) {
        int e = Math.abs(errno);
        return e == Errno.EPERM || e == Errno.ENOSYS || e == Errno.ENOMEM || e == Errno.EACCES;
    }

    static String explain(int errno) {
        int e = Math.abs(errno);
        String disabled = sysctl();
        return switch (e) {
            case Errno.ENOSYS -> "io_uring is not available (ENOSYS): this kernel was built without io_uring or is older"
                    + " than 5.1; use Linux >= 5.6, or the threads backend (-During4j.backend=threads)";
            case Errno.EPERM, Errno.EACCES -> {
                if (disabled != null && !disabled.equals("0")) {
                    yield "io_uring is disabled by sysctl kernel.io_uring_disabled=" + disabled + " (" + Errno.name(e)
                            + "): set it to 0 (or 1 and add this user to kernel.io_uring_group), or use the threads"
                            + " backend (-During4j.backend=threads)";
                }
                yield "io_uring blocked by seccomp or a security policy (" + Errno.name(e) + "): run the container with a"
                        + " profile that allows io_uring_setup/io_uring_enter/io_uring_register, or use the threads"
                        + " backend (-During4j.backend=threads)";
            }
            case Errno.ENOMEM -> "io_uring ring memory could not be allocated (ENOMEM): raise the locked-memory limit"
                    + " (ulimit -l, now " + memlock() + ") or use fewer/smaller rings";
            default -> "io_uring_setup failed: " + Errno.name(e);
        };
    }

    private static String sysctl() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/io_uring_disabled")).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static String memlock() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max locked memory")) {
                    String[] f = line.substring("Max locked memory".length()).trim().split("\\s+");
                    return f[0].equals("unlimited") ? "unlimited" : (Long.parseLong(f[0]) / 1024) + " KiB";
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return "unknown";
    }
}
