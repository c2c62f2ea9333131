package io.github.uring4j.nio.program;

import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program that knows nothing of uring4j and ends at once: it copies one file, reads its first bytes through an
 * {@code AsynchronousFileChannel} too when asked ({@code async} after the path), and prints the default provider's
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
                System.out.println("ASYNC " + ch.read(ByteBuffer.allocate(100), 0).get());
            }
        }
        System.out.println("PROVIDER " + in.getFileSystem().provider().getClass().getName());
    }
}
