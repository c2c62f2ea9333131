package io.github.uring4j.nio;

import io.github.uring4j.engine.Memory;
import io.github.uring4j.linux.Syscalls;
import io.github.uring4j.linux.Uapi;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * The opt-in reads of a {@link UringFileChannel} ({@code -During4j.mappedReads=true}, {@link #PROPERTY}) that copy
 * positional reads of platform threads from a read-only mapping of the whole file: no system call at all. A channel
 * maps its file after {@link #MAP_AFTER} positional reads, maps it again when reads keep falling beyond the mapping
 * (the file grew), and drops the mapping when it truncates the file or a copy faults. The mapping is kept in the
 * channel's resources (under their lock), so closing the channel, or dropping it unclosed, unmaps it.
 *
 * <p>One instance per channel, holding no reference to it: the channel passes itself to each call.
 */
final class MappedReads {
    /** The system property that lets channels opened after it is set copy repeated positional reads from a mapping. */
    static final String PROPERTY = "uring4j.mappedReads";
    /** Longest read copied from the mapping; longer ones amortise their system call anyway. */
    private static final int MAX = 256 * 1024;
    /** Positional reads a channel makes before it maps its file. */
    private static final int MAP_AFTER = 16;

    /** The file mapped for reads on platform threads, once the channel has read often enough; or null. */
    private volatile Mapping mapping;
    /** Positional reads seen before a mapping is made (racy: a count, not a promise). */
    private int reads;
    /** Reads that fell beyond the mapping (the file grew since it was made). */
    private int beyond;

    /**
     * A positional read of {@code ch} copied from the mapping: the bytes read, or -1 when the read takes a system
     * call instead (no mapping yet, beyond it, or the copy failed because the file shrank or the mapping is being
     * replaced).
     */
    int read(UringFileChannel ch, ByteBuffer dst, long position) throws IOException {
        int len = dst.remaining();
        if (len == 0 || len > MAX || dst.isReadOnly()) {
            return -1;
        }
        Mapping m = mapping;
        if (m == null) {
            if (++reads != MAP_AFTER) {
                return -1;
            }
            m = map(ch, null);
            if (m == null) {
                return -1;
            }
        }
        if (position > m.length - len) { // not position + len, which a position near Long.MAX_VALUE overflows
            if (++beyond == MAP_AFTER * 4) {
                beyond = 0;
                map(ch, m); // the file grew: map it again at its new size
            }
            return -1;
        }
        if (!m.enter()) {
            return -1; // being unmapped (the file grew, shrank, or the channel closes)
        }
        boolean faulted = false;
        try {
            if (dst.hasArray()) {
                MemorySegment.copy(m.segment, ValueLayout.JAVA_BYTE, position, dst.array(),
                        dst.arrayOffset() + dst.position(), len);
            } else {
                MemorySegment.copy(m.segment, position, Memory.whole(dst), dst.position(), len);
            }
        } catch (IllegalStateException e) {
            // dst's arena closed (the call says so), or the channel (the mapping is not unmapped under a copy)
            ch.ensureOpen();
            if (dst.isDirect() && !MemorySegment.ofBuffer(dst).scope().isAlive()) {
                throw e;
            }
            return -1;
        } catch (InternalError e) {
            // SIGBUS: the file was truncated under the mapping; the system call tells the truth. Only sometimes caught
            // here: in compiled code the JVM may throw it after the copy returned (see UringFileChannel's comment).
            faulted = true;
        } finally {
            m.exit();
        }
        if (faulted) {
            drop(ch, m); // after the exit: the drop waits for the readers in the mapping
            return -1;
        }
        dst.position(dst.position() + len);
        Counters.MAPPED_READS.increment();
        Counters.BYTES_READ.add(len);
        return len;
    }

    /** Maps the whole file for reads (again, replacing {@code old}); null when it cannot be or need not be. */
    private Mapping map(UringFileChannel ch, Mapping old) throws IOException {
        UringFileChannel.Resources res = ch.resources;
        synchronized (res.lock) {
            if (res.closed || mapping != old || !ch.regular()) {
                return mapping;
            }
            long size = ch.size0();
            if (size == 0 || (old != null && size <= old.length)) {
                return mapping;
            }
            long addr = Syscalls.system().mmap(0, size, Uapi.PROT_READ, Uapi.MAP_SHARED, ch.fd, 0);
            if (addr < 0 && addr > -4096) {
                return mapping; // no address space, or the file cannot be mapped: keep using system calls
            }
            Mapping m = new Mapping(addr, size);
            mapping = m;
            res.mapping = m;
            if (old != null) {
                old.unmap();
            }
            return m;
        }
    }

    /** Stops using the mapping before {@code ch} truncates its file: a read through it past the new end would fault. */
    void truncating(UringFileChannel ch) {
        Mapping m = mapping;
        if (m != null) {
            drop(ch, m);
        }
    }

    /** The channel is closing (its resources' lock held): no read may start on the mapping, which it unmaps. */
    void closing() {
        mapping = null;
    }

    /** Stops using {@code m} (the file shrank under it). */
    private void drop(UringFileChannel ch, Mapping m) {
        synchronized (ch.resources.lock) {
            if (mapping == m) {
                mapping = null;
                ch.resources.mapping = null;
                reads = 0;
                m.unmap();
            }
        }
    }

    /**
     * The file mapped read-only in a shared arena, and the readers copying from it. The arena is closed only once no
     * reader is in a copy: a shared arena closed under a thread's access makes the JVM throw into that thread
     * asynchronously, which also sets its interrupt status, so that its next system call closed the channel with
     * {@code ClosedByInterruptException} (a reader of a file another thread appended to, when the mapping was
     * replaced at the file's new size).
     */
    static final class Mapping {
        private static final int CLOSING = 1 << 30;
        final Arena arena = Arena.ofShared();
        final MemorySegment segment;
        final long length;
        /** Readers in a copy; {@link #CLOSING} added once it is being unmapped. */
        private final java.util.concurrent.atomic.AtomicInteger users = new java.util.concurrent.atomic.AtomicInteger();

        Mapping(long address, long length) {
            this.length = length;
            this.segment = MemorySegment.ofAddress(address).reinterpret(length, arena,
                    s -> Syscalls.system().munmap(address, length));
        }

        /** A reader begins a copy; false once the mapping is being unmapped. */
        boolean enter() {
            if ((users.incrementAndGet() & CLOSING) != 0) {
                users.decrementAndGet();
                return false;
            }
            return true;
        }

        /** The reader's copy is over. */
        void exit() {
            users.decrementAndGet();
        }

        /** Unmaps once no reader is in the middle of a copy (no new one starts). */
        void unmap() {
            int u = users.getAndUpdate(v -> v | CLOSING);
            if ((u & CLOSING) != 0) {
                return; // another thread unmaps it
            }
            for (int spins = 0; users.get() != CLOSING; spins++) {
                if (spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // a copy of at most 256 KiB, or a reader preempted in one
                }
            }
            for (int tries = 0;; tries++) {
                try {
                    arena.close(); // ours alone now: a later unmap returns above, so this one must not give up early
                    return;
                } catch (OutOfMemoryError e) {
                    if (!io.github.uring4j.engine.FullHeap.waitForMemory(tries)) {
                        throw e;
                    }
                }
            }
        }
    }
}
