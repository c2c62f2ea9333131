package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import io.github.uring4j.ring.IoVecArray;
import io.github.uring4j.ring.StatxBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The io_uring backend's state of one request in flight: which entries it has in the kernel and their results,
 * and native scratch the kernel reads or writes for it (a timespec, a statx buffer, a descriptor array, iovecs),
 * allocated once per slot and reused. {@code user_data} is the slot number plus which entry completed.
 */
final class Slot {
    /** The transfer, the statx, the open, the close of the registered slot. */
    static final int MAIN = 0;
    /** The fdatasync linked after a write. */
    static final int LINKED = 1;
    static final int TIMEOUT = 2;
    /** An ASYNC_CANCEL aimed at this slot's MAIN entry. */
    static final int CANCEL = 3;
    static final int STATX = 4;
    static final int FILES = 5;
    static final int CLOSE_FD = 6;
    /** The unlink of a {@code DELETE_ON_CLOSE} file, right after its open. */
    static final int UNLINK = 7;
    static final int SUBS = 8;

    final int index;
    private final Arena arena;
    Request request;
    /** Entries whose completion is still to come. */
    int cqes;
    /** What each entry returned, by sub. */
    final int[] res = new int[SUBS];
    /** The device budget this request counts against, or null. */
    DeviceBudget budget;
    /** Bytes this request counts against its file's in-flight bytes on this loop. */
    /** The request changes its file and was handed to the kernel (or a thread): counted in its file's changes. */
    boolean change;
    /** The file's epoch ({@link UringFile.PerLoop#epoch}) this slot's change began in. */
    long epoch;
    /**
     * A direct write-and-sync made in two steps ({@link Encoder#SPLIT_WRITE}): the last epoch whose changes its sync
     * must follow, and how many of those are still in flight; {@link #listed} while it is in its file's
     * {@link UringFile.PerLoop#heldSyncs}.
     */
    long boundary;
    int earlier;
    boolean listed;
    /**
     * Two-step write-and-syncs of the same file whose syncs fell due in the same turn of the loop as this one's: this
     * slot's {@code fdatasync} serves them all (their writes had all ended before it was issued); null when none.
     */
    java.util.ArrayList<Slot> followers;
    long admittedBytes;
    /** The result of a write the loop made itself, delivered in the loop's next turn. */
    int inlineRes;
    /** A loop-made fdatasync of a write→fdatasync request waits to be delivered with {@link #inlineRes}. */
    boolean inlineLinked;
    int inlineLinkedRes;
    /** Where the request stands (opens and closes go through stages). */
    int stage;
    /** Descriptor opened (open stages), or registered slot chosen. */
    int fd = -1;
    int fixed = -1;
    /** The linked timeout fired. */
    boolean timedOut;
    /** The main entry's completion has come (since the transfer's last piece was encoded). */
    boolean mainIn;
    /** Waiting in the retry list for SQ room. */
    boolean queued;
    /** An entry failed to encode after others reached the kernel: the request fails once they complete. */
    Throwable failure;

    final MemorySegment timespec;
    final StatxBuffer statx;
    /** One {@code int} for IORING_OP_FILES_UPDATE. */
    final MemorySegment fds;
    private IoVecArray iov;

    Slot(int index, Arena arena) {
        this.index = index;
        this.arena = arena;
        this.timespec = arena.allocate(16, 8);
        this.statx = StatxBuffer.allocate(arena);
        this.fds = arena.allocate(4, 4);
    }

    /** Room for a path of up to {@link #PATH_ROOM} bytes with its NUL, made on first use. */
    private MemorySegment pathRoom;
    static final int PATH_ROOM = 4096;

    /**
     * {@code spec}'s path as a C string the kernel may read until this slot's request ends: copied into the slot's
     * own memory (no allocation per open), or the spec's own copy for a path longer than Linux's PATH_MAX.
     */
    MemorySegment path(io.github.uring4j.engine.OpenSpec spec) {
        byte[] c = spec.cString();
        if (c.length > PATH_ROOM) {
            return spec.cPath(); // the kernel refuses it (ENAMETOOLONG), and says so
        }
        if (pathRoom == null) {
            pathRoom = arena.allocate(PATH_ROOM);
        }
        MemorySegment.copy(c, 0, pathRoom, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, c.length);
        return pathRoom;
    }

    IoVecArray iov() {
        if (iov == null) {
            iov = IoVecArray.allocate(arena, Request.MAX_IOV);
        }
        return iov;
    }

    static long userData(int slot, int sub) {
        return ((long) sub << 32) | slot;
    }

    void clear() {
        change = false;
        earlier = 0;
        listed = false;
        followers = null;
        request = null;
        budget = null;
        cqes = 0;
        stage = 0;
        fd = -1;
        fixed = -1;
        timedOut = false;
        mainIn = false;
        queued = false;
        failure = null;
        for (int i = 0; i < SUBS; i++) {
            res[i] = 0;
        }
    }
}
