package io.github.uring4j.bench.files;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.Progress;
import io.github.uring4j.bench.common.Result;
import io.github.uring4j.bench.common.ResultFile;
import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.common.Sizes;
import io.github.uring4j.bench.data.Generator;
import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.nio.UringFileSystemProvider;
import io.github.uring4j.nio.UringFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code files}: what uring4j does for whole files, beside the JDK on the same files in the same run: a CRC32C of
 * every small file, {@link #TREE_IN_FLIGHT} at a time, with {@code FileChannel} on virtual threads and with
 * {@code AsyncFile} future chains (futures completed on the loops, and on the common pool; reading into a
 * {@code BufferPool} registered with the executor); many small
 * files read whole with {@code Files.readAllBytes} (through uring4j's provider, made in this JVM over the built-in
 * one), open + read + close of 4 KiB through {@code FileChannel}, and a whole-file copy with {@code Files.copy} and
 * {@code transferTo}, from the page cache and from the device. Every byte read or copied is checked.
 */
@Command(name = "files", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Whole files through the JDK and through uring4j, interleaved: a checksum of every small file "
                + "(FileChannel on virtual threads vs AsyncFile future chains), Files.readAllBytes of many small files, "
                + "open+read+close of 4 KiB, and a whole-file copy (Files.copy, transferTo) from the page cache and from "
                + "the device. Every byte is checked.")
public final class FilesCommand implements Callable<Integer> {

    @Option(names = "--dir", description = "Directory for the files (default: ${DEFAULT-VALUE}).")
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "uring4j-files");

    @Option(names = "--count", description = "Small files, 4 to 64 KiB each (default: ${DEFAULT-VALUE}).")
    int count = 10_000;

    @Option(names = "--copy-size", description = "Size of the copied file (default: ${DEFAULT-VALUE}).")
    String copySize = "1G";

    @Option(names = "--rounds", description = "Rounds; each runs every case for every strategy (default: ${DEFAULT-VALUE}).")
    int rounds = 3;

    @Option(names = "--min-time", description = "Seconds each small-file case runs per round at least: its pass over "
            + "the files repeats until then (the first, unmeasured round too), so a short pass is not all JIT and noise "
            + "(default: ${DEFAULT-VALUE}).")
    double minTime = 0.3;

    @Option(names = "--only", split = ",", description = "Only the cases and strategies whose name contains one of "
            + "these words, e.g. 'readAllBytes' or 'common pool' (default: all).")
    List<String> only; // null: not given (an empty list: given, naming nothing)

    @Option(names = "--keep-files", description = "Leave the small files and the copy's source in --dir (default: delete"
            + " them).")
    boolean keepFiles;

    @Option(names = "--json", description = "Also write the rows to this JSON file.")
    Path json;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    /**
     * One way to do a case: times only the work (setup, such as dropping the page cache, and the full check of a
     * copy stay outside) and returns {nanoseconds, bytes}. {@code full}: check every byte read (the unmeasured first
     * pass), else the length and both ends of every file.
     */
    private interface Way {
        long[] run(boolean full) throws IOException;
    }

    @Override
    public Integer call() throws Exception {
        List<Result> rows = run();
        System.out.println(table(rows));
        ResultFile.conclude("files", dir, "see each case", rows, json);
        return 0;
    }

    /** Generates the files, runs every case and strategy {@link #rounds} times, and returns the median rows. */
    @SuppressWarnings("try") // the progress display lives as long as the block, unreferenced
    public List<Result> run() throws Exception {
        if (count <= 0 || count > 10_000_000) {
            // (100 million ran out of heap naming the files, before the disk-space check could say no)
            throw new UsageError("--count " + count + ": must be 1 to 10000000 files");
        }
        if (rounds <= 0 || !(minTime >= 0 && minTime <= 3600)) {
            throw new UsageError("--rounds must be positive, --min-time 0 to 3600 seconds (got --rounds " + rounds
                    + ", --min-time " + minTime + ")");
        }
        long minNanos = (long) (minTime * 1e9);
        long copyBytes = Sizes.parse("--copy-size", copySize);
        // The files are made once the cases are known, so that a word of --only that names none fails at once.
        Path small = dir.resolve("small");
        long[] crcs = new long[count];
        Marks marks = new Marks(count);
        Path src = dir.resolve("copy-source.bin");
        long[] srcCrc = new long[1];
        Path dst = dir.resolve("copy-target.bin");
        FileSystem ours = new UringFileSystemProvider(FileSystems.getDefault().provider())
                .getFileSystem(URI.create("file:///"));
        Path[] jdkPaths = new Path[count];
        Path[] ourPaths = new Path[count];
        for (int i = 0; i < count; i++) {
            jdkPaths[i] = small.resolve(name(i));
            ourPaths[i] = ours.getPath(jdkPaths[i].toString());
        }
        // Executors a program would make once, a thread per core (as the virtual threads get one carrier per core):
        // futures completed on the loops (the default), one loop per core; and on the common pool, whose workers
        // take the cores the loops leave (with a loop per core as well, three threads shared two cores here and the
        // case ran at 0.5-0.7 times its rate with one loop: 45k files/s against 89-92k in one session).
        int cores = Runtime.getRuntime().availableProcessors();
        int poolLoops = Math.max(1, cores - ForkJoinPool.getCommonPoolParallelism());
        IoExecutor onLoop = IoExecutor.builder().loops(cores).name("bench-files-loop").build();
        IoExecutor onPool = IoExecutor.builder().loops(poolLoops).name("bench-files-pool")
                .futureExecutor(ForkJoinPool.commonPool()).build();
        // The AsyncFile chains read into buffers of a pool registered with their executor, as a program that cares
        // would: the kernel copies into registered buffers with memcpy (READ_FIXED) instead of copy_to_user.
        BufferPool loopBuffers = chainBuffers(onLoop);
        BufferPool poolBuffers = chainBuffers(onPool);
        Map<String, Way> ways = new LinkedHashMap<>();
        String sum = "checksum " + count + " files, " + TREE_IN_FLIGHT + " in flight";
        ways.put(sum + "|jdk FileChannel, virtual threads", full -> checksumThreads(jdkPaths, crcs));
        ways.put(sum + "|uring4j AsyncFile, futures on the loops",
                full -> checksumAsync(onLoop, loopBuffers, jdkPaths, crcs, false));
        ways.put(sum + "|uring4j AsyncFile, futures on the common pool",
                full -> checksumAsync(onPool, poolBuffers, jdkPaths, crcs, false));
        ways.put(sum + "|uring4j AsyncFile.readFile, futures on the loops",
                full -> checksumAsync(onLoop, loopBuffers, jdkPaths, crcs, true));
        ways.put("readAllBytes 4-64 KiB|jdk", full -> readAll(jdkPaths, crcs, marks, full));
        ways.put("readAllBytes 4-64 KiB|uring4j", full -> readAll(ourPaths, crcs, marks, full));
        ways.put("open+read+close 4 KiB|jdk", full -> openReadClose(jdkPaths, marks, false, full));
        ways.put("open+read+close 4 KiB|uring4j", full -> openReadClose(jdkPaths, marks, true, full));
        for (String cache : List.of("cached", "uncached")) {
            String c = "copy " + Sizes.format(copyBytes) + " " + cache;
            boolean drop = cache.equals("uncached");
            ways.put(c + "|jdk Files.copy", full -> copy(src, dst, srcCrc[0], drop, 0));
            ways.put(c + "|jdk transferTo", full -> copy(src, dst, srcCrc[0], drop, 1));
            ways.put(c + "|uring4j transferTo", full -> copy(src, dst, srcCrc[0], drop, 2));
            ways.put(c + "|uring4j AsyncFile.transferTo", full -> copy(src, dst, srcCrc[0], drop, 3, onLoop));
        }
        try {
            if (only != null) {
                if (only.stream().allMatch(String::isBlank)) {
                    // an empty word is in every name: "--only ," ran every case
                    throw new UsageError("--only '" + String.join(",", only) + "' names no word");
                }
                List<String> words = only.stream().filter(w -> !w.isBlank()).toList();
                ways.keySet().removeIf(k -> words.stream().noneMatch(w -> k.replace('|', ' ').contains(w)));
                if (ways.isEmpty()) {
                    throw new UsageError("--only " + String.join(",", only) + " names no case (cases: checksum, "
                            + "readAllBytes, open+read+close, copy; strategies: jdk, uring4j, AsyncFile, readFile, "
                            + "common pool, ...)");
                }
            }
            // Only the files the remaining cases read: a run of the copies alone writes no small files, and the other way round.
            boolean copies = ways.keySet().stream().anyMatch(k -> k.startsWith("copy"));
            boolean smalls = ways.keySet().stream().anyMatch(k -> !k.startsWith("copy"));
            Generator.checkSpace(dir, (copies ? 3 * copyBytes : 0) + (smalls ? 40L * count * 1024 : 0));
            if (smalls && writeSmallFiles(Files.createDirectories(small), crcs, marks) <= 0) {
                throw new IOException("no small files written");
            }
            if (copies) {
                srcCrc[0] = writeBigFile(src, copyBytes);
            }
        } catch (Exception e) {
            closeAll(loopBuffers, poolBuffers, onLoop, onPool);
            throw e;
        }
        Map<String, List<double[]>> samples = new LinkedHashMap<>();
        AtomicLong done = new AtomicLong();
        try (Progress p = new Progress("files", 0, done::get, "MB", 1e6, quiet)) {
            // The small files' cases first, then the copies: a copy from the device and its target forced to the
            // disk kept the device and the kernel busy past its end, and the small-file round after it ran at about
            // half its rate (0.3-0.6 times the others in the JSON's each_round), whichever way it was.
            List<Map.Entry<String, Way>> smallWays = new ArrayList<>();
            List<Map.Entry<String, Way>> copyWays = new ArrayList<>();
            for (Map.Entry<String, Way> e : ways.entrySet()) {
                (e.getKey().startsWith("copy") ? copyWays : smallWays).add(e);
            }
            for (List<Map.Entry<String, Way>> phase : List.of(smallWays, copyWays)) {
                for (Map.Entry<String, Way> e : phase) {
                    // one unmeasured round, every byte checked once: the JIT, and the small files into the page cache
                    e.getValue().run(true);
                    if (!e.getKey().startsWith("copy")) {
                        repeat(e.getValue(), minNanos);
                    }
                }
                if (phase == smallWays) {
                    // and a second for the small files' ways: after one, the first measured round of "futures on
                    // the loops" ran at 0.25-0.35 times its later rounds (most likely the JIT: the AsyncFile ways
                    // share code, compiled again once the ways after it had run it)
                    for (Map.Entry<String, Way> e : phase) {
                        repeat(e.getValue(), minNanos);
                    }
                }
                for (int r = 0; r < rounds; r++) {
                    // every other round backwards: no way always runs right after the same other (the page cache
                    // another left behind would always fall on the same one)
                    List<Map.Entry<String, Way>> now = new ArrayList<>(phase);
                    if (r % 2 == 1) {
                        java.util.Collections.reverse(now);
                    }
                    for (Map.Entry<String, Way> e : now) {
                        long[] t = e.getKey().startsWith("copy") ? e.getValue().run(false)
                                : repeat(e.getValue(), minNanos);
                        done.addAndGet(t[1]);
                        samples.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                                .add(new double[] {t[0] / (double) (t.length > 2 ? t[2] : 1), t[1]});
                    }
                }
            }
        } finally {
            closeAll(loopBuffers, poolBuffers, onLoop, onPool);
            Files.deleteIfExists(dst);
            if (!keepFiles) {
                // what this run wrote, not the rest of --dir (a run left 1.4 GB in /tmp/uring4j-files)
                Files.deleteIfExists(src);
                if (Files.isDirectory(small)) {
                    io.github.uring4j.bench.common.Trees.delete(small);
                }
            }
        }
        List<Result> rows = new ArrayList<>();
        for (Map.Entry<String, List<double[]>> e : samples.entrySet()) {
            String[] k = e.getKey().split("\\|");
            boolean copy = k[0].startsWith("copy");
            // each round's rate, in round order (the JSON keeps them: a median hides whether one round or two fell)
            StringBuilder each = new StringBuilder();
            for (double[] x : e.getValue()) {
                each.append(each.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, copy ? "%.3f" : "%.0f",
                        copy ? x[1] / (x[0] / 1e9) / 1e9 : count / (x[0] / 1e9)));
            }
            List<double[]> s = new ArrayList<>(e.getValue());
            s.sort((x, y) -> Double.compare(x[0], y[0]));
            double[] mid = s.get(s.size() / 2);
            Result r = new Result("files-" + k[0].replaceAll("[^a-zA-Z0-9]+", "-").toLowerCase(Locale.ROOT), k[1])
                    .param("category", k[0]).param("rounds", rounds).param("each_round", each.toString());
            if (copy) {
                r.primary("gb_per_s", "GB/s").metric("gb_per_s", mid[1] / (mid[0] / 1e9) / 1e9);
            } else {
                double files = count;
                r.primary("files_per_s", "files/s").metric("files_per_s", files / (mid[0] / 1e9))
                        .metric("us_per_file", mid[0] / 1e3 / files);
            }
            rows.add(r);
        }
        return rows;
    }

    /** Passes of {@code way} until they took {@code minNanos} together: {nanoseconds, bytes, passes}. */
    private static long[] repeat(Way way, long minNanos) throws IOException {
        long nanos = 0;
        long bytes = 0;
        long passes = 0;
        do {
            long[] t = way.run(false);
            nanos += t[0];
            bytes += t[1];
            passes++;
        } while (nanos < minNanos);
        return new long[] {nanos, bytes, passes};
    }

    private static String name(int i) {
        return String.format(Locale.ROOT, "f%06d.bin", i);
    }

    /** The largest small file. */
    static final int MAX_SMALL = 64 * 1024;

    /** The content of small file {@code i}: 4 to 64 KiB of bytes that depend on {@code i}. */
    private static byte[] content(int i) {
        SplittableRandom r = new SplittableRandom(i * 7919L + 1);
        byte[] b = new byte[4096 + r.nextInt(60 * 1024 + 1)];
        r.nextBytes(b);
        return b;
    }

    /**
     * What is known of each small file from when it was written, for the checks of the cases that read it: its
     * length, its first and last 8 bytes, the 8 bytes before offset 4096, the CRC32C of its first 4 KiB. The checks
     * once made each file's content again (up to 64 KiB of random bytes) for an 8-byte comparison: ten times the
     * time of the measured open, read and close, between every two of them.
     */
    private static final class Marks {
        final int[] length;
        final long[] head;
        final long[] tail;
        final long[] before4k;
        final long[] crc4k;

        Marks(int count) {
            length = new int[count];
            head = new long[count];
            tail = new long[count];
            before4k = new long[count];
            crc4k = new long[count];
        }

        void note(int i, byte[] b) {
            length[i] = b.length;
            head[i] = word(b, 0);
            tail[i] = word(b, b.length - 8);
            before4k[i] = word(b, 4088);
            crc4k[i] = crc(b, 0, 4096);
        }
    }

    private static final java.lang.invoke.VarHandle WORD = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private static long word(byte[] b, int at) {
        return (long) WORD.get(b, at);
    }

    /** Every byte ({@code full}), or the length and the first and last 8 bytes of file {@code i}. */
    private static boolean same(byte[] got, int len, int i, long crc, Marks m, boolean full) {
        if (full) {
            return len == m.length[i] && crc(got, 0, len) == crc;
        }
        return len == m.length[i] && word(got, 0) == m.head[i] && word(got, len - 8) == m.tail[i];
    }

    private long writeSmallFiles(Path small, long[] crcs, Marks marks) throws IOException {
        long total = 0;
        boolean wrote = false;
        for (int i = 0; i < crcs.length; i++) {
            byte[] b = content(i);
            Path p = small.resolve(name(i));
            if (!Files.isRegularFile(p) || Files.size(p) != b.length) {
                Files.write(p, b);
                wrote = true;
            }
            crcs[i] = crc(b, 0, b.length);
            marks.note(i, b);
            total += b.length;
        }
        if (wrote) {
            syncAll();
        }
        return total;
    }

    /**
     * The files just written to the disk (sync(1), one call for them all): the kernel writes dirty pages back 30 s
     * after they were written, in the middle of the measured rounds.
     */
    private static void syncAll() throws IOException {
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while syncing the generated files", e);
        } catch (IOException e) {
            // no sync(1): the rounds may meet the writeback, nothing worse
        }
    }

    private static long writeBigFile(Path p, long size) throws IOException {
        byte[] chunk = new byte[1 << 20];
        new SplittableRandom(42).nextBytes(chunk);
        CRC32C crc = new CRC32C();
        boolean present = Files.isRegularFile(p) && Files.size(p) == size;
        try (FileChannel ch = present ? null : FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long at = 0; at < size; at += chunk.length) {
                int n = (int) Math.min(chunk.length, size - at);
                crc.update(chunk, 0, n);
                if (ch != null) {
                    ByteBuffer b = ByteBuffer.wrap(chunk, 0, n);
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                }
            }
            if (ch != null) {
                ch.force(true); // on the disk now: its writeback, 30 s later, would fall on a measured round
            }
        }
        return crc.getValue();
    }

    private static long crc(byte[] b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return c.getValue();
    }

    private static long[] readAll(Path[] paths, long[] crcs, Marks marks, boolean full) throws IOException {
        long bytes = 0;
        long nanos = 0;
        for (int i = 0; i < paths.length; i++) {
            long t0 = System.nanoTime();
            byte[] b = Files.readAllBytes(paths[i]);
            nanos += System.nanoTime() - t0;
            if (!same(b, b.length, i, crcs[i], marks, full)) {
                throw new IOException("wrong bytes read from " + paths[i]);
            }
            bytes += b.length;
        }
        return new long[] {nanos, bytes};
    }

    /** {@link #TREE_IN_FLIGHT} buffers for the small files (and one byte more), registered with {@code io}. */
    private static BufferPool chainBuffers(IoExecutor io) {
        return BufferPool.builder().bufferSize(MAX_SMALL + 1).count(TREE_IN_FLIGHT).register(io).build();
    }

    private static void closeAll(BufferPool a, BufferPool b, IoExecutor x, IoExecutor y) {
        a.close();
        b.close();
        x.close();
        y.close();
    }

    /** Files checksummed at once by the checksum case. */
    static final int TREE_IN_FLIGHT = 64;

    /** The user's own work on what was read: CRC32C of the whole file, compared with what was written. */
    private static void check(ByteBuffer data, Path p, long want) throws IOException {
        CRC32C c = new CRC32C();
        c.update(data);
        if (c.getValue() != want) {
            throw new IOException("wrong bytes read from " + p);
        }
    }

    /** {@code FileChannel} on {@link #TREE_IN_FLIGHT} virtual threads, each taking the next file. */
    private static long[] checksumThreads(Path[] paths, long[] crcs) throws IOException {
        AtomicInteger next = new AtomicInteger();
        AtomicLong bytes = new AtomicLong();
        long t0 = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < TREE_IN_FLIGHT; w++) {
                workers.add(ex.submit(() -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(MAX_SMALL + 1);
                    for (int i; (i = next.getAndIncrement()) < paths.length; ) {
                        b.clear();
                        try (FileChannel ch = FileChannel.open(paths[i], StandardOpenOption.READ)) {
                            while (ch.read(b) > 0) {
                                // until EOF (or a file larger than it should be fills the buffer)
                            }
                        }
                        b.flip();
                        check(b, paths[i], crcs[i]);
                        bytes.addAndGet(b.limit());
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        return new long[] {System.nanoTime() - t0, bytes.get()};
    }

    /**
     * {@code AsyncFile} with {@code CompletableFuture} chains written the ordinary way: {@link #TREE_IN_FLIGHT}
     * chains of read a file (open, read, close; or {@code AsyncFile.readFile} when {@code linked}: the three as one
     * linked submission), checksum ({@code thenApply}, so it runs where the future completes), next file.
     */
    private static long[] checksumAsync(IoExecutor io, BufferPool pool, Path[] paths, long[] crcs, boolean linked)
            throws IOException {
        AtomicInteger next = new AtomicInteger();
        AtomicLong bytes = new AtomicLong();
        ByteBuffer[] buffers = new ByteBuffer[TREE_IN_FLIGHT];
        for (int w = 0; w < TREE_IN_FLIGHT; w++) {
            buffers[w] = pool.acquireBuffer();
        }
        long t0 = System.nanoTime();
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int w = 0; w < TREE_IN_FLIGHT; w++) {
            chains.add(chain(io, paths, crcs, linked, next, bytes, buffers[w]));
        }
        try {
            CompletableFuture.allOf(chains.toArray(new CompletableFuture<?>[0])).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw new IOException("checksum through AsyncFile" + (linked ? ".readFile" : "") + " failed: "
                    + e.getCause(), e.getCause());
        } finally {
            for (ByteBuffer b : buffers) {
                pool.release(b);
            }
        }
        return new long[] {System.nanoTime() - t0, bytes.get()};
    }

    private static CompletableFuture<Void> chain(IoExecutor io, Path[] paths, long[] crcs, boolean linked,
            AtomicInteger next, AtomicLong bytes, ByteBuffer b) {
        int i = next.getAndIncrement();
        if (i >= paths.length) {
            return CompletableFuture.completedFuture(null);
        }
        b.clear();
        CompletableFuture<Integer> read = linked ? AsyncFile.readFile(io, paths[i], b)
                : AsyncFile.open(io, paths[i], StandardOpenOption.READ)
                        .thenCompose(f -> readToEnd(f, b).thenCompose(n -> f.closeAsync().thenApply(v -> n)));
        return read.thenApply(n -> {
                    b.flip();
                    try {
                        check(b, paths[i], crcs[i]);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    bytes.addAndGet(n);
                    return null;
                })
                .thenCompose(v -> chain(io, paths, crcs, linked, next, bytes, b));
    }

    /** Reads from where {@code b}'s position says until the end of the file (or a full buffer); the bytes read. */
    private static CompletableFuture<Integer> readToEnd(AsyncFile f, ByteBuffer b) {
        return f.read(b, b.position()).thenCompose(n -> n > 0 && b.hasRemaining() ? readToEnd(f, b)
                : CompletableFuture.completedFuture(b.position()));
    }

    private static long[] openReadClose(Path[] paths, Marks marks, boolean ours, boolean full) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4096);
        long nanos = 0;
        for (int i = 0; i < paths.length; i++) {
            long t0 = System.nanoTime();
            try (FileChannel ch = ours ? UringFiles.newFileChannel(paths[i], StandardOpenOption.READ)
                    : FileChannel.open(paths[i], StandardOpenOption.READ)) {
                b.clear();
                while (b.hasRemaining() && ch.read(b) > 0) {
                    // every file has at least 4 KiB
                }
            }
            nanos += System.nanoTime() - t0;
            if (b.position() != 4096 || (full ? crc(b.array(), 0, 4096) != marks.crc4k[i]
                    : word(b.array(), 0) != marks.head[i] || word(b.array(), 4088) != marks.before4k[i])) {
                throw new IOException("wrong bytes read from " + paths[i]);
            }
        }
        return new long[] {nanos, 4096L * paths.length};
    }

    /** Copies {@code src} to {@code dst} one way (0: Files.copy, 1: the JDK's transferTo, 2: ours) and checks it. */
    private static long[] copy(Path src, Path dst, long want, boolean uncached, int way) throws IOException {
        return copy(src, dst, want, uncached, way, null);
    }

    private static long[] copy(Path src, Path dst, long want, boolean uncached, int way, IoExecutor io)
            throws IOException {
        Files.deleteIfExists(dst);
        if (uncached) {
            RingFiles.dropFromPageCache(src);
        } else {
            crcOf(src); // read into the page cache
        }
        long size = Files.size(src);
        long t0 = System.nanoTime();
        switch (way) {
            case 0 -> Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING);
            case 1 -> transfer(FileChannel.open(src, StandardOpenOption.READ), FileChannel.open(dst,
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE), size);
            case 2 -> transfer(UringFiles.newFileChannel(src, StandardOpenOption.READ), UringFiles.newFileChannel(dst,
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE), size);
            default -> {
                try (AsyncFile in = AsyncFile.open(io, src, StandardOpenOption.READ).join();
                        AsyncFile out = AsyncFile.open(io, dst, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
                                .join()) {
                    long n = in.transferTo(0, size, out, 0).join();
                    if (n != size) {
                        throw new IOException("AsyncFile.transferTo copied " + n + " of " + size + " bytes");
                    }
                }
            }
        }
        long nanos = System.nanoTime() - t0;
        if (crcOf(dst) != want) {
            throw new IOException("the copy " + dst + " differs from " + src);
        }
        // the copy's pages to the disk now, outside the timing, so that their writeback slows no later measurement
        try (FileChannel ch = FileChannel.open(dst, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        return new long[] {nanos, size};
    }

    private static void transfer(FileChannel in, FileChannel out, long size) throws IOException {
        try (in; out) {
            long at = 0;
            while (at < size) {
                long n = in.transferTo(at, size - at, out);
                if (n <= 0) {
                    throw new IOException("transferTo moved nothing at " + at + " of " + size);
                }
                at += n;
            }
        }
    }

    private static long crcOf(Path p) throws IOException {
        CRC32C c = new CRC32C();
        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            while (ch.read(b.clear()) > 0) {
                c.update(b.flip());
            }
        }
        return c.getValue();
    }

    /** Rows as a text table: one line per case and strategy. */
    public static String table(List<Result> rows) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-26s %-20s %14s%n", "case", "strategy", "rate"));
        for (Result r : rows) {
            b.append(String.format(Locale.ROOT, "%-26s %-20s %14s%n", r.params.get("category"), r.strategy,
                    r.primaryUnit.equals("GB/s") ? String.format(Locale.ROOT, "%.3f GB/s", r.primaryValue())
                            : String.format(Locale.ROOT, "%,.0f files/s", r.primaryValue())));
        }
        return b.toString();
    }
}
