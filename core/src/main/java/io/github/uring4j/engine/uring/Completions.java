package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.ErrorMapper;
import io.github.uring4j.engine.FullHeap;
import io.github.uring4j.engine.Log;
import io.github.uring4j.engine.OpenSpec;
import io.github.uring4j.engine.Request;
import io.github.uring4j.engine.ResultFilter;
import io.github.uring4j.engine.Rules;
import io.github.uring4j.linux.Errno;
import io.github.uring4j.linux.Statx;
import io.github.uring4j.linux.Uapi;
import io.github.uring4j.ring.CqeHandler;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.util.concurrent.CancellationException;

/**
 * Acts on completions: records each entry's result in its slot and, when the slot's last entry is in, applies the
 * {@link Rules} and ends the request (or issues what comes next: the rest of a short transfer, an open's second
 * stage). Loop thread only.
 */
final class Completions implements CqeHandler {
    private final EventLoop loop;
    private final ErrorMapper errors;
    private final ResultFilter filter;

    Completions(EventLoop loop) {
        this.loop = loop;
        this.errors = loop.config.errors;
        this.filter = loop.config.resultFilter;
    }

    @Override
    public void handle(long userData, int res, int cqeFlags) {
        loop.expected--;
        if (userData < 0) {
            if (userData == Wakeup.USER_DATA) {
                loop.wakeup.completed(res);
            } else if (userData == Deadlines.USER_DATA) {
                loop.deadlines.fired();
            }
            return;
        }
        Slot s = loop.slots.get((int) userData);
        if (s == null || s.request == null) {
            return; // cannot happen: a slot is freed only after its last completion
        }
        int sub = (int) (userData >>> 32);
        if (filter != null && (sub == Slot.MAIN || sub == Slot.LINKED || sub == Slot.TIMEOUT)) {
            res = filter.filter(s.request.kind, sub, res, s.request.length);
        }
        s.res[sub] = res;
        if (sub == Slot.MAIN) {
            s.mainIn = true;
        }
        if (sub == Slot.TIMEOUT) {
            // -ECANCELED: the operation ended first and took its timeout with it. Anything else, the timeout fired:
            // -ETIME when it cancelled the operation, or what its cancel met (-EALREADY: the operation ran where it
            // could not be stopped at once; -ENOENT: it was not found where the cancel looked), the operation then
            // ending as it could, with ECANCELED included (a timed write reported ECANCELED as an I/O error, a few
            // times in millions under load, its timeout's result -ENOENT)
            s.timedOut = res != -Errno.ECANCELED;
            if (s.timedOut && res != -Errno.ETIME && !s.mainIn) {
                // The time ran out but the operation could not be stopped (-EALREADY: a kernel worker is making
                // it, as a large buffered write): the client is told now, as the threads backend tells it, and
                // the operation ends in the kernel, its memory kept until then.
                s.request.tellEarly(Rules.timedOut(s.request, true));
            }
        }
        if (--s.cqes == 0) {
            finishSafely(s);
        }
    }

    /** A blocking call made off the loop for {@code r} returned {@code res}. */
    void blockingDone(Slot s, Request r, int res) {
        loop.expected--;
        if (s.request != r) {
            return;
        }
        s.res[Slot.MAIN] = res;
        if (--s.cqes == 0) {
            finishSafely(s);
        }
    }

    private void finishSafely(Slot s) {
        try {
            if (s.failure != null) {
                end(s, s.failure);
                return;
            }
            finish(s);
        } catch (IOException | RuntimeException e) {
            if (s.request != null) {
                end(s, e);
            }
        } finally {
            // An interrupt means nothing to a loop. One a handler left (restoring a flag it caught) would reach
            // every later handler on this thread, whose interruptible calls (a FileChannel's) it would fail; a
            // worker of a ThreadPoolExecutor is likewise cleared before each task.
            Thread.interrupted();
        }
    }

    /** Frees the slot and fails its request. */
    void end(Slot s, Throwable t) {
        Request r = s.request;
        java.util.ArrayList<Slot> followers = s.followers;
        loop.release(s);
        r.fail(t);
        if (followers != null) {
            for (Slot f : followers) {
                end(f, t); // their sync was this one's
            }
        }
    }

