package io.github.uring4j.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An intrusive multi-producer single-consumer queue (Dmitry Vyukov's non-blocking design): producers link their
 * own node with one atomic swap, the consumer walks the links. Offering allocates nothing, because the element is
 * the node. A node may be in the queue at most once at a time; it may be offered again once it was polled.
 */
public final class MpscQueue {

    /** An element: carries its own link. */
    public abstract static class Node {
        volatile Node next;

        protected Node() {
        }
    }

    private static final class Stub extends Node {
    }

    private static final VarHandle TAIL;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TAIL = l.findVarHandle(MpscQueue.class, "tail", Node.class);
            NEXT = l.findVarHandle(Node.class, "next", Node.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Node stub = new Stub();
    /** Last node; producers swap themselves in. */
    @SuppressWarnings("unused")
    private volatile Node tail = stub;
    /** Consumer only. */
    private Node head = stub;

    /** Any thread. */
    public void offer(Node n) {
        NEXT.setRelease(n, (Node) null);
        Node prev = (Node) TAIL.getAndSet(this, n);
        // Between the swap and this store the queue is "inconsistent": the consumer sees the tail moved but not
        // the link yet, and reports empty until the producer finishes. A plain (volatile) field store, not a
        // VarHandle call: interpreted, that call is a chain of frames, and a StackOverflowError between the swap and
        // the link (a producer deep in its stack) would have cut the queue for good, every later node unreachable.
        prev.next = n;
    }

    /**
     * Consumer only. Returns null when empty, or when a producer is between its two steps (then
     * {@link #isEmpty()} is false and the caller should come back).
     */
    public Node poll() {
        Node h = head;
        Node next = (Node) NEXT.getAcquire(h);
        if (h == stub) {
            if (next == null) {
                return null;
            }
            head = next;
            h = next;
            next = (Node) NEXT.getAcquire(h);
        }
        if (next != null) {
            head = next;
            return h;
        }
        if (h != (Node) TAIL.getVolatile(this)) {
            return null; // a producer is linking behind h
        }
        offer(stub);
        next = (Node) NEXT.getAcquire(h);
        if (next != null) {
            head = next;
            return h;
        }
        return null;
    }

    /** Consumer only: true when nothing is queued or being queued. Reads the tail with volatile semantics. */
    public boolean isEmpty() {
        return head == stub && (Node) TAIL.getVolatile(this) == stub;
    }
}
