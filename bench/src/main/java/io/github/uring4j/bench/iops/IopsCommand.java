package io.github.uring4j.bench.iops;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.Sizes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code iops}: a block-I/O load generator in the manner of fio's {@code t/io_uring}, with its flag letters. Each
 * thread owns one ring (or, with {@code -S1}, a JDK {@code FileChannel}) and keeps {@code -d} reads in flight,
 * submitting {@code -s} at a time and reaping up to {@code -c}; every second it prints
 * {@code IOPS=..., BW=..., IOS/call=submitted/reaped}.
 */
@Command(name = "iops", sortOptions = false, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Random or sequential block I/O through io_uring (or pread with -S1), like fio's t/io_uring.")
public final class IopsCommand implements Callable<Integer> {

    // -V is t/io_uring's verify flag here, so the version is only --version.
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "--version", versionHelp = true, description = "Print version information and exit.")
    boolean version;

    @Option(names = "-b", paramLabel = "BYTES", description = "block size (default ${DEFAULT-VALUE})")
    int blockSize = 4096;

    @Option(names = "-d", paramLabel = "DEPTH", description = "queue depth per thread (default ${DEFAULT-VALUE})")
    int depth = 128;

    @Option(names = "-s", paramLabel = "N", description = "submit batch (default ${DEFAULT-VALUE})")
    int submitBatch = 32;

    @Option(names = "-c", paramLabel = "N", description = "complete batch (default ${DEFAULT-VALUE})")
    int completeBatch = 32;

    @Option(names = "-p", paramLabel = "0|1", description = "polled I/O, IORING_SETUP_IOPOLL (default ${DEFAULT-VALUE})")
    int polled = 0;

    @Option(names = "-B", paramLabel = "0|1", description = "fixed (registered) buffers (default ${DEFAULT-VALUE})")
    int fixedBuffers = 1;

    @Option(names = "-F", paramLabel = "0|1", description = "registered files (default ${DEFAULT-VALUE})")
    int registeredFiles = 1;

    @Option(names = "-O", paramLabel = "0|1", description = "O_DIRECT (default ${DEFAULT-VALUE})")
    int direct = 1;

    @Option(names = "-R", paramLabel = "0|1", description = "random offsets, else sequential (default ${DEFAULT-VALUE})")
    int random = 1;

    @Option(names = "-n", paramLabel = "THREADS", description = "threads, one ring each (default ${DEFAULT-VALUE})")
    int threads = 1;

    @Option(names = "-r", paramLabel = "SECONDS", description = "runtime (default ${DEFAULT-VALUE})")
    int runtime = 10;

    @Option(names = "-S", paramLabel = "0|1", description = "synchronous: JDK FileChannel positional reads, one at a time (default ${DEFAULT-VALUE})")
    int sync = 0;

    @Option(names = {"-E", "--engine"}, paramLabel = "ENGINE",
            description = "io_uring: the ring API (default); filechannel: JDK FileChannel (same as -S1); afc: JDK"
                    + " AsynchronousFileChannel; handler, future: uring4j AsyncFile with CompletionHandlers or"
                    + " CompletableFutures, on one event loop per thread")
    String engine = "io_uring";

    @Option(names = "-W", paramLabel = "0|1", description = "write instead of read (default ${DEFAULT-VALUE})")
    int write = 0;

    @Option(names = "-V", paramLabel = "0|1|2", description = "verify what is read: 1 first and last word of each block, 2 every word (default ${DEFAULT-VALUE}); the file must carry the --create pattern")
    int verify = 0;

    @Option(names = "--ring-flags", paramLabel = "LIST", split = ",",
            description = "extra setup flags: single_issuer, defer_taskrun, coop_taskrun, sqpoll (default ${DEFAULT-VALUE})")
    List<String> ringFlags = new ArrayList<>(List.of("single_issuer", "defer_taskrun"));

    @Option(names = "--create", paramLabel = "SIZE",
            description = "create the file with this size (e.g. 1g, 256m) filled with the verification pattern, if it does not exist")
    String create;

    @Option(names = "--json", description = "print the summary as one JSON object")
    boolean json;

    @Option(names = {"-q", "--quiet"}, description = "no per-second lines")
    boolean quiet;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "files to read (each thread uses all of them)")
    List<Path> files;

    @Override
    public Integer call() throws Exception {
        IopsConfig cfg = validate();
        IopsRun run = new IopsRun(cfg);
        PrintStream out = System.out;
        IopsRun.Result r = run.execute(quiet || json ? null : out);
        if (json) {
            out.println(r.toJson(cfg));
        } else {
            out.println(r.summary(cfg));
        }
        return 0;
    }

    private IopsConfig validate() throws IOException {
        check(blockSize > 0, "-b must be positive");
        check(depth > 0 && depth <= 32768, "-d must be 1..32768");
        check(submitBatch > 0, "-s must be positive");
        check(completeBatch > 0, "-c must be positive");
        check(threads > 0 && threads <= 64, "-n must be 1..64 (one ring and one thread each)");
        check(runtime > 0, "-r must be positive");
        for (int v : new int[] {polled, fixedBuffers, registeredFiles, direct, random, sync, write}) {
            check(v == 0 || v == 1, "flags -p -B -F -O -R -S -W take 0 or 1");
        }
        check(verify >= 0 && verify <= 2, "-V takes 0, 1 or 2");
        check(polled == 0 || direct == 1, "-p1 (polled I/O) needs -O1 (O_DIRECT)");
        Engine eng = sync == 1 ? Engine.SYNC : Engine.parse(engine);
        check(sync == 0 || eng == Engine.SYNC || engine.equals("io_uring"), "-S1 and -E " + engine + " disagree");
        check(polled == 0 || eng == Engine.RING, "-p1 needs the io_uring engine");
        check(write == 0 || verify == 0, "-V verifies reads; it cannot be combined with -W1");
        int setupFlags = RingFlags.parse(ringFlags);
        if (polled == 1) {
            setupFlags |= io.github.uring4j.ring.SetupFlag.IOPOLL;
        }
        long createSize = create == null ? -1 : Sizes.parse("--create", create);
        List<IopsConfig.Target> targets = new ArrayList<>();
        for (Path f : files) {
            if (!Files.exists(f)) {
                if (createSize <= 0) {
                    throw new UsageError("no such file: " + f + " (add --create SIZE to make one)");
                }
                PatternFile.create(f, createSize);
            }
            check(Files.isRegularFile(f), f + " is not a regular file");
            check(Files.isReadable(f), f + " is not readable");
            long size = Files.size(f);
            check(size >= blockSize, f + " is smaller than one block (" + size + " < " + blockSize + " bytes)");
            int align = direct == 1 ? FileFacts.directIoAlignment(f) : 1;
            if (direct == 1 && blockSize % align != 0) {
                throw new UsageError("-b " + blockSize + " is not a multiple of " + f
                        + "'s O_DIRECT alignment (" + align + " bytes)");
            }
            targets.add(new IopsConfig.Target(f, size));
        }
        return new IopsConfig(blockSize, depth, Math.min(submitBatch, depth), Math.min(completeBatch, depth),
                polled == 1, fixedBuffers == 1, registeredFiles == 1, direct == 1, random == 1, threads, runtime,
                eng, write == 1, verify, setupFlags, List.copyOf(targets));
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new UsageError(message);
        }
    }

    static String si(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.2fK", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
