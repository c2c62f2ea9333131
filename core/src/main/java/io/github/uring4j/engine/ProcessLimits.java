package io.github.uring4j.engine;

/** The process's resource limits, as {@code /proc/self/limits} says them (read with one descriptor, at once closed). */
public final class ProcessLimits {
    private ProcessLimits() {
    }

    /** {@link #openFiles} when {@code /proc/self/limits} could not be read (no descriptor to spare, say). */
    public static final long UNREADABLE = -2;

    /** The soft limit of open descriptors ({@code ulimit -n}); -1 unlimited or not said; {@link #UNREADABLE}. */
    public static long openFiles() {
        try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.FileReader("/proc/self/limits",
                java.nio.charset.StandardCharsets.US_ASCII))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (java.io.IOException e) {
            return UNREADABLE;
        } catch (RuntimeException e) {
            // not said in a form known here
        }
        return -1;
    }
}
