package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import io.github.uring4j.ring.UringException;
import java.util.ArrayDeque;

/**
 * ASYNC_CANCELs a loop owes the kernel: a client's cancel, or a file's close. Each waits here until the SQ has
 * room, and is dropped if its request ended meanwhile (the slot may already serve another request). Loop thread
 * only.
 */
final class Cancels {
    /** A cancel owed for {@code request} (generation {@code generation}) in {@code slot}. */
    private record Owed(Slot slot, Request request, int generation) {
    }

    private final EventLoop loop;
    private final ArrayDeque<Owed> owed = new ArrayDeque<>();

    Cancels(EventLoop loop) {
        this.loop = loop;
    }

    /** The client cancelled {@code target} while it had {@code gen}: cancel it if this loop has it in the kernel. */
    void inKernel(Request target, int gen) {
        if (target.generation() != gen) {
            return; // ended meanwhile
        }
        for (int i = 0; i < loop.slots.capacity(); i++) {
            Slot s = loop.slots.get(i);
            if (s.request == target && s.cqes > 0) {
                queue(s);
                return;
            }
        }
        // Not in a slot here: a waiting or queued request sees its mark when it is taken in.
    }

    /** Owes an ASYNC_CANCEL of the slot's main entry. */
    void queue(Slot s) {
        owed.add(new Owed(s, s.request, s.request.generation()));
    }

    /** Sends what the SQ has room for; true when anything was sent. */
    boolean send() throws UringException {
        boolean progress = false;
        while (!owed.isEmpty() && loop.encoder.room()) {
            Owed c = owed.poll();
            Slot s = c.slot();
            if (s.request == c.request() && c.request().generation() == c.generation() && s.cqes > 0) {
                loop.encoder.cancel(s);
                progress = true;
            }
        }
        return progress;
    }

    boolean pending() {
        return !owed.isEmpty();
    }

    void clear() {
        owed.clear();
    }
}