    /** A two-step write-and-sync whose {@code fdatasync} returned {@code synced}. */
    private void synced(Slot s, int synced) {
        Request r = s.request;
        if (synced < 0) {
            end(s, Rules.syncFailure(r, -synced, loop.closing, errors));
        } else {
            succeed(s, r.done);
        }
    }

    private void succeed(Slot s, long value) {
        Request r = s.request;
        loop.release(s);
        r.succeed(value);
    }

    private Throwable error(Slot s, int res) {
        return Rules.failure(s.request, -res, s.timedOut, loop.closing, errors);
    }

    private void finish(Slot s) throws IOException {
        Request r = s.request;
        int res = s.res[Slot.MAIN];
        switch (r.kind) {
            case Request.READ, Request.WRITE, Request.WRITE_SYNC -> {
                if (s.stage == Encoder.SPLIT_SYNC) {
                    // the sync of a write-and-sync made in two steps (its write moved all of r.done already), and of
                    // those that follow it
                    int synced = s.res[Slot.LINKED];
                    java.util.ArrayList<Slot> followers = s.followers;
                    s.followers = null;
                    synced(s, synced);
                    if (followers != null) {
                        for (Slot f : followers) {
                            synced(f, synced);
                        }
                    }
                    return;
                }
                if (res < 0) {
                    end(s, error(s, res));
                    return;
                }
                long v = Rules.afterChunk(r, res, errors);
                if (v == Rules.MORE) {
                    if (r.wasTold()) {
                        end(s, Rules.timedOut(r)); // told it timed out: no further piece (this only releases)
                        return;
                    }
                    // A short write of a write→fdatasync chain came back; the sync was cancelled: issue both again.
                    loop.start(s);
                    return;
                }
                if (s.stage == Encoder.SPLIT_WRITE) {
                    loop.syncOrder.wroteBeforeSync(s);
                    return;
                }
                if (r.kind == Request.WRITE_SYNC && s.res[Slot.LINKED] < 0) {
                    end(s, Rules.syncFailure(r, -s.res[Slot.LINKED], loop.closing, errors));
                    return;
                }
                succeed(s, v);
            }
            case Request.READV, Request.WRITEV -> {
                if (res < 0) {
                    end(s, error(s, res));
                    return;
                }
                succeed(s, Rules.afterVector(r, res));
            }
            case Request.SIZE -> {
                if (res < 0) {
                    end(s, error(s, res));
                    return;
                }
                long size = Statx.size(loop.sys, r.handle.fd, s.statx.segment()); // a block device's from ioctl
                if (size < 0) {
                    end(s, error(s, (int) size));
                    return;
                }
                succeed(s, size);
            }
            case Request.FSYNC, Request.TRUNCATE, Request.ALLOCATE, Request.ADVISE, Request.SYNC_RANGE -> {
                if (res < 0) {
                    end(s, error(s, res));
                    return;
                }
                succeed(s, 0);
            }
            case Request.OPEN -> open(s, r);
            case Request.READ_FILE -> readFile(s, r);
            case Request.CLOSE -> loop.closer.closed(s);
            default -> throw new IllegalStateException("request kind " + r.kind);
        }
    }

    // ------------------------------------------------------------------------------------------ open

