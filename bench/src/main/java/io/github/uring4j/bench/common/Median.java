package io.github.uring4j.bench.common;

import java.util.Arrays;

/** The median of measurements: the middle one, or the mean of the two middle ones. */
public final class Median {
    private Median() {
    }

    public static double of(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
