package io.github.uring4j.bench.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removing what a command wrote. */
public final class Trees {
    private Trees() {
    }

    /** Deletes {@code p} and, when it is a directory, everything under it; nothing when it does not exist. */
    public static void delete(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
