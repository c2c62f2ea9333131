package io.github.uring4j.bench.common;

import io.github.uring4j.bench.UsageError;
import java.util.Locale;

/** Byte sizes as people type them: {@code 4096}, {@code 4k}, {@code 64KiB}, {@code 1M}, {@code 2g}. */
public final class Sizes {

    private Sizes() {
    }

    public static long parse(String option, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        long mul = 1;
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
            long v = Long.parseLong(t) * mul;
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new UsageError(option + ": not a positive size: '" + text + "' (examples: 4096, 4k, 1M, 2G)");
        }
    }

    /** {@code 4096 -> "4K"}, {@code 1536 -> "1536"}: short and exact. */
    public static String format(long bytes) {
        String[] units = {"", "K", "M", "G", "T"};
        int u = 0;
        while (u < units.length - 1 && bytes >= 1024 && bytes % 1024 == 0) {
            bytes /= 1024;
            u++;
        }
        return bytes + units[u];
    }
}
