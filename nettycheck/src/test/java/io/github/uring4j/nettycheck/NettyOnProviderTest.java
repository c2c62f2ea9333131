package io.github.uring4j.nettycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.file.Backend;
import io.github.uring4j.file.IoExecutor;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Netty's native epoll transport, unchanged, sends files of {@code FileChannel}s that {@code FileChannel.open} gives
 * ({@link NettySendFile}) in a child JVM on the built-in provider and in one with {@code UringFileSystemProvider}
 * installed, standard input read from a file of other bytes. Netty's native {@code sendfile} takes the descriptor
 * from the JDK channel's own field through JNI, whatever the channel's class: every byte received must be the file's,
 * on both (from uring4j's channel it sent standard input's bytes, or nothing, before uring4j's channel kept a
 * descriptor where the JDK's keeps it).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NettyOnProviderTest {
    static final String PROVIDER = "io.github.uring4j.nio.UringFileSystemProvider";

    @TempDir
    Path tmp;

    List<String> run(String name, Path files, Path stdin, List<String> jvmArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NettySendFile.class.getName(),
                files.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(stdin.toFile()).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (java.io.IOException e) {
                // the child was killed: what it printed is the message
            }
        });
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
        reader.join(10_000);
        List<String> lines;
        synchronized (out) {
            lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        }
        assertEquals(0, p.exitValue(), name + ":\n" + String.join("\n", lines));
        return lines;
    }

    @Test
    void nettysEpollSendfileSendsTheFileOfAChannelOfTheProvider() throws Exception {
        Path files = Files.createDirectory(tmp.resolve("files"));
        Random r = new Random(20261127L);
        for (int size : new int[] {5_000, 6 * 1024 * 1024 + 123, 1}) {
            byte[] b = new byte[size];
            r.nextBytes(b);
            Files.write(files.resolve("f" + size), b);
        }
        Path stdin = Files.writeString(tmp.resolve("stdin"), "STANDARD INPUT, NOT A FILE THAT WAS SENT\n".repeat(500));
        List<String> builtin = run("builtin", files, stdin, List.of());
        Assumptions.assumeFalse(builtin.stream().anyMatch(l -> l.startsWith("NO-EPOLL")),
                "Netty's native epoll transport does not load here: " + builtin);
        String property = "-Djava.nio.file.spi.DefaultFileSystemProvider=" + PROVIDER;
        List<String> uring = run("provider", files, stdin, List.of(property));
        assertTrue(uring.contains("PROVIDER " + PROVIDER), uring.toString());
        // the JVM lays out objects otherwise with these: the descriptor must still be where the JDK's channel has it
        List<List<String>> layouts = new ArrayList<>();
        layouts.add(run("provider, no compressed oops", files, stdin, List.of(property, "-XX:-UseCompressedOops")));
        if (Runtime.version().feature() >= 25) { // a product flag from JDK 25
            layouts.add(run("provider, compact object headers", files, stdin,
                    List.of(property, "-XX:+UseCompactObjectHeaders")));
        }
        List<List<String>> all = new ArrayList<>(List.of(builtin, uring));
        all.addAll(layouts);
        for (List<String> lines : all) {
            List<String> sent = lines.stream().filter(l -> l.startsWith("SENT ")).toList();
            assertEquals(3, sent.size(), lines.toString());
            for (String l : sent) {
                assertTrue(l.endsWith(" the file's bytes"), String.join("\n", lines));
            }
        }
        for (List<String> lines : all) {
            assertEquals(builtin.stream().filter(l -> l.startsWith("SENT ")).toList(),
                    lines.stream().filter(l -> l.startsWith("SENT ")).toList());
        }
        if (IoExecutor.defaultExecutor().backend() == Backend.IO_URING) {
            assertTrue(uring.contains("CHANNEL io.github.uring4j.nio.UringFileChannel"), uring.toString());
        }
    }
}
