package io.github.uring4j.nio.program;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program that knows nothing of uring4j and ends at once: it copies one file, reads its first bytes through an
 * {@code AsynchronousFileChannel} and a {@code CompletionHandler} too when asked ({@code async} after the path), and prints the default provider's
 * class. Run on the provider, it exits while the library's own start-up threads may still be at work.
 */
public final class FirstFileThenExit {
    private FirstFileThenExit() {
    }

    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        Files.write(Path.of(args[0] + ".copy"), Files.readAllBytes(in));
        if (args.length > 1 && args[1].equals("async")) {
            try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(in)) {
                // through a handler: the executor's loop makes the read (a future's read of cached pages is made on
                // the calling thread, without the executor)
                java.util.concurrent.CompletableFuture<Integer> read = new java.util.concurrent.CompletableFuture<>();
                ch.read(ByteBuffer.allocate(100), 0, null,
                        new java.nio.channels.CompletionHandler<Integer, Object>() {
                            @Override
                            public void completed(Integer n, Object attachment) {
                                read.complete(n);
                            }

                            @Override
                            public void failed(Throwable t, Object attachment) {
                                read.completeExceptionally(t);
                            }
                        });
                System.out.println("ASYNC " + read.get());
            }
        }
        System.out.println("PROVIDER " + in.getFileSystem().provider().getClass().getName());
    }
}
