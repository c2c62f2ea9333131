package io.github.uring4j.bench.jmh;

import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.ring.FileTarget;
import io.github.uring4j.ring.IoUring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/** One 64 MiB block file opened both ways, for single 4 KiB reads at random offsets (one in flight). */
final class RandomReadState implements io.github.uring4j.ring.CqeHandler {
    static final long SIZE = 64L << 20;
    static final int LEN = 4096;

    final FileChannel ch;
    final ByteBuffer bb;
    final MemorySegment bbSeg;
    final IoUring ring;
    final int fd;
    final FileTarget target;
    final Arena arena;
    final MemorySegment buf;
    final SplittableRandom random = new SplittableRandom(3);
    private final int[] res = new int[1];

    RandomReadState(boolean direct) throws IOException {
        Path file = JmhFiles.blockFile(JmhFiles.root().resolve("random-64m.bin"), 5, SIZE);
        ch = direct ? FileChannel.open(file, StandardOpenOption.READ, io.github.uring4j.bench.common.DirectIo.option())
                : FileChannel.open(file, StandardOpenOption.READ);
        bb = io.github.uring4j.bench.common.Buffers.alignedDirect(LEN);
        bbSeg = MemorySegment.ofBuffer(bb);
        ring = IoUring.open(4);
        fd = RingFiles.open(ring, file, RingFiles.O_RDONLY | (direct ? RingFiles.O_DIRECT : 0));
        ring.registerFiles(fd);
        target = FileTarget.fixed(0);
        arena = Arena.ofConfined();
        buf = arena.allocate(LEN, 4096);
        ring.registerBuffers(buf);
    }

    long offset(int shift) {
        return random.nextLong(SIZE / LEN - 1) * LEN + shift;
    }

    long channelRead(long off) throws IOException {
        bb.clear();
        JUringReadBenchmark.readFully(ch, bb, off);
        return JmhFiles.check(bbSeg, 5, off, LEN);
    }

    long ringRead(long off) throws IOException {
        ring.nextSqe().readFixed(target, buf, off, 0).userData(1);
        ring.submitAndWait(1);
        ring.reap(this);
        JUringReadBenchmark.checkRes(res[0], LEN);
        return JmhFiles.check(buf, 5, off, LEN);
    }

    @Override
    public void handle(long userData, int result, int flags) {
        res[0] = result;
    }

    void close() throws IOException {
        ring.unregisterFiles();
        RingFiles.close(ring, fd);
        ring.close();
        arena.close();
        ch.close();
    }
}
