package io.github.uring4j.file;

import java.nio.channels.CompletionHandler;
import java.util.concurrent.CountDownLatch;

/**
 * A completion handler that holds the thread it runs on (an event loop, or a worker) until {@link #release()}: what
 * a user's handler that waits for something does.
 */
public final class HeldHandler implements CompletionHandler<Integer, Object> {
    /** Counted down when the handler starts (completed or failed). */
    public final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** A handler not entered yet. */
    public HeldHandler() {
    }

    @Override
    public void completed(Integer n, Object attachment) {
        entered.countDown();
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void failed(Throwable e, Object attachment) {
        entered.countDown();
    }

    /** Lets the handler return. */
    public void release() {
        release.countDown();
    }
}
