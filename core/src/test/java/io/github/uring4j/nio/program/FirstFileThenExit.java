package io.github.uring4j.nio.program;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program that knows nothing of uring4j and ends at once: it copies one file, reads its first bytes through an
 * {@code AsynchronousFileChannel} and a {@code CompletionHandler} too when asked ({@code async} after the path), copies
 * a 96 MiB file none of whose pages is cached with {@code transferTo} when asked ({@code bigcopy}: a sparse file, so
 * the copy is one the library may split across threads), and prints the default provider's class. Run on the provider, it exits while the library's own start-up threads may still be at work.
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
        if (java.util.List.of(args).contains("bigcopy")) {
            Path sparse = Path.of(args[0] + ".sparse");
            Path target = Path.of(args[0] + ".sparse-copy");
            long size = 96L << 20;
            try (java.nio.channels.FileChannel f = java.nio.channels.FileChannel.open(sparse,
                    java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
                f.write(ByteBuffer.wrap(new byte[] {7}), size - 1); // a hole before it: no page of it is cached
            }
            long copied = 0;
            try (java.nio.channels.FileChannel from = java.nio.channels.FileChannel.open(sparse);
                    java.nio.channels.FileChannel to = java.nio.channels.FileChannel.open(target,
                            java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
                while (copied < size) {
                    copied += from.transferTo(copied, size - copied, to);
                }
            }
            System.out.println("BIGCOPY " + copied + " " + Files.mismatch(sparse, target));
            Files.delete(sparse);
            Files.delete(target);
        }
        System.out.println("PROVIDER " + in.getFileSystem().provider().getClass().getName());
    }
}
