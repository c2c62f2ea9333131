package io.github.uring4j.nio.program;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program that knows nothing of uring4j and ends at once: it copies one file and prints the default provider's
 * class. Run on the provider, it exits while the library's own start-up threads may still be at work.
 */
public final class FirstFileThenExit {
    private FirstFileThenExit() {
    }

    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        Files.write(Path.of(args[0] + ".copy"), Files.readAllBytes(in));
        System.out.println("PROVIDER " + in.getFileSystem().provider().getClass().getName());
    }
}
