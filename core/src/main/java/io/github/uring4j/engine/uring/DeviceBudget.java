package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One loop's {@code O_DIRECT} requests in flight on one block device, and those waiting for room.
 *
 * <p>io_uring submits an {@code O_DIRECT} read with {@code REQ_NOWAIT}: when the device's request tags are all
 * taken the block layer says {@code EAGAIN} and io_uring hands the read to an io-wq worker, which waits for a tag
 * on a thread of its own. 10,000 virtual threads reading through one loop with 1,024 reads in the kernel ran at 0.76
 * times the rate of the JDK's {@code FileChannel} on a virtio disk with 128 tags; 128 in the kernel, 0.9 times. So a
 * loop keeps no more {@code O_DIRECT} requests of a device in the kernel than the device has tags (the sum of
 * {@code /sys/dev/block/M:m/mq/}{@code *}{@code /nr_tags}, or of the whole disk for a partition; {@code nr_requests}
 * where there is no mq directory; {@link io.github.uring4j.engine.EngineConfig#directInFlight} when set), and the
 * rest wait here in order. Loop thread only, but for the shared cache of what each device has.
 */
final class DeviceBudget {
    /** Tags per device ({@code major << 32 | minor}), read from sysfs once per process. */
    private static final ConcurrentHashMap<Long, Integer> TAGS = new ConcurrentHashMap<>();
    /** When sysfs says nothing (no such device, a network file system): no limit beyond the file's own. */
    static final int UNKNOWN = Integer.MAX_VALUE;

    final int cap;
    int inFlight;
    final ArrayDeque<Request> waiting = new ArrayDeque<>();

    DeviceBudget(int cap) {
        this.cap = cap;
    }

    /** What the device at {@code key} takes at once, read from sysfs on first use. */
    static int tags(long key) {
        return TAGS.computeIfAbsent(key, k -> read((int) (k >>> 32), (int) (long) k));
    }

    static long key(int major, int minor) {
        return ((long) major << 32) | (minor & 0xffffffffL);
    }

    private static int read(int major, int minor) {
        try {
            Path dev = Path.of("/sys/dev/block/" + major + ":" + minor).toRealPath();
            if (Files.exists(dev.resolve("partition"))) {
                dev = dev.getParent(); // a partition: the disk holds the queue
            }
            int sum = 0;
            Path mq = dev.resolve("mq");
            if (Files.isDirectory(mq)) {
                try (var queues = Files.list(mq)) {
                    for (Path q : (Iterable<Path>) queues::iterator) {
                        Path t = q.resolve("nr_tags");
                        if (Files.isReadable(t)) {
                            sum += Integer.parseInt(Files.readString(t).trim());
                        }
                    }
                }
            }
            if (sum <= 0) {
                Path nr = dev.resolve("queue").resolve("nr_requests");
                if (Files.isReadable(nr)) {
                    sum = Integer.parseInt(Files.readString(nr).trim());
                }
            }
            return sum > 0 ? sum : UNKNOWN;
        } catch (java.io.IOException | RuntimeException e) {
            return UNKNOWN; // no sysfs entry for it: leave the device unbounded
        }
    }
}
