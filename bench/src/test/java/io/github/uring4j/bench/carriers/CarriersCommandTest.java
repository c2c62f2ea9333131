package io.github.uring4j.bench.carriers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CarriersCommandTest {
    @TempDir
    Path tmp;

    @Test
    void bothChannelsTakeTurnsAndTheirFilesAreChecked() throws Exception {
        Path json = tmp.resolve("carriers.json");
        int exit = new CommandLine(new CarriersCommand()).execute("--dir", tmp.resolve("d").toString(), "--seconds",
                "0.3", "--rounds", "1", "--big", "4", "-q", "--json", json.toString());
        assertEquals(0, exit);
        List<Result> rows = ResultFile.read(json).results;
        assertEquals(4, rows.size(), rows.toString());
        for (Result r : rows) {
            assertTrue(r.primaryValue() > 0, r.strategy + " " + r.params + " " + r.metrics);
            if (r.strategy.equals(CarriersCommand.JDK)) {
                assertEquals("0", r.params.get("off_carrier_calls"), "the JDK's channel counted as the drop-in's");
            }
        }
    }

    @Test
    void aBlockThatDoesNotHoldItsLastRecordFailsTheCheck() throws Exception {
        Path file = tmp.resolve("f");
        long big = 8192;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ByteBuffer fill = ByteBuffer.allocate((int) big);
            while (fill.hasRemaining()) {
                fill.put((byte) 3);
            }
            ch.write(fill.flip(), 0);
            ByteBuffer b = ByteBuffer.allocate(CarriersCommand.BLOCK);
            CarriersCommand.record(b, 0, 41);
            ch.write(b, big);
        }
        CarriersCommand.check("t", file, big, (byte) 3, new long[] {41});
        IOException e = assertThrows(IOException.class,
                () -> CarriersCommand.check("t", file, big, (byte) 3, new long[] {42}));
        assertTrue(e.getMessage().contains("record 42"), e.getMessage());
        e = assertThrows(IOException.class, () -> CarriersCommand.check("t", file, big, (byte) 4, new long[] {41}));
        assertTrue(e.getMessage().contains("rewritten region"), e.getMessage());
    }
}
