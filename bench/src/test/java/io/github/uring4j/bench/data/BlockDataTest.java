package io.github.uring4j.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.uring4j.bench.UsageError;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockDataTest {

    @Test
    void filledRangeVerifiesAtAnyAlignedOffset() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(3 * 4096);
            BlockData.fill(s, 0, 7, 4096 + 512, 3 * 4096 - 1024);
            assertEquals(-1, BlockData.verify(s, 0, 7, 4096 + 512, 3 * 4096 - 1024));
            assertEquals(-1, BlockData.verify(s, 4096 - 512, 7, 8192, 1024));
        }
    }

    @Test
    void wordsDependOnFileAndBlock() {
        assertNotEquals(BlockData.word(0, 0), BlockData.word(1, 0));
        assertNotEquals(BlockData.word(0, 0), BlockData.word(0, 4096));
        assertNotEquals(BlockData.word(0, 0), BlockData.word(0, 8));
    }

    @Test
    void oneFlippedByteIsFoundAtItsWord() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(4096);
            BlockData.fill(s, 0, 3, 40960, 4096);
            s.set(ValueLayout.JAVA_BYTE, 1234, (byte) ~s.get(ValueLayout.JAVA_BYTE, 1234));
            assertEquals(40960 + 1232, BlockData.verify(s, 0, 3, 40960, 4096));
        }
    }

    @Test
    void blockOfAnotherFileDoesNotVerify() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(4096);
            BlockData.fill(s, 0, 1, 0, 4096);
            assertEquals(0, BlockData.verify(s, 0, 2, 0, 4096));
        }
    }

    @Test
    void corruptedDataSetIsDetectedOnDisk(@TempDir Path dir) throws Exception {
        DataSet ds = Generator.generate(dir, 1, 8, true);
        Generator.corrupt(ds, 1, 5);
        byte[] all = Files.readAllBytes(ds.file(0));
        int bad = 0;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(all.length);
            MemorySegment.copy(MemorySegment.ofArray(all), 0, s, 0, all.length);
            for (long b = 0; b < 8; b++) {
                if (BlockData.verify(s, b * 4096, 0, b * 4096, 4096) >= 0) {
                    bad++;
                }
            }
        }
        assertEquals(1, bad);
    }

    @Test
    void missingDataSetIsAUsageError(@TempDir Path dir) {
        assertThrows(UsageError.class, () -> DataSet.load(dir.resolve("none")));
    }

    /**
     * A data set generated again replaces the earlier one's files, all of them: a larger earlier set left files past
     * the new count, and a killed run's partial files were counted against the rerun's disk space. Other files stay.
     */
    @Test
    void generatingAgainReplacesTheEarlierDataSetsFilesOnly(@TempDir Path dir) throws Exception {
        DataSet four = Generator.generate(dir, 4, 8, true);
        Files.writeString(dir.resolve("notes.txt"), "mine");
        DataSet one = Generator.generate(dir, 1, 8, true);
        for (int f = 1; f < 4; f++) {
            assertFalse(Files.exists(four.file(f)), "file " + f + " of the earlier, larger data set");
        }
        assertEquals(8 * 4096, Files.size(one.file(0)));
        assertEquals("mine", Files.readString(dir.resolve("notes.txt")));
        assertEquals(1, DataSet.load(dir).files());
    }
}
