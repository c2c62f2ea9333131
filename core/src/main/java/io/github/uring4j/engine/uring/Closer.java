package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;

/**
 * The close of a file, and of every file at shutdown. A close never waits for a slot or an in-flight limit:
 * <ol>
 * <li>the home loop takes a slot for the close and asks every loop that ran requests of the file to quiesce;</li>
 * <li>each such loop fails the file's waiting requests, cancels those in the kernel (ASYNC_CANCEL) and, once none
 * is left, reports; the last report reaches the home loop;</li>
 * <li>the home loop closes the registered slot and the descriptor (and unlinks a delete-on-close file) through
 * the ring, then the close completes.</li>
 * </ol>
 * Loop thread only.
 */
final class Closer {
    private final EventLoop loop;

    Closer(EventLoop loop) {
        this.loop = loop;
    }

    /** Home loop: a close request for {@code f} arrived. */
    void begin(Request r, UringFile f) {
        Slot s = loop.slots.take(r);
        loop.stats.inFlight(loop.slots.used());
        s.stage = Encoder.CLOSE_QUIESCE;
        f.closeSlot = s;
        int mask = f.touchedLoops();
        if (mask == 0) {
            closeReady(f);
            return;
        }
        f.quiescing.set(Integer.bitCount(mask));
        EventLoop[] loops = loop.backend.loops();
        for (int i = 0; i < loops.length; i++) {
            if ((mask & (1 << i)) == 0) {
                continue;
            }
            if (loops[i] == loop) {
                quiesce(f);
            } else {
                loops[i].enqueueMessage(new LoopMessage.Quiesce(f));
            }
        }
    }

    /** Any loop that ran requests of {@code f}: end them here, then report. */
    void quiesce(UringFile f) {
        UringFile.PerLoop p = f.peek(loop);
        if (p == null || p.quiescing) {
            return;
        }
        p.quiescing = true;
        while (!p.waiting.isEmpty()) {
            p.waiting.poll().fail(new AsynchronousCloseException());
            loop.stats.queued(-1);
        }
        if (f.deviceKey >= 0) {
            loop.failWaitingDirect(f);
        }
        // Only a file with requests in flight here has slots to cancel: a close after the last completion (the
        // usual case) skips the scan of every slot.
        for (int i = 0; p.inflight > 0 && i < loop.slots.capacity(); i++) {
            Slot s = loop.slots.get(i);
            Request r = s.request;
            if (r != null && r.handle == f && r.kind != Request.CLOSE && s.cqes > 0) {
                loop.cancels.queue(s);
            }
        }
        // A two-step write-and-sync waiting to issue its sync has nothing in the kernel, but the earlier changes it
        // waits for have: their ends, cancelled now, fail it (EventLoop.release).
        if (p.inflight == 0) {
            quiesced(f);
        }
    }

    /** This loop has nothing of {@code f} left. */
    void quiesced(UringFile f) {
        loop.touched.remove(f);
        if (f.quiescing.decrementAndGet() == 0) {
            if (f.home == loop) {
                closeReady(f);
            } else {
                f.home.enqueueMessage(new LoopMessage.CloseReady(f));
            }
        }
    }

    /** Home loop: no loop has requests of {@code f} any more; close it through the ring. */
    void closeReady(UringFile f) {
        Slot s = f.closeSlot;
        if (s == null || s.stage != Encoder.CLOSE_QUIESCE) {
            return;
        }
        s.stage = Encoder.CLOSE_SYSCALLS;
        loop.start(s);
    }

    /** Home loop: the close entries completed. */
    void closed(Slot s) throws IOException {
        Request r = s.request;
        UringFile f = (UringFile) r.handle;
        f.markClosed();
        f.giveBack();
        f.closeSlot = null;
        loop.homeFiles.remove(f);
        if (f.fixedSlot >= 0) {
            loop.encoder.giveFixed(f.fixedSlot);
        }
        int fdRes = s.res[Slot.CLOSE_FD];
        loop.release(s);
        if (fdRes < 0) {
            r.fail(loop.config.errors.error(-fdRes, "CLOSE", f.path, -1, false));
        } else {
            r.succeed(0);
        }
    }

    /**
     * The loop ends: files it opened and nobody closed are closed here (registered slots go with the ring), and
     * closes still waiting for other loops complete: the file is closed all the same.
     */
    void closeAllAtShutdown() {
        if (loop.slots != null) {
            for (int i = 0; i < loop.slots.capacity(); i++) {
                Slot s = loop.slots.get(i);
                Request r = s.request;
                if (r != null && r.kind == Request.CLOSE && s.cqes == 0) {
                    UringFile f = (UringFile) r.handle;
                    closeNow(f);
                    loop.release(s);
                    r.succeed(0);
                }
            }
        }
        for (UringFile f : loop.homeFiles.toArray(new UringFile[0])) {
            // a client releasing the file at the same moment closes it itself: whoever removes it owns it
            if (loop.homeFiles.remove(f)) {
                closeNow(f);
            }
        }
    }

    private void closeNow(UringFile f) {
        if (f.isClosed()) {
            return;
        }
        String why = loop.failure();
        if (why != null) {
            f.closingBecause(why);
        }
        f.beginClose();
        f.awaitUnpinned();
        if (!f.borrowed()) {
            loop.sys.close(f.fd);
        }
        f.markClosed();
        f.giveBack();
    }
}
