package io.github.uring4j.bench.loadtypes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.common.Result;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The load types check what every strategy wrote, also now that the strategies take turns on the same file. */
class LoadTypesCommandTest {

    @TempDir
    Path dir;

    @AfterEach
    void forgetTheLiar() {
        LoadTypesCommand.STRATEGIES.remove("liar");
    }

    /** Writes as the channel strategy does, but zeros instead of the pattern at the offset {@code bad}. */
    private static LoadStrategy liar(long bad) {
        return new LoadStrategy() {
            @Override
            public String name() {
                return "liar";
            }

            @Override
            public long run(LoadSpec s) throws IOException {
                try (FileChannel ch = FileChannel.open(s.file(), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    long t0 = System.nanoTime();
                    for (long off : s.offsets()) {
                        ByteBuffer src = off == bad ? ByteBuffer.allocate(s.ioSize())
                                : s.pattern().asByteBuffer().slice((int) (off % s.period()), s.ioSize());
                        while (src.hasRemaining()) {
                            ch.write(src, off + src.position());
                        }
                    }
                    return System.nanoTime() - t0;
                }
            }
        };
    }

    private LoadTypesCommand command(String load, String strategies) {
        LoadTypesCommand c = new LoadTypesCommand();
        c.dir = dir;
        c.sizes = List.of("1M");
        c.seqIo = "64K";
        c.loads = List.of(load);
        c.strategies = List.of(strategies.split(","));
        c.minTime = 0.05;
        c.warmUp = 0; // the liar is to be caught in the measured turns
        c.quiet = true;
        return c;
    }

    @Test
    void aWrongBlockOfARandomWriteIsCaughtEvenWhenAnotherStrategyRewritesIt() {
        // The liar's turns are followed by the channel's, which write the same offsets correctly: the block must be
        // checked right after the liar's turn, not only at the end.
        long[] offsets = LoadTypesCommand.offsets(Load.RANDOM_WRITE, 1 << 20, 4096, 7);
        LoadTypesCommand.STRATEGIES.put("liar", () -> liar(offsets[0]));
        IOException e = assertThrows(IOException.class, () -> command("random-write", "liar,channel").run());
        assertTrue(e.getMessage().startsWith("liar random-write: wrong data written at byte " + offsets[0]), e.getMessage());
    }

    @Test
    void aWrongBlockOfAnAppendIsCaught() {
        LoadTypesCommand.STRATEGIES.put("liar", () -> liar(5 * 65536));
        IOException e = assertThrows(IOException.class, () -> command("append-write", "channel,liar").run());
        assertTrue(e.getMessage().startsWith("liar append-write: wrong data written at byte " + 5 * 65536), e.getMessage());
    }

    @Test
    void aWrongBlockWrittenInTheWarmUpIsCaught() {
        long[] offsets = LoadTypesCommand.offsets(Load.RANDOM_WRITE, 1 << 20, 4096, 11); // the warm-up's offsets
        LoadTypesCommand.STRATEGIES.put("liar", () -> liar(offsets[0]));
        LoadTypesCommand c = command("seq-read", "channel,liar");
        c.warmUp = 0.01;
        IOException e = assertThrows(IOException.class, c::run);
        assertTrue(e.getMessage().startsWith("liar random-write (warm-up): wrong data written at byte "), e.getMessage());
    }

    @Test
    void everyStrategyGetsARowWithItsTurns() throws Exception {
        LoadTypesCommand c = command("random-write", "channel,ring,async,mmap");
        c.warmUp = 0.01;
        List<Result> rows = c.run();
        assertEquals(List.of("channel", "ring", "async", "mmap"), rows.stream().map(r -> r.strategy).toList());
        for (Result r : rows) {
            assertTrue(Integer.parseInt(r.params.get("turns")) >= 1, r.params.toString());
            assertTrue(r.primaryValue() > 0, r.strategy + " measured no rate");
        }
    }
}
