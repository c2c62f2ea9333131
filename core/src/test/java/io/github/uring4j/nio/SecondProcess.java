package io.github.uring4j.nio;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM for the tests that need another process: record locks are per process, so only another process can
 * see whether ours are held; and a process without the capabilities that let root ignore file modes can see
 * {@code EACCES}. The parent talks to it a line at a time.
 */
final class SecondProcess implements AutoCloseable {
    private final Process process;
    private final PrintWriter in;
    private final BufferedReader out;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "second-process-reader");
        t.setDaemon(true);
        return t;
    });

    private SecondProcess(Process process) {
        this.process = process;
        this.in = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** A JVM that runs {@link Main} on this JVM's class path, under {@code wrapper} (a command prefix) if any. */
    static SecondProcess start(List<String> wrapper) throws IOException {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        SecondProcess p = new SecondProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start());
        p.expect("READY");
        return p;
    }

    static SecondProcess start() throws IOException {
        return start(List.of());
    }

    /** Sends one command and returns the one line it answers. */
    String ask(String command) throws IOException {
        in.println(command);
        return line();
    }

    private String line() throws IOException {
        CompletableFuture<String> l = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, reader);
        try {
            String s = l.get(Conform.WAIT_SECONDS, TimeUnit.SECONDS);
            if (s == null) {
                throw new IOException("the second process ended (exit " + process.waitFor() + ")");
            }
            return s;
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the second process did not answer in " + Conform.WAIT_SECONDS + " s");
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            throw new IOException(e);
        }
    }

    private void expect(String what) throws IOException {
        StringBuilder seen = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            String l = line();
            if (l.equals(what)) {
                return;
            }
            seen.append(l).append('\n');
        }
        throw new IOException("the second process did not say " + what + ":\n" + seen);
    }

    @Override
    public void close() throws IOException {
        in.println("exit");
        try {
            if (!process.waitFor(Conform.WAIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new java.io.InterruptedIOException("waiting for the second process to end");
        } finally {
            reader.shutdownNow();
        }
    }

    /** The program of the second JVM: one command a line, one answer a line. */
    public static final class Main {
        private Main() {
        }

        public static void main(String[] args) throws Exception {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            FileChannel held = null;
            FileLock lock = null;
            System.out.println("READY");
            for (String line; (line = in.readLine()) != null; ) {
                String[] a = line.split(" ");
                String answer;
                try {
                    answer = switch (a[0]) {
                        case "exit" -> null;
                        // try PATH POSITION SIZE SHARED: can this process lock the range now? (released at once)
                        case "try" -> {
                            boolean shared = Boolean.parseBoolean(a[4]);
                            try (FileChannel ch = FileChannel.open(Path.of(a[1]), shared ? StandardOpenOption.READ
                                    : StandardOpenOption.WRITE)) {
                                FileLock l = ch.tryLock(Long.parseLong(a[2]), Long.parseLong(a[3]), shared);
                                if (l == null) {
                                    yield "BUSY";
                                }
                                l.release();
                                yield "ACQUIRED";
                            }
                        }
                        // hold PATH [POSITION SIZE]: lock the whole file (or the range) exclusively until "release"
                        case "hold" -> {
                            held = FileChannel.open(Path.of(a[1]), StandardOpenOption.WRITE);
                            lock = a.length > 3 ? held.tryLock(Long.parseLong(a[2]), Long.parseLong(a[3]), false)
                                    : held.tryLock();
                            yield lock != null ? "HOLDING" : "BUSY";
                        }
                        case "release" -> {
                            lock.release();
                            held.close();
                            yield "RELEASED";
                        }
                        // open KIND SYNC|ASYNC PATH OPTION...: what opening does, as Conform.outcome says it
                        case "open" -> open(a);
                        default -> "UNKNOWN " + a[0];
                    };
                } catch (Exception e) {
                    answer = "ERROR " + e;
                }
                if (answer == null) {
                    break;
                }
                System.out.println(answer);
            }
        }

        private static String open(String[] a) {
            boolean jdk = a[1].equals("JDK");
            boolean async = a[2].equals("ASYNC");
            Path p = Path.of(a[3]);
            Set<OpenOption> options = new java.util.HashSet<>();
            for (int i = 4; i < a.length; i++) {
                options.add(StandardOpenOption.valueOf(a[i]));
            }
            return Conform.outcome(() -> {
                if (async) {
                    try (AsynchronousFileChannel ch = jdk ? AsynchronousFileChannel.open(p, options, null)
                            : UringFiles.newAsynchronousFileChannel(p, options, null)) {
                        return ch.read(ByteBuffer.allocate(1), 0).get();
                    }
                }
                try (FileChannel ch = jdk ? FileChannel.open(p, options) : UringFiles.newFileChannel(p, options)) {
                    return ch.size();
                }
            });
        }
    }
}
