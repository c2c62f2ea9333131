package io.github.uring4j.bench.read;

import io.github.uring4j.bench.data.BlockData;
import io.github.uring4j.bench.data.DataSet;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;

/**
 * A {@code FileChannel}: the JDK's, or uring4j's drop-in ({@code UringFiles.newFileChannel}); the files opened once
 * and shared, each worker a thread doing positional reads into its own buffer: direct (4 KiB aligned, as
 * {@code O_DIRECT} needs) or on the heap. On virtual threads, {@code threads x depth} of them. The drop-in's
 * {@code mapped} form opens its channels with {@code -During4j.mappedReads=true} set: repeated positional reads
 * copied from a mapping of the file (only for files nobody shrinks while they are open, which holds here).
 */
public final class ChannelStrategy implements ReadStrategy {

    private final boolean virtual;
    private final boolean dropIn;
    private final boolean heap;
    private final boolean mapped;

    public ChannelStrategy(boolean virtual) {
        this(virtual, false, false);
    }

    public ChannelStrategy(boolean virtual, boolean dropIn, boolean heap) {
        this(virtual, dropIn, heap, false);
    }

    public ChannelStrategy(boolean virtual, boolean dropIn, boolean heap, boolean mapped) {
        this.virtual = virtual;
        this.dropIn = dropIn;
        this.heap = heap;
        this.mapped = mapped;
    }

    /** The system property that lets the drop-in's channels opened while it is set read through a mapping. */
    static final String MAPPED_READS = "uring4j.mappedReads";

    @Override
    public String name() {
        return (dropIn ? "dropin" : "channel") + (mapped ? "-mapped" : "") + (heap ? "-heap" : "")
                + (virtual ? "-vthreads" : "");
    }

    @Override
    public boolean virtualThreads() {
        return virtual;
    }

    @Override
    public int inFlightPerWorker(ReadConfig cfg) {
        return virtual ? cfg.depth() : 1;
    }

    @Override
    public int workers(ReadConfig cfg) {
        return virtual ? cfg.threads() * cfg.depth() : cfg.threads();
    }

    @Override
    public Session open(DataSet ds, ReadConfig cfg) throws IOException {
        FileChannel[] chs = new FileChannel[ds.files()];
        OpenOption[] opts = cfg.direct() ? new OpenOption[] {StandardOpenOption.READ, io.github.uring4j.bench.common.DirectIo.option()}
                : new OpenOption[] {StandardOpenOption.READ};
        String mappedBefore = mapped ? System.setProperty(MAPPED_READS, "true") : null;
        try {
            for (int f = 0; f < chs.length; f++) {
                chs[f] = dropIn ? io.github.uring4j.nio.UringFiles.newFileChannel(ds.file(f), opts)
                        : FileChannel.open(ds.file(f), opts);
            }
        } catch (IOException | RuntimeException e) {
            for (FileChannel c : chs) {
                if (c != null) {
                    c.close();
                }
            }
            throw e;
        } finally {
            if (mapped) {
                if (mappedBefore == null) {
                    System.clearProperty(MAPPED_READS);
                } else {
                    System.setProperty(MAPPED_READS, mappedBefore);
                }
            }
        }
        return new Session() {
            @Override
            public void run(int worker, WorkerContext ctx) throws IOException {
                ByteBuffer bb = heap ? ByteBuffer.allocate(BlockData.BLOCK_SIZE)
                        : io.github.uring4j.bench.common.Buffers.alignedDirect(BlockData.BLOCK_SIZE);
                MemorySegment seg = MemorySegment.ofBuffer(bb);
                long end = ctx.end();
                long now = System.nanoTime();
                while (now < end) {
                    int f = ctx.randomFile();
                    long off = ctx.randomBlock() * BlockData.BLOCK_SIZE;
                    bb.clear();
                    long t0 = System.nanoTime();
                    int n = 0;
                    while (bb.hasRemaining()) {
                        int r = chs[f].read(bb, off + bb.position());
                        if (r < 0) {
                            break;
                        }
                        n += r;
                    }
                    now = System.nanoTime();
                    ctx.completed(t0, now, f, off, n, seg, 0);
                }
            }

            @Override
            public void close() throws IOException {
                for (FileChannel c : chs) {
                    c.close();
                }
            }
        };
    }
}
