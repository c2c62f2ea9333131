package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import java.nio.channels.AsynchronousCloseException;
import java.util.ArrayList;
import java.util.concurrent.CancellationException;

/**
 * One loop's rules for syncs and the changes in flight they must cover: which requests count as changes of their
 * file, when a sync must wait for them, the two-step {@code O_DIRECT} write-and-syncs whose sync follows the changes
 * begun before it ({@link Encoder#SPLIT_WRITE}), and the syncs of a file that fall due in one turn of the loop sharing
 * one {@code fdatasync}. The kernel runs a file's buffered writes in order on one io-wq worker, but its syncs on
 * others, beside them, and completes direct writes in any order: a sync issued while such a change is in flight does
 * not cover it. Loop thread only.
 */
final class SyncOrder {
    private final EventLoop loop;
    /** Two-step write-and-syncs whose sync is due, issued at the end of the turn ({@link #flush}). */
    private final ArrayList<Slot> due = new ArrayList<>();

    SyncOrder(EventLoop loop) {
        this.loop = loop;
    }

    /**
     * The slot's request changes {@code f} and is handed to the kernel (or a thread), not made by the loop: counted
     * until it ends. A sync encoded while such a change is in flight did not cover it (a probe found records still
     * dirty after the force that followed them), and a write the loop made itself landed before an earlier one still
     * in the ring (an overlapping update lost).
     */
    void changeBegins(Slot s, UringFile f) {
        if (!s.change) {
            UringFile.PerLoop p = f.on(loop);
            s.change = true;
            s.epoch = p.epoch;
            p.changes++;
        }
    }

    /**
     * A write-and-sync of an {@code O_DIRECT} file, untimed, that begins while other changes of the file are in
     * flight on this loop: made in two steps ({@link Encoder#SPLIT_WRITE}). Asked as its first piece is encoded
     * only: the rest of a short write, issued again, counts among the changes itself, and its sync would have waited
     * for its own change for ever (a write cut short by {@code ulimit -f} and then let on: the write-and-sync never
     * ended, and its file's close waited for it).
     */
    boolean splits(Slot s, Request r, UringFile f) {
        return s.stage == 0 && !s.change && r.kind == Request.WRITE_SYNC && f.direct && r.timeoutNanos == 0
                && f.on(loop).changes > 0;
    }

    /**
     * The sync of {@code s} is to follow the changes of {@code f} in flight on this loop now: they close the file's
     * epoch, and count as the sync's earlier changes.
     */
    void holdBehindChanges(Slot s, UringFile f) {
        UringFile.PerLoop p = f.on(loop);
        s.stage = Encoder.SPLIT_WRITE;
        s.boundary = p.epoch++;
        s.earlier = p.changes;
        if (p.heldSyncs == null) {
            p.heldSyncs = new ArrayList<>(4);
        }
        p.heldSyncs.add(s);
        s.listed = true;
    }

    /**
     * Whether {@code r}, a sync, must wait in its file's queue until the changes of its file in flight have ended: the
     * sync must cover them (a write linked to its own sync, after buffered writes, runs after them on their worker,
     * but not after direct writes, which the device completes in any order).
     */
    static boolean waitsForChanges(Request r, UringFile f, UringFile.PerLoop p) {
        if (p.changes == 0) {
            return false;
        }
        // An untimed direct write-and-sync makes its write at once and waits with its sync (Encoder.SPLIT_WRITE). A
        // force waits here, holding the file's later requests back: held in its slot instead, with the later writes
        // going on, it waited for them in the device's queue too (one loop writing 16 at a time to an O_DIRECT file
        // and a thread forcing it: 510-581 forces a second against 1,048-1,162, the writes' rate the same).
        return r.kind == Request.FSYNC || r.kind == Request.SYNC_RANGE
                || (r.kind == Request.WRITE_SYNC && f.direct && r.timeoutNanos > 0);
    }

