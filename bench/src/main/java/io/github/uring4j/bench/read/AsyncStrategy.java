package io.github.uring4j.bench.read;

import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.DataSet;
import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.FileOption;
import io.github.uring4j.file.IoExecutor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.CompletionHandler;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The async API ({@code AsyncFile} with a {@code CompletionHandler}): one {@code IoExecutor} with one event loop per
 * worker thread; each worker keeps {@code depth} reads in flight on its own loop, and the handler (on the loop
 * thread) verifies the block and issues the next read. The worker thread only waits.
 */
public final class AsyncStrategy implements ReadStrategy {

    private final boolean virtual;

    /**
     * @param virtual false: handler-driven workers; true: {@code threads x depth} virtual threads each blocking on
     *                {@code read(...).join()}, the way a blocking API on virtual threads would use it
     */
    public AsyncStrategy(boolean virtual) {
        this.virtual = virtual;
    }

    @Override
    public String name() {
        return virtual ? "async-vthreads" : "async";
    }

    @Override
    public boolean virtualThreads() {
        return virtual;
    }

    @Override
    public int workers(ReadConfig cfg) {
        return virtual ? cfg.threads() * cfg.depth() : cfg.threads();
    }

    @Override
    public int inFlightPerWorker(ReadConfig cfg) {
        return cfg.depth();
    }

    @Override
    public Session open(DataSet ds, ReadConfig cfg) throws IOException {
        // Room in the kernel for as many reads as there are workers (up to 1024 per loop): a device wants depth.
        IoExecutor executor = IoExecutor.builder().loops(cfg.threads()).entries(Math.max(64, cfg.depth() * 2))
                .inFlightLimit(Math.min(1024, Math.max(256, cfg.depth())))
                .name("bench-async").build();
        List<AsyncFile> files = new ArrayList<>();
        try {
            for (int f = 0; f < ds.files(); f++) {
                OpenOption[] opts = cfg.direct() ? new OpenOption[] {StandardOpenOption.READ, FileOption.DIRECT}
                        : new OpenOption[] {StandardOpenOption.READ};
                files.add(AsyncFile.open(executor, ds.file(f), opts).join());
            }
        } catch (RuntimeException e) {
            closeAll(files, executor);
            throw new IOException("cannot open the data set through AsyncFile: " + e.getMessage(), e);
        }
        // One loop per worker: opens from this thread go to the loops in turn, so consecutive opens land on
        // different loops, and a worker that starts its reads from the completion of "its" open keeps them all on
        // that loop (a read issued on a loop thread runs there). Then no two loops share a worker's state.
        List<AsyncFile> anchors = new ArrayList<>();
        if (!virtual) {
            for (int w = 0; w < cfg.threads(); w++) {
                anchors.add(AsyncFile.open(executor, ds.file(0), StandardOpenOption.READ).join());
            }
            files.addAll(anchors); // closed with the data files; never read
        }
        // Memory the library holds, so the kernel reads straight into it: an automatic arena's slab for the
        // virtual-thread workers (one block each), a pool registered with the rings for the handler workers.
        MemorySegment slab = virtual ? Arena.ofAuto().allocate((long) workers(cfg) * BlockData.BLOCK_SIZE, 4096) : null;
        BufferPool pool = virtual ? null : BufferPool.builder().bufferSize(BlockData.BLOCK_SIZE)
                .count(cfg.threads() * cfg.depth()).register(executor).build();
        return new Session() {
            @Override
            public void run(int worker, WorkerContext ctx) throws Exception {
                if (virtual) {
                    MemorySegment buf = slab.asSlice((long) worker * BlockData.BLOCK_SIZE, BlockData.BLOCK_SIZE);
                    long end = ctx.end();
                    long now = System.nanoTime();
                    while (now < end) {
                        int f = ctx.randomFile();
                        long off = ctx.randomBlock() * BlockData.BLOCK_SIZE;
                        long t0 = System.nanoTime();
                        int n = files.get(f).read(buf, off).join();
                        now = System.nanoTime();
                        ctx.completed(t0, now, f, off, n, buf, 0);
                    }
                    return;
                }
                Worker w = new Worker(files.subList(0, ds.files()), anchors.get(worker), pool, cfg.depth(), ctx);
                try {
                    w.run();
                } finally {
                    w.release(pool);
                }
            }

            @Override
            public void close() throws IOException {
                closeAll(files, executor);
                if (pool != null) {
                    pool.close();
                }
            }
        };
    }

    private static void closeAll(List<AsyncFile> files, IoExecutor executor) throws IOException {
        IOException first = null;
        for (AsyncFile f : files) {
            try {
                f.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        executor.close();
        if (first != null) {
            throw first;
        }
    }

    /** One slot per read in flight; the slot is also the attachment, so the handler path allocates no capture. */
    private static final class Slot {
        final int index;
        final MemorySegment buf;
        int file;
        long offset;
        long start;

        Slot(int index, MemorySegment buf) {
            this.index = index;
            this.buf = buf;
        }
    }

    private static final class Worker implements CompletionHandler<Integer, Slot> {
        private final List<AsyncFile> files;
        private final WorkerContext ctx;
        private final Slot[] slots;
        private final CountDownLatch drained;
        private volatile Throwable failure;

        private final AsyncFile anchor;

        Worker(List<AsyncFile> files, AsyncFile anchor, BufferPool pool, int depth, WorkerContext ctx) {
            this.files = files;
            this.anchor = anchor;
            this.ctx = ctx;
            this.slots = new Slot[depth];
            for (int i = 0; i < depth; i++) {
                slots[i] = new Slot(i, pool.acquire());
            }
            this.drained = new CountDownLatch(depth);
        }

        /** Gives the buffers back (once every read has completed). */
        void release(BufferPool pool) {
            for (Slot s : slots) {
                pool.release(s.buf);
            }
        }

        void run() throws Exception {
            // Start on the anchor's loop: every read issued there (and every next read) runs on that loop.
            anchor.size(null, new CompletionHandler<Long, Void>() {
                @Override
                public void completed(Long size, Void unused) {
                    for (Slot s : slots) {
                        synchronized (ctx) {
                            issue(s);
                        }
                    }
                }

                @Override
                public void failed(Throwable exc, Void unused) {
                    failure = exc;
                    for (int i = 0; i < slots.length; i++) {
                        drained.countDown();
                    }
                }
            });
            drained.await();
            if (failure != null) {
                throw new IOException("async read failed: " + failure, failure);
            }
        }

        /** Called with the context's lock held. */
        private void issue(Slot s) {
            s.file = ctx.randomFile();
            s.offset = ctx.randomBlock() * BlockData.BLOCK_SIZE;
            s.start = System.nanoTime();
            files.get(s.file).read(s.buf, s.offset, s, this);
        }

        @Override
        public void completed(Integer n, Slot s) {
            long now = System.nanoTime();
            // Completions may arrive on any loop thread: the context (random stream, histogram) is guarded.
            synchronized (ctx) {
                ctx.completed(s.start, now, s.file, s.offset, n, s.buf, 0);
                if (now < ctx.end() && failure == null) {
                    issue(s);
                    return;
                }
            }
            drained.countDown();
        }

        @Override
        public void failed(Throwable exc, Slot s) {
            failure = exc;
            drained.countDown();
        }
    }
}
