package io.github.uring4j.file;

/**
 * Boxed results without allocation for the usual sizes: {@code CompletionHandler<Integer, A>} needs an
 * {@code Integer}, and I/O sizes are mostly multiples of 512 bytes, which are cached here up to 1 MiB.
 */
final class Boxes {
    private static final int SHIFT = 9;
    private static final int LIMIT = 1 << 20;
    private static final Integer[] CACHE = new Integer[(LIMIT >> SHIFT) + 1];

    static {
        for (int i = 0; i < CACHE.length; i++) {
            CACHE[i] = Integer.valueOf(i << SHIFT); // NOPMD: the point is to hold distinct boxes
        }
    }

    private Boxes() {
    }

    static Integer of(int n) {
        if (n >= 0 && n <= LIMIT && (n & ((1 << SHIFT) - 1)) == 0) {
            return CACHE[n >> SHIFT];
        }
        return Integer.valueOf(n);
    }
}
