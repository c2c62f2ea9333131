package io.github.uring4j.bench.read;

import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.DataSet;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;

/**
 * jasyncfio 0.0.7, the Java io_uring library of the article the {@code iops} tool follows (JNI and a native library
 * of its own, x86-64 Linux only), doing what {@link AsyncStrategy} does: one jasyncfio {@code EventExecutor} (its
 * ring and thread) per worker, {@code depth} reads in flight on it, each completion (a {@code CompletableFuture},
 * jasyncfio's only form) verifying its block; the worker thread issues the next read (see {@code Worker.run}). Its
 * buffers are direct {@code ByteBuffer}s.
 */
public final class JasyncfioStrategy implements ReadStrategy {

    @Override
    public String name() {
        return "jasyncfio";
    }

    @Override
    public String unsupported(ReadConfig cfg) {
        if (cfg.direct()) {
            return "the jasyncfio rows read through the page cache only";
        }
        String arch = System.getProperty("os.arch");
        if (!arch.equals("amd64") && !arch.equals("x86_64")) {
            return "jasyncfio 0.0.7 ships a native library for x86-64 Linux only, not " + arch;
        }
        return null;
    }

    @Override
    public int inFlightPerWorker(ReadConfig cfg) {
        return cfg.depth();
    }

    @Override
    public Session open(DataSet ds, ReadConfig cfg) throws IOException {
        List<one.jasyncfio.EventExecutor> executors = new ArrayList<>();
        List<List<one.jasyncfio.AsyncFile>> files = new ArrayList<>();
        try {
            for (int w = 0; w < cfg.threads(); w++) {
                one.jasyncfio.EventExecutor e = one.jasyncfio.EventExecutor.builder()
                        .entries(Math.max(64, cfg.depth() * 2)).build(); // the room AsyncStrategy's rings have
                executors.add(e);
                List<one.jasyncfio.AsyncFile> mine = new ArrayList<>();
                for (int f = 0; f < ds.files(); f++) {
                    mine.add(one.jasyncfio.AsyncFile.open(ds.file(f), e).get());
                }
                files.add(mine);
            }
        } catch (ExecutionException | RuntimeException | LinkageError e) {
            closeAll(files, executors);
            throw new IOException("cannot open the data set through jasyncfio: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeAll(files, executors);
            throw new IOException("interrupted opening the data set through jasyncfio", e);
        }
        return new Session() {
            @Override
            public void run(int worker, WorkerContext ctx) throws Exception {
                new Worker(files.get(worker), cfg.depth(), ctx).run();
            }

            @Override
            public void close() throws IOException {
                closeAll(files, executors);
            }
        };
    }

    private static void closeAll(List<List<one.jasyncfio.AsyncFile>> files, List<one.jasyncfio.EventExecutor> executors)
            throws IOException {
        Throwable first = null;
        for (List<one.jasyncfio.AsyncFile> mine : files) {
            for (one.jasyncfio.AsyncFile f : mine) {
                try {
                    f.close().get();
                } catch (ExecutionException | RuntimeException e) {
                    first = first == null ? e : first;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (one.jasyncfio.EventExecutor e : executors) {
            try {
                e.close();
            } catch (Exception x) {
                first = first == null ? x : first;
            }
        }
        if (first != null) {
            throw new IOException("closing jasyncfio: " + first, first);
        }
    }

    /** One read in flight: its buffer and what it reads. */
    private static final class Slot {
        final ByteBuffer buf = ByteBuffer.allocateDirect(BlockData.BLOCK_SIZE);
        final MemorySegment seg = MemorySegment.ofBuffer(buf);
        int file;
        long offset;
        long start;
    }

    private static final class Worker {
        private final List<one.jasyncfio.AsyncFile> files;
        private final WorkerContext ctx;
        private final int depth;
        /** Slots whose read has ended, for the worker thread to issue again. */
        private final BlockingQueue<Slot> free;
        private volatile Throwable failure;

        Worker(List<one.jasyncfio.AsyncFile> files, int depth, WorkerContext ctx) {
            this.files = files;
            this.ctx = ctx;
            this.depth = depth;
            this.free = new ArrayBlockingQueue<>(depth);
            for (int i = 0; i < depth; i++) {
                free.add(new Slot());
            }
        }

        /**
         * Issues reads from this thread as slots come back: a read issued from a completion, on jasyncfio's own
         * thread, waited for the executor's next wake-up (one a second: 32 reads a second at depth 32), so the
         * reads are issued here, as jasyncfio's own benchmark issues them.
         */
        void run() throws Exception {
            while (true) {
                Slot s = free.take();
                if (failure != null) {
                    break;
                }
                long now = System.nanoTime();
                if (now >= ctx.end()) {
                    free.add(s);
                    break;
                }
                synchronized (ctx) {
                    s.file = ctx.randomFile();
                    s.offset = ctx.randomBlock() * BlockData.BLOCK_SIZE;
                }
                s.start = System.nanoTime();
                s.buf.clear();
                @SuppressWarnings("unchecked")
                CompletableFuture<Integer> read = (CompletableFuture<Integer>) files.get(s.file).read(s.buf, s.offset);
                read.whenComplete((n, t) -> done(s, n, t));
            }
            for (int i = free.size(); i < depth; i++) {
                free.take(); // every read in flight has ended
            }
            if (failure != null) {
                throw new IOException("jasyncfio read failed: " + failure, failure);
            }
        }

        private void done(Slot s, Integer n, Throwable t) {
            if (t != null) {
                failure = t;
            } else {
                long now = System.nanoTime();
                synchronized (ctx) {
                    ctx.completed(s.start, now, s.file, s.offset, n, s.seg, 0);
                }
            }
            free.add(s);
        }
    }
}