    /**
     * The write of a write-and-sync made in two steps moved all its bytes: its change has ended, and its sync is
     * issued once the changes begun before it have ended too (at once when they have).
     */
    void wroteBeforeSync(Slot s) {
        UringFile f = (UringFile) s.request.handle;
        UringFile.PerLoop p = f.peek(loop);
        s.stage = Encoder.SPLIT_SYNC;
        ArrayList<Slot> ready = null;
        if (s.change) {
            s.change = false;
            p.changes--;
            ready = changeEnded(p, s.epoch, s);
        }
        if (s.earlier == 0) {
            p.heldSyncs.remove(s);
            s.listed = false;
            syncNow(s, f, p);
        }
        syncAll(ready, f, p);
    }

    /**
     * {@code s} is about to be given back: a two-step write-and-sync that ends before its sync was issued (its write
     * failed) leaves its file's list first, as the slot may go to the next request at once.
     */
    void leaving(Slot s) {
        if (s.listed) {
            s.listed = false;
            ((UringFile) s.request.handle).peek(loop).heldSyncs.remove(s);
        }
    }

    /**
     * A change of epoch {@code epoch} ended (its slot given back already): it counted among the earlier changes of
     * every two-step write-and-sync whose sync follows that epoch. Returns those whose write has ended and that no
     * earlier change holds back any more, taken out of the file's list, or null; {@link #syncAll} issues them.
     */
    static ArrayList<Slot> changeEnded(UringFile.PerLoop p, long epoch) {
        p.changes--;
        return changeEnded(p, epoch, null);
    }

    private static ArrayList<Slot> changeEnded(UringFile.PerLoop p, long epoch, Slot ended) {
        ArrayList<Slot> held = p.heldSyncs;
        if (held == null || held.isEmpty()) {
            return null;
        }
        ArrayList<Slot> ready = null;
        for (int i = 0; i < held.size(); i++) {
            Slot w = held.get(i);
            if (w != ended && w.boundary >= epoch && --w.earlier == 0 && w.stage == Encoder.SPLIT_SYNC) {
                (ready == null ? ready = new ArrayList<>(2) : ready).add(w);
            }
        }
        if (ready != null) {
            held.removeAll(ready);
            for (Slot w : ready) {
                w.listed = false;
            }
        }
        return ready;
    }

    /** Issues the syncs of {@code ready} (from {@link #changeEnded}; null: none). */
    void syncAll(ArrayList<Slot> ready, UringFile f, UringFile.PerLoop p) {
        if (ready != null) {
            for (Slot w : ready) {
                syncNow(w, f, p);
            }
        }
    }

    /** Issues the sync of a two-step write-and-sync, unless its client or its file is gone. */
    private void syncNow(Slot s, UringFile f, UringFile.PerLoop p) {
        Request r = s.request;
        if (r.isCancelled()) {
            loop.completions.end(s, new CancellationException(r.name() + " cancelled"));
        } else if (loop.closing || p.quiescing || !f.isOpen()) {
            loop.completions.end(s, new AsynchronousCloseException());
        } else {
            due.add(s); // issued at the end of this turn, one fdatasync for all of a file's (flush)
        }
    }

    /**
     * Issues the syncs that fell due this turn: one {@code fdatasync} per file, the file's other due syncs following
     * it ({@link Slot#followers}: their writes had all ended, so it covers them too). Each sync crosses the loop and a
     * kernel worker twice: a log overwritten 8 {@code O_DIRECT} records at a time ran at 0.60-0.62 of the JDK's
     * channel from 8 threads with one each, 0.91-0.95 with a group's shared (JMH {@code SyncWriteBenchmark}). True
     * when any was due.
     */
    boolean flush() {
        if (due.isEmpty()) {
            return false;
        }
        for (int i = 0; i < due.size(); i++) {
            Slot lead = due.get(i);
            if (lead == null) {
                continue;
            }
            for (int j = i + 1; j < due.size(); j++) {
                Slot other = due.get(j);
                if (other != null && other.request.handle == lead.request.handle) {
                    if (lead.followers == null) {
                        lead.followers = new ArrayList<>(4);
                    }
                    lead.followers.add(other);
                    due.set(j, null);
                }
            }
            loop.start(lead);
        }
        due.clear();
        return true;
    }
}
