package io.github.uring4j.file;

/**
 * Boxed results without allocation for the usual sizes: {@code CompletionHandler<Integer, A>} needs an
 * {@code Integer}, and I/O sizes are mostly multiples of 512 bytes, which are cached here up to 1 MiB.
 */
final class Boxes {
    private static final int SHIFT = 9;
    private static final int LIMIT = 1 << 20;
    /**
     * Filled as sizes come: made at once, under a full heap, the 2,049 boxes failed this class's initialisation (the
     * first completion ever ran there, and a class that failed to initialise fails every later use). Null when even
     * the array could not be had then: every box is made.
     */
    private static final Integer[] CACHE = cache();

    private static Integer[] cache() {
        try {
            return new Integer[(LIMIT >> SHIFT) + 1];
        } catch (OutOfMemoryError e) {
            return null;
        }
    }

    private Boxes() {
    }

    static Integer of(int n) {
        Integer[] cache = CACHE;
        if (cache != null && n >= 0 && n <= LIMIT && (n & ((1 << SHIFT) - 1)) == 0) {
            Integer box = cache[n >> SHIFT];
            if (box == null) {
                // a race makes two boxes of one size at worst; an Integer is safe to hand across threads as it is
                box = Integer.valueOf(n); // NOPMD: the point is to hold distinct boxes
                cache[n >> SHIFT] = box;
            }
            return box;
        }
        return Integer.valueOf(n);
    }
}
