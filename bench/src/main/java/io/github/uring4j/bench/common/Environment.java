package io.github.uring4j.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Where a figure was measured: machine, kernel, JDK, file system and page-cache state. */
public final class Environment {
    public String cpu;
    public int cores;
    public String ram;
    public String kernel;
    public String jdk;
    public String fileSystem;
    public String pageCache;
    public String date;

    public static Environment capture(Path dataDir, String pageCacheState) {
        Environment e = new Environment();
        e.cpu = firstMatch(Path.of("/proc/cpuinfo"), "model name");
        e.cores = Runtime.getRuntime().availableProcessors();
        String mem = firstMatch(Path.of("/proc/meminfo"), "MemTotal");
        if (mem != null) {
            try {
                long kb = Long.parseLong(mem.replaceAll("[^0-9]", ""));
                e.ram = String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
            } catch (NumberFormatException ex) {
                e.ram = mem;
            }
        }
        e.kernel = read(Path.of("/proc/sys/kernel/osrelease"));
        e.jdk = System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version");
        e.fileSystem = dataDir == null ? null : fileSystem(dataDir);
        e.pageCache = pageCacheState;
        e.date = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        return e;
    }

    /** "ext4 on /dev/vda (mounted at /)" for the mount that holds {@code dir}, from /proc/self/mountinfo. */
    public static String fileSystem(Path dir) {
        try {
            Path real = dir.toRealPath();
            String best = null;
            int bestLen = -1;
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                int dash = List.of(f).indexOf("-");
                if (f.length < 5 || dash < 0 || dash + 2 >= f.length) {
                    continue;
                }
                String mp = f[4].replace("\\040", " ");
                if ((real.startsWith(mp)) && mp.length() >= bestLen) {
                    bestLen = mp.length();
                    best = f[dash + 1] + " on " + f[dash + 2] + " (mounted at " + mp + ")";
                }
            }
            return best;
        } catch (IOException | RuntimeException ex) {
            return null;
        }
    }

    private static String firstMatch(Path p, String key) {
        try {
            for (String l : Files.readAllLines(p)) {
                if (l.startsWith(key)) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // fall through: unknown
        }
        return null;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return null;
        }
    }

    /** One line for a table caption. */
    public String oneLine() {
        return String.format(Locale.ROOT, "%s, %d cores, %s RAM; Linux %s; %s; %s; data %s", cpu, cores, ram, kernel, jdk,
                fileSystem == null ? "file system unknown" : fileSystem, pageCache == null ? "page cache state unknown" : pageCache);
    }
}
