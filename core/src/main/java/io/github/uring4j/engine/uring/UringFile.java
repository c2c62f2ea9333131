package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.EngineConfig;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.IoBackend;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.Request;
import io.github.uring4j.ring.FileTarget;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file of the io_uring backend. Its descriptor is valid on every ring, so a request issued on any loop's thread
 * runs on that loop; requests from other threads go to its home loop (the one that opened it). A registered slot
 * belongs to the home ring only: the home loop uses it, other loops use the descriptor.
 */
final class UringFile extends FileHandle {
    final EventLoop home;
    /** Slot in the home ring's registered-file table, or -1. */
    final int fixedSlot;
    final FileTarget fdTarget;
    /** The target the home loop uses: the registered slot when there is one. */
    final FileTarget homeTarget;
    /** Per loop: requests in flight and waiting on that loop; element i is touched by loop i only. */
    private final PerLoop[] perLoop;
    /** Loops that ever ran a request of this file (bit i: loop i); set before the loop checks the file is open. */
    private final AtomicInteger touched = new AtomicInteger();
    /** Loops still to finish their requests before the descriptor is closed. */
    final AtomicInteger quiescing = new AtomicInteger();
    /** {@link #inlineWrites}: not yet known whether the file system takes {@code RWF_NOWAIT} writes. */
    static final int INLINE_UNKNOWN = 0;
    /** It does: buffered writes go to the kernel with {@code RWF_NOWAIT} from the loop first. */
    static final int INLINE_NOWAIT = 1;
    /** It refuses them (ext4): small buffered writes are plain writes made by the loop. */
    static final int INLINE_BLOCKING = 2;
    /** Never from the loop. */
    static final int INLINE_NEVER = 3;
    /** The block device of an {@code O_DIRECT} file ({@link DeviceBudget#key}), or -1: no device budget. */
    volatile long deviceKey = -1;
    /** {@link #type}: not asked yet. */
    static final int TYPE_UNKNOWN = 0;
    static final int TYPE_REGULAR = 1;
    /** A pipe, socket or device: an operation may wait on another (a read for a write), so none waits for bytes. */
    static final int TYPE_OTHER = 2;
    /** What kind of file this is, asked by the first loop that needs to know; any loop may set it. */
    volatile int type;
    /** {@link #inMemory}: not asked yet; in memory (tmpfs, ramfs); not; on overlayfs. */
    static final int MEMORY_UNKNOWN = 0;
    static final int MEMORY_YES = 1;
    static final int MEMORY_NO = 2;
    static final int MEMORY_OVERLAY = 3;
    /**
     * Whether the file lives in memory, or on overlayfs: the loops then read it themselves, an overlay file when
     * its pages are in the page cache (see {@link InlineWrites#read}).
     */
    volatile int inMemory;
    /** A read-only mapping of an overlayfs file, to ask which pages are cached ({@code mincore}); 0: none yet. */
    private long residencyAddress;
    private long residencyLength;
    /** The calls that made the mapping, to end it with. */
    private io.github.uring4j.linux.Syscalls residencySys;
    /** No mapping could be made (or more files would be mapped than {@link #MAX_RESIDENCY_MAPPINGS}). */
    private boolean residencyRefused;
    /** Overlayfs files mapped for {@code mincore} at once, in all: a mapping each counts against the process's. */
    static final int MAX_RESIDENCY_MAPPINGS = 1024;
    private static final java.util.concurrent.atomic.AtomicInteger RESIDENCY_MAPPINGS =
            new java.util.concurrent.atomic.AtomicInteger();

    /** The address of the mapping of {@link #residency} if it covers {@code end} bytes, else 0. */
    synchronized long mapped(long end) {
        return residencyAddress != 0 && end <= residencyLength ? residencyAddress : 0;
    }

