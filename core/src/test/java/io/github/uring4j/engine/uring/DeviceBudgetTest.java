package io.github.uring4j.engine.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How deep a loop lets {@code O_DIRECT} requests into a device, from a sysfs tree laid out as the kernel's. */
class DeviceBudgetTest {
    @TempDir
    Path root;

    /** A disk at {@code devices/name} named by {@code block/major:minor}: its queue files, and one tags file per queue. */
    private Path disk(String name, int major, int minor, String scheduler, String requests, String... tags)
            throws IOException {
        Path dev = Files.createDirectories(root.resolve("devices").resolve(name));
        Path queue = Files.createDirectories(dev.resolve("queue"));
        if (scheduler != null) {
            Files.writeString(queue.resolve("scheduler"), scheduler + "\n");
        }
        if (requests != null) {
            Files.writeString(queue.resolve("nr_requests"), requests + "\n");
        }
        for (int i = 0; i < tags.length; i++) {
            Path q = Files.createDirectories(dev.resolve("mq").resolve(Integer.toString(i)));
            Files.writeString(q.resolve("nr_tags"), tags[i] + "\n");
        }
        link(dev, major, minor);
        return dev;
    }

    private void link(Path dev, int major, int minor) throws IOException {
        Path block = Files.createDirectories(root.resolve("block"));
        Files.createSymbolicLink(block.resolve(major + ":" + minor), dev);
    }

    private int depth(int major, int minor) {
        return DeviceBudget.read(root.resolve("block"), major, minor);
    }

    @Test
    void withASchedulerTheSchedulersRequestsCount() throws IOException {
        disk("vda", 253, 0, "none [mq-deadline] kyber bfq", "256", "128");
        assertEquals(256, depth(253, 0));
    }

    @Test
    void withoutASchedulerTheDriversTagsCount() throws IOException {
        disk("vdb", 253, 16, "[none] mq-deadline", "256", "128");
        assertEquals(128, depth(253, 16));
    }

    @Test
    void ofManyHardwareQueuesOneQueuesTagsCountNotTheirSum() throws IOException {
        disk("nvme0n1", 259, 0, "[none] mq-deadline", "1023", "1023", "1023", "1023", "1023");
        assertEquals(1023, depth(259, 0));
    }

    @Test
    void aPartitionHasItsDisksDepth() throws IOException {
        Path dev = disk("sda", 8, 0, "[bfq] none", "64", "32");
        Path part = Files.createDirectories(dev.resolve("sda1"));
        Files.writeString(part.resolve("partition"), "1\n");
        link(part, 8, 1);
        assertEquals(64, depth(8, 1));
    }

    @Test
    void aQueueWithoutMqOrSchedulerFilesHasItsRequests() throws IOException {
        disk("old", 3, 0, null, "128");
        assertEquals(128, depth(3, 0));
    }

    @Test
    void unreadableOrMissingFiguresLeaveTheDeviceUnbounded() throws IOException {
        disk("odd", 7, 0, "[mq-deadline]", "lots", "many");
        assertEquals(DeviceBudget.UNKNOWN, depth(7, 0));
        assertEquals(DeviceBudget.UNKNOWN, depth(0, 42)); // no such device: a network file system, say
    }

    @Test
    void aBrokenSchedulerFileFallsBackToTheTags() throws IOException {
        disk("half", 9, 0, "mq-deadline", "256", "64");
        assertEquals(64, depth(9, 0));
    }
}
