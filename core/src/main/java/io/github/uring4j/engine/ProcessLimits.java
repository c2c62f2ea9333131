package io.github.uring4j.engine;

/** The process's resource limits, as {@code /proc/self/limits} says them (read with one descriptor, at once closed). */
public final class ProcessLimits {
    private ProcessLimits() {
    }

    /** The soft limit of open descriptors ({@code ulimit -n}), or -1 (unlimited, or unknown). */
    public static long openFiles() {
        try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.FileReader("/proc/self/limits",
                java.nio.charset.StandardCharsets.US_ASCII))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not known
        }
        return -1;
    }
}
