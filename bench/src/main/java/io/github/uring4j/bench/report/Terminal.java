package io.github.uring4j.bench.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A section as the terminal shows it while the report runs: a heading, the command, and its table with aligned
 * columns in at most {@link #WIDTH} characters (the rarer latency percentiles give way first; the files keep every
 * column).
 */
public final class Terminal {
    static final int WIDTH = 120;
    /** Columns dropped, in this order, until the table fits. */
    private static final List<String> DROP_FIRST = List.of("p90 µs", "p9999 µs", "p999 µs", "max µs", "carrier threads");

    /** A cell that is a figure: digits with separators, a ratio, a dash for none. */
    private static final java.util.regex.Pattern FIGURE = java.util.regex.Pattern.compile("[-–0-9.,]+(×|%)?");

    private Terminal() {
    }

    /** Prints {@code s}'s heading and table. */
    public static void print(PrintStream out, Section s) {
        out.println();
        out.println(s.title);
        out.println("=".repeat(Math.min(WIDTH, s.title.length())));
        if (s.command != null) {
            out.println(clip("$ " + s.command));
        }
        out.println();
        for (String line : lines(Render.table(s))) {
            out.println(line);
        }
    }

    /** A table's rows as aligned lines that fit {@link #WIDTH} columns. */
    static List<String> lines(List<List<String>> table) {
        List<List<String>> t = new ArrayList<>();
        for (List<String> row : table) {
            t.add(new ArrayList<>(row));
        }
        for (String drop : DROP_FIRST) {
            if (width(t) <= WIDTH) {
                break;
            }
            int c = t.get(0).indexOf(drop);
            if (c > 0) {
                for (List<String> row : t) {
                    row.remove(c);
                }
            }
        }
        int[] w = widths(t);
        int cols = t.get(0).size();
        boolean[] right = new boolean[cols];
        for (int c = 0; c < cols; c++) {
            right[c] = true;
            for (int r = 1; r < t.size(); r++) {
                right[c] &= FIGURE.matcher(t.get(r).get(c)).matches();
            }
        }
        List<String> out = new ArrayList<>();
        for (int r = 0; r < t.size(); r++) {
            StringBuilder b = new StringBuilder();
            for (int c = 0; c < t.get(r).size(); c++) {
                String cell = t.get(r).get(c);
                if (c > 0) {
                    b.append("  ");
                }
                // Figures align right, words left; the last column is not padded.
                b.append(c == cols - 1 && !right[c] ? cell : pad(cell, w[c], right[c]));
            }
            out.add(clip(b.toString().stripTrailing()));
            if (r == 0) {
                out.add(clip("-".repeat(Math.min(WIDTH, b.toString().stripTrailing().length()))));
            }
        }
        return out;
    }

    private static int[] widths(List<List<String>> t) {
        int[] w = new int[t.get(0).size()];
        for (List<String> row : t) {
            for (int c = 0; c < row.size() && c < w.length; c++) {
                w[c] = Math.max(w[c], row.get(c).length());
            }
        }
        return w;
    }

    private static int width(List<List<String>> t) {
        int sum = 0;
        for (int x : widths(t)) {
            sum += x + 2;
        }
        return sum - 2;
    }

    private static String pad(String s, int width, boolean right) {
        String fill = " ".repeat(Math.max(0, width - s.length()));
        return right ? fill + s : s + fill;
    }

    private static String clip(String s) {
        return s.length() <= WIDTH ? s : s.substring(0, WIDTH - 1) + "…";
    }
}
