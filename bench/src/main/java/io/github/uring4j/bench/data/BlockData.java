package io.github.uring4j.bench.data;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The content of every benchmark file: block {@code b} of file {@code f} holds 512 little-endian words derived from
 * a 64-bit hash of (f, b). Any 8-byte-aligned range of a file can be regenerated from its
 * offset alone, so every strategy can verify exactly what it read, at any buffer size.
 */
public final class BlockData {

    /** The block the data sets are made of (and the unit {@code read} verifies). */
    public static final int BLOCK_SIZE = 4096;

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private BlockData() {
    }

    private static final long STEP = 0x9E3779B97F4A7C15L;

    /** The hash of (file, block) every word of that block derives from. */
    public static long blockKey(int fileId, long block) {
        return mix((fileId + 1L) * 0xD1B54A32D192ED03L ^ mix(block + 0x632BE59BD9B4E019L));
    }

    /** Word at byte {@code fileOffset} (a multiple of 8) of file {@code fileId}. */
    public static long word(int fileId, long fileOffset) {
        long index = (fileOffset % BLOCK_SIZE) >>> 3;
        // Word i is the block's key xor i times an odd constant: any change to any byte changes its word, and a
        // check costs one multiply-free xor and compare per word, so verification never dominates a measurement.
        return blockKey(fileId, fileOffset / BLOCK_SIZE) ^ (index * STEP);
    }

    /** A 64-bit finalizer (the MurmurHash3 / SplitMix family): every input bit affects every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Writes {@code length} bytes of file {@code fileId} starting at {@code fileOffset} into {@code dst} at {@code dstOffset}. */
    public static void fill(MemorySegment dst, long dstOffset, int fileId, long fileOffset, long length) {
        check(fileOffset, length);
        long i = 0;
        while (i < length) {
            long off = fileOffset + i;
            long key = blockKey(fileId, off / BLOCK_SIZE);
            long words = Math.min((BLOCK_SIZE - off % BLOCK_SIZE), length - i) >>> 3;
            long idx = (off % BLOCK_SIZE) >>> 3;
            for (long w = 0; w < words; w++, idx++, i += 8) {
                dst.set(WORD, dstOffset + i, key ^ (idx * STEP));
            }
        }
    }

    /**
     * Checks {@code length} bytes of {@code src} at {@code srcOffset} against file {@code fileId} at
     * {@code fileOffset}: returns -1 when they match, else the file offset of the first wrong word.
     */
    public static long verify(MemorySegment src, long srcOffset, int fileId, long fileOffset, long length) {
        check(fileOffset, length);
        long i = 0;
        while (i < length) {
            long off = fileOffset + i;
            long key = blockKey(fileId, off / BLOCK_SIZE);
            long words = Math.min((BLOCK_SIZE - off % BLOCK_SIZE), length - i) >>> 3;
            long idx = (off % BLOCK_SIZE) >>> 3;
            long diff = 0;
            long base = srcOffset + i;
            for (long w = 0; w < words; w++) {
                diff |= src.get(WORD, base + (w << 3)) ^ key ^ ((idx + w) * STEP);
            }
            if (diff != 0) {
                for (long w = 0; w < words; w++) {
                    if (src.get(WORD, base + (w << 3)) != (key ^ ((idx + w) * STEP))) {
                        return off + (w << 3);
                    }
                }
            }
            i += words << 3;
        }
        return -1;
    }

    /** The word actually found at {@code srcOffset}, for error messages. */
    public static long wordAt(MemorySegment src, long srcOffset) {
        return src.get(WORD, srcOffset);
    }

    private static void check(long fileOffset, long length) {
        if ((fileOffset & 7) != 0 || (length & 7) != 0) {
            throw new IllegalArgumentException("offset and length must be multiples of 8: " + fileOffset + ", " + length);
        }
    }
}
