package io.github.uring4j.bench.iops;

import io.github.uring4j.bench.UsageError;
import java.util.Locale;

/** Sizes written as {@code 4096}, {@code 64k}, {@code 256m}, {@code 2g}. */
final class Sizes {
    private Sizes() {
    }

    static long parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        long mul = 1;
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> mul = 1L << 10;
                case 'm' -> mul = 1L << 20;
                case 'g' -> mul = 1L << 30;
                case 't' -> mul = 1L << 40;
                default -> mul = 1;
            }
            if (mul != 1) {
                t = t.substring(0, t.length() - 1);
            }
        }
        try {
            long v = Long.parseLong(t);
            if (v <= 0) {
                throw new UsageError("size must be positive: " + s);
            }
            return Math.multiplyExact(v, mul);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new UsageError("not a size: '" + s + "' (examples: 4096, 64k, 256m, 2g)");
        }
    }
}
