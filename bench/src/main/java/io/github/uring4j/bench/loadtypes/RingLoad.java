package io.github.uring4j.bench.loadtypes;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.SetupFlag;
import io.github.uring4j.ring.UringException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The ring API: {@code depth} operations in flight on a registered file, reads into registered buffers (verified
 * on completion), writes straight from the registered pattern. Set up as the ring API's documentation advises for
 * one thread: {@code SINGLE_ISSUER | DEFER_TASKRUN} (completions are run when this thread waits, not by
 * interrupting it), page-cache transfers bounded to {@link #CACHED_BYTES} in flight (the kernel copies them with the
 * CPU: more buffers than the caches hold cost more than they gain), and buffered writes, which the kernel hands to
 * an io-wq worker, reaped half a window at a time instead of one wake-up per write.
 */
public final class RingLoad implements LoadStrategy, CqeHandler {
    /** Bytes of page-cache transfers in flight: the async API's default bound on this machine. */
    static final long CACHED_BYTES = IoExecutor.defaultInFlightBytes();

    private LoadSpec spec;
    private int[] resOf;
    private int[] done;
    private int nDone;

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public long run(LoadSpec s) throws Exception {
        this.spec = s;
        int depth = s.direct() ? s.depth() : (int) Math.max(1, Math.min(s.depth(), CACHED_BYTES / s.ioSize()));
        int flags = (s.load() == Load.APPEND_WRITE ? RingFiles.O_WRONLY | RingFiles.O_CREAT | RingFiles.O_TRUNC
                : s.load().write ? RingFiles.O_WRONLY : RingFiles.O_RDONLY) | (s.direct() ? RingFiles.O_DIRECT : 0);
        try (Arena arena = Arena.ofConfined(); IoUring ring = open(Math.max(depth, 4))) {
            int fd = RingFiles.open(ring, s.file(), flags);
            try {
                ring.registerFiles(fd);
                FileTarget target = FileTarget.fixed(0);
                MemorySegment bufs = arena.allocate((long) depth * s.ioSize(), 4096);
                boolean fixed;
                try {
                    ring.registerBuffers(bufs, s.pattern());
                    fixed = true;
                } catch (UringException e) {
                    fixed = false;
                }
                long[] offsetOf = new long[depth];
                resOf = new int[depth];
                done = new int[depth];
                long[] offsets = s.offsets();
                int next = 0;
                int inFlight = 0;
                boolean write = s.load().write;
                long bufBase = bufs.address();
                long patBase = s.pattern().address();
                int len = s.ioSize();
                free = new int[depth];
                for (int i = 0; i < depth; i++) {
                    free[i] = i;
                }
                nFree = depth;
                long t0 = System.nanoTime();
                while (next < offsets.length || inFlight > 0) {
                    while (inFlight < depth && next < offsets.length) {
                        int slot = free[--nFree];
                        long off = offsets[next++];
                        offsetOf[slot] = off;
                        if (write) {
                            long src = patBase + off % s.period();
                            if (fixed) {
                                ring.nextSqe().writeFixed(target, src, len, off, 1).userData(slot);
                            } else {
                                ring.nextSqe().write(target, src, len, off).userData(slot);
                            }
                        } else {
                            long dst = bufBase + (long) slot * len;
                            if (fixed) {
                                ring.nextSqe().readFixed(target, dst, len, off, 0).userData(slot);
                            } else {
                                ring.nextSqe().read(target, dst, len, off).userData(slot);
                            }
                        }
                        inFlight++;
                    }
                    ring.submitAndWait(write && !s.direct() ? Math.max(1, inFlight / 2) : 1);
                    nDone = 0;
                    ring.reap(this);
                    for (int i = 0; i < nDone; i++) {
                        int slot = done[i];
                        if (resOf[slot] != len) {
                            throw new UringException(write ? "write" : "read", resOf[slot] < 0 ? -resOf[slot] : 5,
                                    name() + " " + s.load().label + ": " + (write ? "write" : "read") + " at " + offsetOf[slot]
                                            + " returned " + resOf[slot] + " of " + len);
                        }
                        if (!write) {
                            long bad = s.verify(bufs, (long) slot * len, offsetOf[slot], len);
                            if (bad >= 0) {
                                throw new LoadStrategy.VerificationError(name(), s, bad);
                            }
                        }
                        freed(slot);
                        inFlight--;
                    }
                }
                if (write && s.fsync()) {
                    ring.nextSqe().fsync(target, true).userData(-1);
                    ring.submitAndWait(1);
                    ring.reap((u, r, f) -> { });
                }
                long t = System.nanoTime() - t0;
                ring.unregisterFiles();
                return t;
            } finally {
                RingFiles.close(ring, fd);
            }
        }
    }

    private static IoUring open(int entries) throws UringException {
        try {
            return IoUring.open(IoUring.options().entries(entries).flags(SetupFlag.SINGLE_ISSUER | SetupFlag.DEFER_TASKRUN));
        } catch (UringException e) {
            return IoUring.open(IoUring.options().entries(entries)); // before Linux 6.1
        }
    }

    // Free slots form a stack; a slot is reused only after its completion was handled.
    private int[] free;
    private int nFree;

    private void freed(int slot) {
        free[nFree++] = slot;
    }

    @Override
    public void handle(long userData, int res, int flags) {
        int slot = (int) userData;
        resOf[slot] = res;
        done[nDone++] = slot;
    }
}
