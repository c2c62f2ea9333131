package io.github.uring4j.engine.select;

import io.github.uring4j.engine.BouncePool;
import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.Log;
import io.github.uring4j.engine.threads.ThreadsBackend;
import io.github.uring4j.engine.uring.UringBackend;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.NativeAccess;
import io.github.uring4j.ring.UringException;
import io.github.uring4j.ring.UringUnavailableException;

/** Chooses and starts a backend: the one place that knows both implementations. */
public final class Engines {
    private Engines() {
    }

    /** A started backend, and why it is the threads backend when it is. */
    public record Started(IoBackend backend, String fallbackReason) {
    }

    /**
     * Starts what {@code config} asks for. With {@link EngineConfig.Want#AUTO} an io_uring setup failure of the
     * "not available here" kind (seccomp EPERM, io_uring_disabled, ENOSYS, ENOMEM) starts the threads backend and
     * logs why, once per JVM. A JVM that denies uring4j native access gets the threads backend over the JDK's own
     * channels, with the flag that would enable io_uring in the message.
     *
     * @throws UringUnavailableException with {@link EngineConfig.Want#IO_URING} when io_uring cannot be set up
     * @throws UringException            when the ring rejects the settings
     */
    public static Started start(EngineConfig config, BouncePool bounces) throws UringException {
        String denied = config.syscalls == null ? NativeAccess.problem() : null;
        if (denied != null) {
            // Without native access neither io_uring nor the system-call layer can run: the JDK's channels can.
            if (config.want == EngineConfig.Want.IO_URING) {
                throw new UringUnavailableException(Errno.EPERM, "io_uring cannot be used: " + denied);
            }
            Log.fallback(denied);
            return new Started(new ThreadsBackend(config, bounces, true), denied);
        }
        String reason = null;
        if (config.want != EngineConfig.Want.THREADS) {
            try {
                return new Started(new UringBackend(config, bounces), null);
            } catch (UringUnavailableException u) {
                if (config.want == EngineConfig.Want.IO_URING) {
                    throw u;
                }
                reason = u.getMessage();
                Log.fallback(reason);
            }
        } else {
            reason = config.threadsReason;
        }
        return new Started(new ThreadsBackend(config, bounces, false), reason);
    }
}
