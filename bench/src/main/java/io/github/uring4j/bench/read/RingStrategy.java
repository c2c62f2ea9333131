package io.github.uring4j.bench.read;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.ring.CqeHandler;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import io.github.uring4j.ring.UringException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The ring API: one ring per worker thread, the data set's files registered, one registered buffer of
 * {@code depth} blocks, and {@code depth} reads kept in flight; each completion is verified and replaced at once.
 */
public final class RingStrategy implements ReadStrategy {

    @Override
    public String name() {
        return "ring";
    }

    @Override
    public int inFlightPerWorker(ReadConfig cfg) {
        return cfg.depth();
    }

    @Override
    public Session open(DataSet ds, ReadConfig cfg) {
        return new Session() {
            @Override
            public void run(int worker, WorkerContext ctx) throws Exception {
                try (Arena arena = Arena.ofConfined();
                     IoUring ring = IoUring.open(IoUring.options().entries(Math.max(cfg.depth(), 4)))) {
                    new Loop(ring, arena, ds, cfg, ctx).run();
                }
            }

            @Override
            public void close() {
            }
        };
    }

    private static final class Loop implements CqeHandler {
        private final IoUring ring;
        private final WorkerContext ctx;
        private final int depth;
        private final int[] fds;
        private final FileTarget[] targets;
        private final MemorySegment buffers;
        private final long bufBase;
        private final boolean fixedBuffers;
        private final long[] start;
        private final int[] fileOf;
        private final long[] offsetOf;
        private final int[] resOf;
        private final int[] done;
        private int nDone;

        Loop(IoUring ring, Arena arena, DataSet ds, ReadConfig cfg, WorkerContext ctx) throws IOException {
            this.ring = ring;
            this.ctx = ctx;
            this.depth = cfg.depth();
            this.fds = new int[ds.files()];
            int flags = RingFiles.O_RDONLY | (cfg.direct() ? RingFiles.O_DIRECT : 0);
            for (int f = 0; f < fds.length; f++) {
                fds[f] = RingFiles.open(ring, ds.file(f), flags);
            }
            this.targets = new FileTarget[fds.length];
            boolean registered;
            try {
                ring.registerFiles(fds);
                registered = true;
            } catch (UringException e) {
                registered = false;
            }
            for (int f = 0; f < fds.length; f++) {
                targets[f] = registered ? FileTarget.fixed(f) : FileTarget.fd(fds[f]);
            }
            this.buffers = arena.allocate((long) depth * BlockData.BLOCK_SIZE, 4096);
            this.bufBase = buffers.address();
            boolean fixed;
            try {
                ring.registerBuffers(buffers);
                fixed = true;
            } catch (UringException e) {
                // memlock limit: plain reads into the same memory
                fixed = false;
            }
            this.fixedBuffers = fixed;
            this.start = new long[depth];
            this.fileOf = new int[depth];
            this.offsetOf = new long[depth];
            this.resOf = new int[depth];
            this.done = new int[depth];
        }

        void run() throws IOException {
            int inFlight = 0;
            for (int slot = 0; slot < depth; slot++) {
                prepare(slot);
                inFlight++;
            }
            long end = ctx.end();
            while (inFlight > 0) {
                ring.submitAndWait(1);
                nDone = 0;
                ring.reap(this);
                long now = System.nanoTime();
                for (int i = 0; i < nDone; i++) {
                    int slot = done[i];
                    ctx.completed(start[slot], now, fileOf[slot], offsetOf[slot], resOf[slot], buffers,
                            (long) slot * BlockData.BLOCK_SIZE);
                    if (now < end) {
                        prepare(slot);
                    } else {
                        inFlight--;
                    }
                }
            }
            for (int fd : fds) {
                RingFiles.close(ring, fd);
            }
        }

        private void prepare(int slot) {
            int f = ctx.randomFile();
            long off = ctx.randomBlock() * BlockData.BLOCK_SIZE;
            fileOf[slot] = f;
            offsetOf[slot] = off;
            long addr = bufBase + (long) slot * BlockData.BLOCK_SIZE;
            start[slot] = System.nanoTime();
            if (fixedBuffers) {
                ring.nextSqe().readFixed(targets[f], addr, BlockData.BLOCK_SIZE, off, 0).userData(slot);
            } else {
                ring.nextSqe().read(targets[f], addr, BlockData.BLOCK_SIZE, off).userData(slot);
            }
        }

        @Override
        public void handle(long userData, int res, int flags) {
            int slot = (int) userData;
            resOf[slot] = res;
            done[nDone++] = slot;
        }
    }
}