    private void open(Slot s, Request r) {
        OpenSpec spec = r.open;
        switch (s.stage) {
            case Encoder.OPEN_PATH, Encoder.OPEN_WAITING -> {
                int res = s.res[Slot.MAIN];
                if (res == -Errno.ENXIO && s.stage == Encoder.OPEN_PATH && waitsForAReader(spec) && !abandoned(r)) {
                    s.stage = Encoder.OPEN_WAITING; // maybe a FIFO without a reader: open as open(2) does
                    loop.start(s);
                    return;
                }
                if (res < 0) {
                    // cancelled, or interrupted by the loop's close (a worker's open waiting for a FIFO's reader)
                    end(s, res == -Errno.ECANCELED || res == -Errno.EINTR || res == -Errno.ERESTARTSYS ? error(s, res)
                            : errors.error(-res, "OPEN", spec.path(), -1, spec.direct()));
                    return;
                }
                s.fd = res;
                if (abandoned(r)) {
                    discard(s);
                    return;
                }
                if (loop.encoder.openNeedsDetails(s, spec)) {
                    s.stage = Encoder.OPEN_DETAILS;
                    loop.start(s);
                    return;
                }
                opened(s, r, -1, 4096, 4096);
            }
            case Encoder.OPEN_DETAILS -> {
                int unlinked = s.res[Slot.UNLINK];
                if (spec.deleteOnClose() && unlinked < 0 && unlinked != -Errno.ENOENT) {
                    Log.warn("DELETE_ON_CLOSE of " + spec.path() + " failed: " + Errno.name(-unlinked));
                }
                int fixed = -1;
                if (s.fixed >= 0) {
                    if (s.res[Slot.FILES] == 1) {
                        fixed = s.fixed;
                    } else {
                        loop.encoder.giveFixed(s.fixed); // the table was full or the update failed: a plain descriptor
                    }
                }
                if (abandoned(r)) {
                    s.fixed = fixed;
                    discard(s);
                    return;
                }
                int memAlign = 4096;
                int offAlign = 4096;
                if (spec.direct() && s.res[Slot.STATX] == 0 && s.statx.dioOffsetAlign() > 0) {
                    memAlign = s.statx.dioMemAlign();
                    offAlign = s.statx.dioOffsetAlign();
                }
                opened(s, r, fixed, memAlign, offAlign);
            }
            case Encoder.OPEN_DISCARD -> {
                if (s.fixed >= 0) {
                    loop.encoder.giveFixed(s.fixed);
                }
                end(s, r.isCancelled() ? new CancellationException("OPEN cancelled") : new AsynchronousCloseException());
            }
            default -> throw new IllegalStateException("open stage " + s.stage);
        }
    }

    /** The opener cancelled, or the executor is closing: nobody will get the file. */
    private boolean abandoned(Request r) {
        return r.isCancelled() || loop.closing;
    }

    private void discard(Slot s) {
        s.stage = Encoder.OPEN_DISCARD;
        loop.start(s);
    }

    /**
     * Whether {@code open(2)} with these flags waits for a FIFO's reader ({@link Encoder#OPEN_WAITING}): write only,
     * and without {@code O_NONBLOCK}.
     */
    private static boolean waitsForAReader(OpenSpec spec) {
        return (spec.flags() & (Uapi.O_ACCMODE | Uapi.O_NONBLOCK)) == Uapi.O_WRONLY;
    }

    private void opened(Slot s, Request r, int fixed, int memAlign, int offAlign) {
        UringFile f = new UringFile(loop.backend, r.open, s.fd, fixed, loop, loop.backend.loopCount(), memAlign,
                offAlign);
        if (r.open.direct() && s.res[Slot.STATX] == 0) {
            f.deviceKey = DeviceBudget.key(s.statx.deviceMajor(), s.statx.deviceMinor());
        }
        loop.homeFiles.add(f);
        loop.release(s);
        r.opened(f);
    }

    // ------------------------------------------------------------------------------------------ read a whole file

