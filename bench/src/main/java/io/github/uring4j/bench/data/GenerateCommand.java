package io.github.uring4j.bench.data;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.RingFiles;
import io.github.uring4j.bench.common.Sizes;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code generate}: writes a data set of hash-filled 4 KiB blocks. */
@Command(name = "generate", mixinStandardHelpOptions = true, versionProvider = io.github.uring4j.bench.Version.class,
        description = "Write N files of M 4 KiB blocks, each block filled from a hash of (file id, block id).")
public final class GenerateCommand implements Callable<Integer> {

    @Option(names = "--dir", description = "Directory for the data set (default: ${DEFAULT-VALUE}).")
    Path dir = defaultDir();

    @Option(names = {"--files", "--nf"}, description = "Number of files (default: ${DEFAULT-VALUE}).")
    int files = 4;

    @Option(names = {"--blocks", "--nb"}, description = "4 KiB blocks per file (default: ${DEFAULT-VALUE}, i.e. 64 MiB).")
    long blocks = 16384;

    @Option(names = "--corrupt", description = "Then flip a byte in this many random blocks (to test that read catches it).")
    int corrupt;

    @Option(names = "--cold", description = "Drop the files from the page cache afterwards (fsync + fadvise DONTNEED).")
    boolean cold;

    @Option(names = {"-q", "--quiet"}, description = "No progress display.")
    boolean quiet;

    public static Path defaultDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "uring4j-data");
    }

    @Override
    public Integer call() throws Exception {
        if (corrupt < 0) {
            throw new UsageError("--corrupt must not be negative: " + corrupt);
        }
        if (dir.toString().isEmpty()) {
            throw new UsageError("--dir must name a directory (an empty one wrote the data set where the command ran)");
        }
        long t0 = System.nanoTime();
        DataSet ds = Generator.generate(dir, files, blocks, quiet);
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("generated %d files x %d blocks (%s) in %s in %.1f s%n", files, blocks,
                Sizes.format(ds.totalBytes()), dir, s);
        if (corrupt > 0) {
            for (String w : Generator.corrupt(ds, corrupt, System.nanoTime())) {
                System.out.println("corrupted " + w);
            }
        }
        if (cold) {
            for (int f = 0; f < files; f++) {
                RingFiles.dropFromPageCache(ds.file(f));
            }
            System.out.println("dropped from the page cache");
        }
        return 0;
    }
}
