package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The default bytes of page-cache transfers in flight, from a cache directory laid out as the kernel's sysfs. */
class CpuCachesTest {
    @TempDir
    Path root;

    private void cache(int index, String level, String type, String size, String shared) throws IOException {
        Path d = Files.createDirectories(root.resolve("index" + index));
        Files.writeString(d.resolve("level"), level + "\n");
        Files.writeString(d.resolve("type"), type + "\n");
        Files.writeString(d.resolve("size"), size + "\n");
        if (shared != null) {
            Files.writeString(d.resolve("shared_cpu_list"), shared + "\n");
        }
    }

    private void typicalL1() throws IOException {
        cache(0, "1", "Data", "48K", "0");
        cache(1, "1", "Instruction", "64K", "0");
    }

    @Test
    void aPrivateL2OfTwoMegabytesGivesHalfAMegabyte() throws IOException {
        typicalL1();
        cache(2, "2", "Unified", "2048K", "0");
        cache(3, "3", "Unified", "491520K", "0-1");
        assertEquals(2L << 20, CpuCaches.l2PerCore(root));
        assertEquals(512L << 10, CpuCaches.inFlightBytes(CpuCaches.l2PerCore(root)));
    }

    @Test
    void anL2SharedByFourCoresCountsAQuarterForEach() throws IOException {
        typicalL1();
        cache(2, "2", "Unified", "4M", "0-3");
        assertEquals(1L << 20, CpuCaches.l2PerCore(root));
        assertEquals(256L << 10, CpuCaches.inFlightBytes(CpuCaches.l2PerCore(root)));
    }

    @Test
    void theBoundStaysBetweenTheLimits() {
        assertEquals(CpuCaches.MIN_BYTES, CpuCaches.inFlightBytes(256L << 10));
        assertEquals(CpuCaches.MIN_BYTES, CpuCaches.inFlightBytes(1));
        assertEquals(CpuCaches.MAX_BYTES, CpuCaches.inFlightBytes(32L << 20));
        assertEquals(1L << 20, CpuCaches.inFlightBytes(4L << 20));
        assertEquals(CpuCaches.UNKNOWN_BYTES, CpuCaches.inFlightBytes(0));
    }

    @Test
    void noL2OrNoSysfsIsUnknown() throws IOException {
        assertEquals(0, CpuCaches.l2PerCore(root.resolve("missing")));
        typicalL1();
        cache(2, "3", "Unified", "32M", "0-7");
        assertEquals(0, CpuCaches.l2PerCore(root));
    }

    @Test
    void unreadableSizesAndListsAreNotTrusted() {
        assertEquals(0, CpuCaches.size("lots"));
        assertEquals(0, CpuCaches.size("-1K"));
        assertEquals(0, CpuCaches.size(""));
        assertEquals(1536L << 10, CpuCaches.size("1536K"));
        assertEquals(1048576, CpuCaches.size("1048576"));
        assertEquals(1, CpuCaches.cpus("3-1"));
        assertEquals(1, CpuCaches.cpus("x"));
        assertEquals(5, CpuCaches.cpus("0-3,8"));
    }

    @Test
    void thisMachinesDefaultIsWithinTheLimits() {
        long b = CpuCaches.defaultInFlightBytes();
        assertTrue(b >= CpuCaches.MIN_BYTES && b <= CpuCaches.MAX_BYTES, b + " bytes");
    }
}
