package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One loop's {@code O_DIRECT} requests in flight on one block device, and those waiting for room.
 *
 * <p>io_uring submits an {@code O_DIRECT} read with {@code REQ_NOWAIT}: when the block layer has no request left
 * to give it, it says {@code EAGAIN} and io_uring hands the read to an io-wq worker, which waits on a thread of its
 * own. 10,000 virtual threads reading through one loop with 1,024 reads in the kernel ran at 0.76 times the rate of
 * the JDK's {@code FileChannel} on a virtio disk; 128, 0.9 times. So a loop keeps no more {@code O_DIRECT}
 * requests of a device in the kernel than one of its hardware queues hands out without waiting (a loop submits from
 * one CPU at a time, which maps to one queue): with an I/O scheduler, the scheduler's requests
 * ({@code queue/nr_requests}); with none, the driver's tags ({@code mq/N/nr_tags}); of the whole disk for a
 * partition; {@link io.github.uring4j.engine.EngineConfig#directInFlight} when set. The rest wait here in order.
 * The scheduler's figure matters: the disk itself may take fewer at once (85 on the virtio disk of 128 tags and 256
 * scheduler requests measured here), and what the kernel holds beyond them is refilled from the scheduler the moment
 * a read ends, before the loop has even seen the completion. With 128 in the kernel the disk held 58–73 reads on
 * average and the loop ran at 0.86–0.93 times the JDK's rate; with 256, 76–82 (the JDK's 256 threads: 77–84) and
 * 0.85–1.0 times. Loop thread only, but for the shared cache of what each device has.
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
        return read(Path.of("/sys/dev/block"), major, minor);
    }

    /** What the device {@code major:minor} takes at once, from sysfs at {@code sysDevBlock}; {@link #UNKNOWN}. */
    static int read(Path sysDevBlock, int major, int minor) {
        try {
            Path dev = sysDevBlock.resolve(major + ":" + minor).toRealPath();
            if (Files.exists(dev.resolve("partition"))) {
                dev = dev.getParent(); // a partition: the disk holds the queue
            }
            int requests = number(dev.resolve("queue").resolve("nr_requests"));
            if (requests > 0 && scheduled(dev.resolve("queue").resolve("scheduler"))) {
                return requests;
            }
            int tags = 0;
            Path mq = dev.resolve("mq");
            if (Files.isDirectory(mq)) {
                try (var queues = Files.list(mq)) {
                    for (Path q : (Iterable<Path>) queues::iterator) {
                        tags = Math.max(tags, number(q.resolve("nr_tags")));
                    }
                }
            }
            int depth = tags > 0 ? tags : requests;
            return depth > 0 ? depth : UNKNOWN;
        } catch (java.io.IOException | RuntimeException e) {
            return UNKNOWN; // no sysfs entry for it: leave the device unbounded
        }
    }

    /** The number in a sysfs file, or 0 when it is missing or says something else. */
    private static int number(Path p) {
        try {
            return Files.isReadable(p) ? Integer.parseInt(Files.readString(p).trim()) : 0;
        } catch (java.io.IOException | NumberFormatException e) {
            return 0;
        }
    }

    /** True when the queue's scheduler file names one in use other than {@code none} ({@code [mq-deadline] none}). */
    private static boolean scheduled(Path p) {
        try {
            if (!Files.isReadable(p)) {
                return false;
            }
            String s = Files.readString(p);
            int open = s.indexOf('[');
            int close = s.indexOf(']', open + 1);
            return open >= 0 && close > open + 1 && !s.substring(open + 1, close).equals("none");
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
