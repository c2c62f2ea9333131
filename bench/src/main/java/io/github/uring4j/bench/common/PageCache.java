package io.github.uring4j.bench.common;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** How much of a set of files sits in the page cache, from {@code mincore(2)} over a read-only mapping. */
public final class PageCache {

    // Restricted: the bench runs with --enable-native-access (bin/uring4j-bench, JMH forks), as the library does.
    @SuppressWarnings("restricted")
    private static final MethodHandle MINCORE = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("mincore").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));

    private PageCache() {
    }

    /** Fraction (0..1) of the pages of {@code files} that are resident; -1 when it cannot be told. */
    public static double residentFraction(List<Path> files) {
        long pages = 0;
        long resident = 0;
        long pageSize = 4096;
        try (Arena arena = Arena.ofConfined()) {
            for (Path p : files) {
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                    long size = ch.size();
                    if (size == 0) {
                        continue;
                    }
                    MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                    long n = (size + pageSize - 1) / pageSize;
                    MemorySegment vec = arena.allocate(n);
                    int r = (int) MINCORE.invokeExact(map, size, vec);
                    if (r != 0) {
                        return -1;
                    }
                    for (long i = 0; i < n; i++) {
                        resident += vec.get(ValueLayout.JAVA_BYTE, i) & 1;
                    }
                    pages += n;
                }
            }
        } catch (IOException e) {
            return -1;
        } catch (Throwable t) {
            return -1;
        }
        return pages == 0 ? -1 : (double) resident / pages;
    }

    /** "cached 100%", "cold 0%", "partly cached 37%". */
    public static String describe(double fraction) {
        if (fraction < 0) {
            return "unknown";
        }
        long pct = Math.round(fraction * 100);
        String word = pct >= 99 ? "cached" : pct <= 1 ? "cold" : "partly cached";
        return word + " (" + pct + "% of pages resident)";
    }
}
