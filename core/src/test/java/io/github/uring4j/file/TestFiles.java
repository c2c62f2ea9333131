package io.github.uring4j.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Helpers shared by the file-layer tests. */
final class TestFiles {
    private TestFiles() {
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed + (i >>> 8));
        }
        return b;
    }

    static Path fifo(Path dir, String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name);
        Process pr = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        if (pr.waitFor() != 0) {
            throw new IOException("mkfifo failed");
        }
        return p;
    }

    static int openFds() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }

    static List<String> fdTargets() throws IOException {
        List<String> out = new ArrayList<>();
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    out.add(p.getFileName() + " -> " + Files.readSymbolicLink(p));
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return out;
    }

    /** The cause behind a failed future. */
    static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("operation did not complete in 30 s", e);
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        } catch (CompletionException e) {
            throw e;
        }
    }

    static ByteBuffer direct(byte[] b) {
        ByteBuffer d = ByteBuffer.allocateDirect(b.length);
        d.put(b).flip();
        return d;
    }
}