    private void readFile(Slot s, Request r) throws IOException {
        int open = s.res[Slot.MAIN];
        switch (s.stage) {
            case Encoder.FILE_LINKED -> {
                int close = s.res[Slot.CLOSE_FD];
                if (open >= 0 && close < 0 && !loop.closing) {
                    // The file opened but its slot did not close: close it again before the slot is reused. (At
                    // shutdown the ring's end closes every registered file.)
                    s.stage = Encoder.FILE_CLEANUP;
                    loop.start(s);
                    return;
                }
                loop.encoder.giveFixed(s.fixed);
                s.fixed = -1;
                readFileDone(s, r, open);
            }
            case Encoder.FILE_OPEN -> {
                if (open < 0) {
                    readFileDone(s, r, open);
                    return;
                }
                if (abandoned(r)) {
                    loop.sys.close(open); // cancelled (or closing) between the open and the read
                    readFileDone(s, r, -Errno.ECANCELED);
                    return;
                }
                s.fd = open;
                s.stage = Encoder.FILE_READ;
                loop.start(s); // the read and the close of the descriptor, linked
            }
            case Encoder.FILE_READ -> {
                if (r.untilEnd) {
                    readOn(s, r);
                    return;
                }
                if (s.res[Slot.CLOSE_FD] == -Errno.ECANCELED) {
                    loop.sys.close(s.fd); // the linked close was cancelled with the read (shutdown): close it here
                }
                s.fd = -1;
                readFileDone(s, r, 0);
            }
            case Encoder.FILE_CLEANUP -> {
                if (s.res[Slot.FILES] >= 0 || s.res[Slot.FILES] == -Errno.EBADF) {
                    loop.encoder.giveFixed(s.fixed); // empty now; a slot that cannot be emptied is never reused
                } else {
                    Log.warn("READ_FILE of " + r.pathForErrors() + ": registered slot " + s.fixed + " could not be"
                            + " closed (" + Errno.name(-s.res[Slot.FILES]) + "); it stays out of use");
                }
                s.fixed = -1;
                readFileDone(s, r, open);
            }
            default -> throw new IllegalStateException("read-file stage " + s.stage);
        }
    }

    /** The open's result, then the read's: the first failure, or the bytes read. */
    private void readFileDone(Slot s, Request r, int open) throws IOException {
        if (open < 0) {
            int e = -open;
            end(s, e == Errno.ECANCELED || e == Errno.EINTR ? error(s, open)
                    : errors.error(e, "OPEN", r.pathForErrors(), -1, false));
            return;
        }
        int read = s.res[Slot.LINKED];
        if (read < 0) {
            end(s, error(s, read));
            return;
        }
        if (read > 0 && read < r.length && loop.shortReads.readOn(s, r.open, read)) {
            // the file goes on past this read: opened again and read to its end, or to the end of the buffer; a
            // file made as it is read (/proc) from its start, so that its bytes come from one open
            r.untilEnd = true;
            if (read == ShortReads.MAX_RW_COUNT) {
                Rules.afterChunk(r, read, errors); // the rest from where this read ended
            }
            s.stage = Encoder.FILE_OPEN;
            loop.start(s);
            return;
        }
        succeed(s, Rules.afterChunk(r, read, errors));
    }

    /** A read of a whole-file read that reads on: the next, or the close and the end. */
    private void readOn(Slot s, Request r) throws IOException {
        int read = s.res[Slot.LINKED];
        long v = read < 0 ? 0 : Rules.afterChunk(r, read, errors);
        if (v == Rules.MORE && !abandoned(r)) {
            loop.start(s);
            return;
        }
        loop.sys.close(s.fd);
        s.fd = -1;
        if (read < 0) {
            end(s, error(s, read));
        } else if (v == Rules.MORE) {
            end(s, error(s, -Errno.ECANCELED)); // cancelled, or the loop closing, between two reads
        } else {
            succeed(s, v);
        }
    }

    // ------------------------------------------------------------------------------------------ the loop failed

    /** The loop is dying with an error: tell everyone in flight; their memory stays with the kernel. */
    void failEverything(Throwable cause) {
        for (int i = 0; i < loop.slots.capacity(); i++) {
            Slot s = loop.slots.get(i);
            Request r = s.request;
            // The kernel may still hold this request's memory: keep the request out of its pool.
            for (int tries = 0; r != null; tries++) {
                try {
                    r.tellEarly(cause);
                    break;
                } catch (OutOfMemoryError full) {
                    // a telling not made is made again (its claim waits for it), or its caller waits for ever
                    if (!FullHeap.waitForMemory(tries)) {
                        Log.callbackFailed(full);
                        break;
                    }
                } catch (Throwable t) {
                    Log.callbackFailed(t); // never throws: the other requests are still told
                    break;
                }
            }
        }
    }
}
