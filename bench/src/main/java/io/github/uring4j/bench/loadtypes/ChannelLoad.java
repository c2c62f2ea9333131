package io.github.uring4j.bench.loadtypes;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** JDK {@code FileChannel} with a direct buffer, one operation at a time. */
public final class ChannelLoad implements LoadStrategy {

    @Override
    public String name() {
        return "channel";
    }

    @Override
    public long run(LoadSpec s) throws Exception {
        List<OpenOption> opts = new ArrayList<>();
        if (s.load() == Load.APPEND_WRITE) {
            opts.addAll(List.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING));
        } else {
            opts.add(s.load().write ? StandardOpenOption.WRITE : StandardOpenOption.READ);
        }
        if (s.direct()) {
            opts.add(io.github.uring4j.bench.common.DirectIo.option());
        }
        ByteBuffer bb = io.github.uring4j.bench.common.Buffers.alignedDirect(s.ioSize());
        MemorySegment seg = MemorySegment.ofBuffer(bb);
        ByteBuffer pattern = s.pattern().asByteBuffer();
        try (FileChannel ch = FileChannel.open(s.file(), opts.toArray(new OpenOption[0]))) {
            long t0 = System.nanoTime();
            for (long off : s.offsets()) {
                if (s.load().write) {
                    int phase = (int) (off % s.period());
                    // O_DIRECT needs the source aligned too: the pattern segment is page-aligned, phases are io-size multiples.
                    ByteBuffer src = pattern.slice(phase, s.ioSize());
                    while (src.hasRemaining()) {
                        ch.write(src, off + src.position());
                    }
                } else {
                    bb.clear();
                    while (bb.hasRemaining()) {
                        if (ch.read(bb, off + bb.position()) < 0) {
                            throw new LoadStrategy.VerificationError(name(), s, off + bb.position());
                        }
                    }
                    long bad = s.verify(seg, 0, off, s.ioSize());
                    if (bad >= 0) {
                        throw new LoadStrategy.VerificationError(name(), s, bad);
                    }
                }
            }
            if (s.load().write && s.fsync()) {
                ch.force(false);
            }
            return System.nanoTime() - t0;
        }
    }
}
