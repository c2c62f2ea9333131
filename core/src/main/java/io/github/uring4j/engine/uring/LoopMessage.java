package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.MpscQueue;
import io.github.uring4j.engine.Request;
import java.nio.channels.AsynchronousCloseException;
import java.util.concurrent.CompletableFuture;

/** Work for a loop's thread that is not a request: it travels through the same queue. */
abstract class LoopMessage extends MpscQueue.Node {

    /** Runs on the loop thread. */
    abstract void run(EventLoop loop) throws Exception;

    /** The loop is gone: whoever waits must learn it. */
    void abandon() {
    }

    /** The client cancelled {@code target} (generation {@code generation}); send ASYNC_CANCEL if it is in the kernel. */
    static final class Cancel extends LoopMessage {
        final Request target;
        final int generation;

        Cancel(Request target, int generation) {
            this.target = target;
            this.generation = generation;
        }

        @Override
        void run(EventLoop loop) {
            loop.cancels.inKernel(target, generation);
        }
    }

    /** A file is closing: end its requests on this loop, then report. */
    static final class Quiesce extends LoopMessage {
        final UringFile file;

        Quiesce(UringFile file) {
            this.file = file;
        }

        @Override
        void run(EventLoop loop) {
            loop.closer.quiesce(file);
        }
    }

    /** Every loop is done with a closing file: its home loop closes the descriptor. */
    static final class CloseReady extends LoopMessage {
        final UringFile file;

        CloseReady(UringFile file) {
            this.file = file;
        }

        @Override
        void run(EventLoop loop) {
            loop.closer.closeReady(file);
        }
    }

    /** A blocking call made off the loop (ftruncate before Linux 6.9) finished. */
    static final class BlockingDone extends LoopMessage {
        final Slot slot;
        final Request request;
        final int result;

        BlockingDone(Slot slot, Request request, int result) {
            this.slot = slot;
            this.request = request;
            this.result = result;
        }

        @Override
        void run(EventLoop loop) {
            loop.completions.blockingDone(slot, request, result);
        }
    }

    /** Something that must run on the ring's own thread (registration); {@code done} completes when it ran. */
    static final class Task extends LoopMessage {
        interface Body {
            void run(EventLoop loop) throws Exception;
        }

        final Body body;
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Task(Body body) {
            this.body = body;
        }

        @Override
        void run(EventLoop loop) {
            try {
                body.run(loop);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }

        @Override
        void abandon() {
            done.completeExceptionally(new AsynchronousCloseException());
        }
    }
}
