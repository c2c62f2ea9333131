package io.github.uring4j.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How many bytes of page-cache transfers a loop keeps in flight by default, from the size of a core's level-2 cache.
 *
 * <p>The kernel copies cached data into the caller's buffers with the CPU, and on one loop it copies them one after
 * the other: more transfers in flight save system calls but add no parallelism, and once the buffers they fill no
 * longer fit the core's L2 cache beside the page-cache data streaming through it, every byte the caller then reads
 * from them comes from further away. Measured on a 2-core VM (Intel Xeon, 2 MiB of L2 per core; {@code loadtypes},
 * every block verified, async API against the JDK's {@code FileChannel} on the same files in the same run): 64 KiB
 * random reads at 2 MiB in flight 0.88–0.95 times the channel's rate, at 1 MiB 1.03–1.06, at 512 KiB 1.09–1.14;
 * 16 KiB random reads at 1 MiB 1.02–1.11, at 512 KiB 1.10–1.23, at 256 KiB about the same as at 512 KiB; 128 KiB
 * random reads at 1 MiB 1.04–1.08, at 512 KiB 1.06–1.15; 1 MiB sequential reads two at a time 0.97–1.00, one at a
 * time 1.08–1.11. Below a quarter of the L2 cache the rate stays flat; above it, it falls. So the default is a
 * quarter of one core's share of its L2 cache, between {@link #MIN_BYTES} and {@link #MAX_BYTES};
 * {@link #UNKNOWN_BYTES} when sysfs does not say.
 */
public final class CpuCaches {
    static final long MIN_BYTES = 128 << 10;
    static final long MAX_BYTES = 2 << 20;
    static final long UNKNOWN_BYTES = 512 << 10;

    private static volatile long inFlightBytes;

    private CpuCaches() {
    }

    /** The default bytes of page-cache transfers in flight per file and loop on this machine (read once). */
    public static long defaultInFlightBytes() {
        long b = inFlightBytes;
        if (b == 0) {
            b = inFlightBytes(l2PerCore(Path.of("/sys/devices/system/cpu/cpu0/cache")));
            inFlightBytes = b;
        }
        return b;
    }

    /** A quarter of {@code l2} bytes (0: unknown), between {@link #MIN_BYTES} and {@link #MAX_BYTES}. */
    static long inFlightBytes(long l2) {
        if (l2 <= 0) {
            return UNKNOWN_BYTES;
        }
        return Math.max(MIN_BYTES, Math.min(MAX_BYTES, l2 / 4));
    }

    /**
     * One CPU's share of its level-2 cache (the cache's size divided by the CPUs that share it), from a directory
     * laid out as the kernel's {@code /sys/devices/system/cpu/cpuN/cache}; 0 when it says nothing usable.
     */
    static long l2PerCore(Path cacheDir) {
        for (int i = 0; i < 16; i++) {
            Path index = cacheDir.resolve("index" + i);
            if (!Files.isDirectory(index)) {
                break;
            }
            String type = text(index.resolve("type"));
            if (!"2".equals(text(index.resolve("level"))) || "Instruction".equals(type)) {
                continue;
            }
            long size = size(text(index.resolve("size")));
            int sharing = cpus(text(index.resolve("shared_cpu_list")));
            return size <= 0 ? 0 : size / Math.max(1, sharing);
        }
        return 0;
    }

    /** {@code 2048K}, {@code 1M}, {@code 1048576}: bytes; 0 when it is something else. */
    static long size(String s) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        long unit = switch (Character.toUpperCase(s.charAt(s.length() - 1))) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> 1;
        };
        String digits = unit == 1 ? s : s.substring(0, s.length() - 1);
        try {
            long n = Long.parseLong(digits);
            return n > 0 && n <= (1L << 40) / unit ? n * unit : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** CPUs in a list such as {@code 0-3,8}; 1 when it says nothing usable. */
    static int cpus(String list) {
        if (list == null || list.isEmpty()) {
            return 1;
        }
        int n = 0;
        try {
            for (String part : list.split(",")) {
                int dash = part.indexOf('-');
                if (dash < 0) {
                    Integer.parseInt(part);
                    n++;
                } else {
                    int lo = Integer.parseInt(part.substring(0, dash));
                    int hi = Integer.parseInt(part.substring(dash + 1));
                    if (hi < lo) {
                        return 1;
                    }
                    n += hi - lo + 1;
                }
            }
        } catch (NumberFormatException e) {
            return 1;
        }
        return Math.max(1, n);
    }

    /**
     * Read with {@code java.io}, not {@code Files}: with uring4j as the default provider, {@code Files} read through
     * its own drop-in channel, whose first ring call on a virtual thread builds the default executor, which asks here
     * (found by a hostile probe: a recursion that ended in {@code StackOverflowError} on a full heap).
     */
    private static String text(Path p) {
        try (java.io.FileInputStream in = new java.io.FileInputStream(p.toFile())) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