    /**
     * The address of a read-only mapping of this file of at least {@code end} bytes (made, or made again larger, now),
     * or 0 where there can be none. Any loop may ask.
     */
    synchronized long residency(io.github.uring4j.linux.Syscalls sys, long end, long size) {
        if (residencyRefused || isClosed()) {
            return 0;
        }
        if (residencyAddress != 0 && end <= residencyLength) {
            return residencyAddress;
        }
        if (size < end) {
            return 0; // past the end of the file: the read says how much there is
        }
        if (residencyAddress == 0 && RESIDENCY_MAPPINGS.incrementAndGet() > MAX_RESIDENCY_MAPPINGS) {
            RESIDENCY_MAPPINGS.decrementAndGet();
            residencyRefused = true;
            return 0;
        }
        long addr = sys.mmap(0, size, io.github.uring4j.linux.Uapi.PROT_READ, io.github.uring4j.linux.Uapi.MAP_SHARED,
                fd, 0);
        if (addr < 0 && addr > -4096) {
            if (residencyAddress == 0) {
                RESIDENCY_MAPPINGS.decrementAndGet();
                residencyRefused = true;
            }
            return 0;
        }
        if (residencyAddress != 0) {
            sys.munmap(residencyAddress, residencyLength); // a smaller one, made before the file grew
        }
        residencyAddress = addr;
        residencyLength = size;
        residencySys = sys;
        return addr;
    }

    /**
     * The descriptor is closed: the mapping of {@link #residency} ends too. (A loop asking {@code mincore} of it at
     * this moment is told {@code ENOMEM}, and the ring reads.)
     */
    @Override
    public void markClosed() {
        super.markClosed();
        synchronized (this) {
            if (residencyAddress != 0) {
                residencySys.munmap(residencyAddress, residencyLength);
                residencyAddress = 0;
                RESIDENCY_MAPPINGS.decrementAndGet();
            }
            residencyRefused = true;
        }
    }
    /** How the loops write this file (see {@link InlineWrites}); any loop may update it, the last word wins. */
    volatile int inlineWrites;
    /** Until this {@link System#nanoTime()}, blocking writes of this file go to the ring. */
    volatile long inlineBackoffUntil;
    /** When a write or sync of this file last held a loop while others waited ({@link InlineWrites}); 0: never. */
    volatile long lastInlineStall;
    /** The home loop's slot holding the close request, once a close started. */
    Slot closeSlot;

    /** One loop's view of the file. */
    static final class PerLoop {
        int inflight;
        /**
         * Changes of the file (writes, truncates, allocations) this loop handed to the kernel or another thread and
         * that have not ended ({@link Slot#change}): a sync waits for them, and the loop makes no write itself
         * meanwhile (see {@link SyncOrder} and {@link InlineWrites#eligible}).
         */
        int changes;
        /**
         * The epoch changes beginning now count in ({@link Slot#epoch}): a direct write-and-sync that begins beside
         * changes in flight closes it, and its sync follows the changes of the epochs up to it.
         */
        long epoch;
        /**
         * Direct write-and-syncs made in two steps whose sync is not issued yet (see {@link Encoder#SPLIT_WRITE});
         * null until the first.
         */
        ArrayList<Slot> heldSyncs;
        /** Bytes the buffered transfers in flight move (see {@link EngineConfig#inFlightBytes}). */
        long bytes;
        final ArrayDeque<Request> waiting = new ArrayDeque<>(4);
        boolean quiescing;
    }

    UringFile(IoBackend backend, OpenSpec spec, int fd, int fixedSlot, EventLoop home, int loops, int memAlign,
            int offAlign) {
        super(backend, spec, fd, memAlign, offAlign);
        this.home = home;
        this.fixedSlot = fixedSlot;
        this.fdTarget = FileTarget.fd(fd);
        this.homeTarget = fixedSlot >= 0 ? FileTarget.fixed(fixedSlot) : fdTarget;
        this.perLoop = new PerLoop[loops];
    }

    @Override
    public boolean isRegistered() {
        return fixedSlot >= 0;
    }

    /** The target {@code loop} uses for this file. */
    FileTarget target(EventLoop loop) {
        return loop == home ? homeTarget : fdTarget;
    }

    /** {@code loop}'s state for this file, made (and the loop recorded as a user) on first use. Loop thread only. */
    PerLoop on(EventLoop loop) {
        PerLoop p = perLoop[loop.index];
        if (p == null) {
            p = new PerLoop();
            perLoop[loop.index] = p;
            touched.accumulateAndGet(1 << loop.index, (a, b) -> a | b);
        }
        return p;
    }

    /** {@code loop}'s state, or null if the loop never ran a request of this file. Loop thread only. */
    PerLoop peek(EventLoop loop) {
        return perLoop[loop.index];
    }

    int touchedLoops() {
        return touched.get();
    }
}
