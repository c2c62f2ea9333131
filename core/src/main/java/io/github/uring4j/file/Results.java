package io.github.uring4j.file;

import io.github.uring4j.engine.Completion;
import io.github.uring4j.engine.FileHandle;
import io.github.uring4j.engine.Log;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;

/**
 * How {@link AsyncFile} tells its callers: a {@link CompletableFuture} or a {@link CompletionHandler}, with the
 * result boxed as the method promises. Stateless, so telling allocates nothing beyond the box (and {@link Boxes}
 * caches the usual sizes).
 */
final class Results {
    private Results() {
    }

    static final Completion INT = (target, att, value, opened, error) -> tell(
            FileIoEvents.finish(target, value, error), att, error == null ? Boxes.of((int) value) : null, error);
    static final Completion LONG = (target, att, value, opened, error) -> tell(
            FileIoEvents.finish(target, value, error), att, error == null ? Long.valueOf(value) : null, error);
    static final Completion VOID = (target, att, value, opened, error) -> tell(
            FileIoEvents.finish(target, value, error), att, null, error);

    /** A close: a file the executor closed first counts as closed. {@code attachment} is the file's handle. */
    static final Completion CLOSE = (target, att, value, opened, error) -> {
        CompletableFuture<?> f = (CompletableFuture<?>) FileIoEvents.finish(target, value, error);
        FileHandle handle = (FileHandle) att;
        if (error instanceof AsynchronousCloseException && !handle.isClosed()) {
            // The executor is shutting down and refused the close: its shutdown closes the file, and the close ends
            // then, as if it had run (failing it would tell the caller a file was left open that is being closed).
            handle.whenClosed(() -> closed(f, null));
            return;
        }
        closed(f, error == null || handle.isClosed() ? null : error);
    };

    private static void closed(CompletableFuture<?> f, Throwable failure) {
        if (f instanceof AsyncFile.CloseFuture c) {
            complete(c.settled, null, failure);
        }
        Runnable end = () -> complete(f, null, failure);
        if (f instanceof OpFuture<?> op) {
            op.deliver(end);
        } else {
            end.run();
        }
    }

    /** An open on {@code executor}: the new handle becomes an {@link AsyncFile}. */
    static Completion open(IoExecutor executor) {
        return (traced, att, value, opened, error) -> {
            Object target = FileIoEvents.finish(traced, value, error);
            AsyncFile file = opened != null ? new AsyncFile(executor, opened) : null;
            if (target instanceof CompletableFuture<?> f) {
                @SuppressWarnings("unchecked")
                CompletableFuture<Object> of = (CompletableFuture<Object>) f;
                Runnable end = () -> {
                    if (error != null) {
                        of.completeExceptionally(error);
                    } else if (!of.complete(file)) {
                        // The caller cancelled an open that succeeded: nobody will close this file.
                        file.closeAsync();
                    }
                };
                if (of instanceof OpFuture<?> op) {
                    op.deliver(end);
                } else {
                    end.run();
                }
                return;
            }
            tell(target, att, file, error);
        };
    }

    @SuppressWarnings("unchecked")
    private static void complete(CompletableFuture<?> future, Object value, Throwable error) {
        CompletableFuture<Object> f = (CompletableFuture<Object>) future;
        if (error != null) {
            f.completeExceptionally(error);
        } else {
            f.complete(value);
        }
    }

    /** Handlers told on the calling thread that may nest in one another on one thread before one is handed over. */
    static final int MAX_NESTED = 16;
    private static final ThreadLocal<int[]> NESTED = ThreadLocal.withInitial(() -> new int[1]);

    /**
     * Where a handler goes when the calling thread holds {@link #MAX_NESTED} already, and where stranded future
     * completions run ({@link Handoff}): daemon threads, made as needed.
     */
    static final class Handover {
        static final java.util.concurrent.Executor POOL = java.util.concurrent.Executors.newCachedThreadPool(r -> {
            return io.github.uring4j.engine.LibraryThreads.shared("uring4j-handover", r);
        });
    }

    /**
     * Tells {@code handler} on the calling thread, as an operation on a closed file does, unless handlers told that
     * way already nest {@link #MAX_NESTED} deep on it (a handler that issues its operation again each time it fails):
     * then on another thread, with a stack of its own, as the JDK's channel hands such a handler to its executor.
     */
    static void tellOnCaller(CompletionHandler<?, ?> handler, Object attachment, Throwable error) {
        int[] depth = NESTED.get();
        if (depth[0] >= MAX_NESTED) {
            Handover.POOL.execute(() -> tellOnCaller(handler, attachment, error));
            return;
        }
        depth[0]++;
        try {
            tell(handler, attachment, null, error);
        } finally {
            depth[0]--;
        }
    }

    @SuppressWarnings("unchecked")
    static void tell(Object target, Object attachment, Object value, Throwable error) {
        if (target instanceof OpFuture<?> f) {
            OpFuture<Object> of = (OpFuture<Object>) f;
            if (of.completer() == null) {
                complete(of, value, error);
            } else {
                of.deliver(() -> complete(of, value, error));
            }
        } else if (target instanceof CompletableFuture<?> f) {
            complete((CompletableFuture<Object>) f, value, error);
        } else if (target instanceof CompletionHandler<?, ?> h) {
            CompletionHandler<Object, Object> oh = (CompletionHandler<Object, Object>) h;
            try {
                if (error != null) {
                    oh.failed(error, attachment);
                } else {
                    oh.completed(value, attachment);
                }
            } catch (Throwable t) {
                try {
                    Log.callbackFailed(t);
                } catch (Throwable unsaid) {
                    // Nothing after the handler may throw: its telling would be made again, the handler called twice.
                }
            }
        }
    }
}
