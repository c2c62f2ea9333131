package io.github.uring4j.engine.uring;

import io.github.uring4j.linux.LeanCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Which whole-file reads ({@code AsyncFile.readFile}) must read on after a read that filled less than the buffer. A
 * regular file's read ends short only at the end of the file, so one read is the whole file, except that the kernel
 * moves at most {@link #MAX_RW_COUNT} bytes a call. The files of procfs, sysfs and their kind say they are empty and
 * give about a page a read (a {@code seq_file}'s buffer), however large the buffer: {@code /proc/self/maps} read
 * once gave 4,095 of its 19,336 bytes. So after a short read the file system is asked ({@code statfs} of the file),
 * once per directory: a checksum of 20,000 small files, whose every read is short, asks once per directory. A file
 * that is a mount point of its own under a directory on disk is then read once, as before.
 */
final class ShortReads {
    /** The most bytes one {@code read} moves ({@code MAX_RW_COUNT}: 2 GiB - 4 KiB). */
    static final int MAX_RW_COUNT = 0x7ffff000;

    /** {@code <linux/magic.h>}: file systems whose files are made as they are read. */
    private static final long[] MADE_AS_READ = {
        0x9fa0L, // PROC_SUPER_MAGIC
        0x62656572L, // SYSFS_MAGIC
        0x64626720L, // DEBUGFS_MAGIC
        0x74726163L, // TRACEFS_MAGIC
        0x73636673L, // SECURITYFS_MAGIC
        0x27e0ebL, // CGROUP_SUPER_MAGIC
        0x63677270L, // CGROUP2_SUPER_MAGIC
        0x62656570L, // CONFIGFS_MAGIC
    };

    private final Arena arena;
    private final String[] dirs = new String[16];
    private final boolean[] madeAsRead = new boolean[16];
    private int next;
    private MemorySegment capture;
    private MemorySegment statfs;

    /** {@code arena}: the loop's, for the two buffers the first question needs. */
    ShortReads(Arena arena) {
        this.arena = arena;
    }

    /**
     * Whether the whole-file read of {@code spec}'s file on slot {@code s}, which read {@code n} bytes, fewer than its
     * buffer holds, must read on to the end of the file. The path's C string is made only for a directory not seen
     * yet.
     */
    boolean readOn(Slot s, io.github.uring4j.engine.OpenSpec spec, int n) {
        if (n == MAX_RW_COUNT) {
            return true;
        }
        String path = spec.path();
        int end = path.lastIndexOf('/');
        for (int i = 0; i < dirs.length; i++) {
            String d = dirs[i];
            if (d != null && d.length() == end && path.startsWith(d)) {
                return madeAsRead[i];
            }
        }
        if (capture == null) {
            capture = LeanCalls.allocateCapture(arena);
            statfs = arena.allocate(LeanCalls.STATFS_SIZE, 8);
        }
        long type = LeanCalls.fileSystem(capture, s.path(spec), statfs);
        boolean made = false;
        for (long t : MADE_AS_READ) {
            made |= type == t;
        }
        if (end >= 0 && type != 0) {
            dirs[next] = path.substring(0, end);
            madeAsRead[next] = made;
            next = (next + 1) % dirs.length;
        }
        return made;
    }
}
