package io.github.uring4j.bench.data;

import io.github.uring4j.bench.UsageError;
import io.github.uring4j.bench.common.Progress;
import io.github.uring4j.bench.common.Sizes;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/** Writes data sets (and, for tests of the checker, corrupts blocks of one). */
public final class Generator {

    private static final int CHUNK = 1 << 20;

    private Generator() {
    }

    /** Fails with a one-line error unless {@code dir}'s file system has {@code bytes} plus a margin free. */
    public static void checkSpace(Path dir, long bytes) {
        try {
            Files.createDirectories(dir);
            long free = Files.getFileStore(dir).getUsableSpace();
            long margin = Math.max(256L << 20, bytes / 10);
            if (free < bytes + margin) {
                throw new UsageError("not enough disk space in " + dir + ": need " + (bytes >> 20) + " MiB (+"
                        + (margin >> 20) + " MiB margin), " + (free >> 20) + " MiB free");
            }
        } catch (IOException e) {
            // an AccessDeniedException's message is the path alone
            throw new UsageError("cannot use " + dir + ": " + e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }

    /** Writes the data set (overwriting any files of the same names) and its manifest. */
    @SuppressWarnings("try") // the progress display lives as long as the block, unreferenced
    public static DataSet generate(Path dir, int files, long blocks, boolean quiet) throws IOException {
        DataSet ds = new DataSet(dir, files, blocks);
        // An earlier data set's files first, all of them: a killed or failed run left partial ones, which the space
        // check counted against the rerun ("not enough disk space"), and a larger earlier one left files past the new
        // count. Only files of the data set's own names.
        Files.deleteIfExists(dir.resolve(DataSet.MANIFEST));
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, "block-data-[0-9][0-9][0-9][0-9][0-9].bin")) {
                for (Path f : old) {
                    Files.deleteIfExists(f);
                }
            }
        }
        checkSpace(dir, ds.totalBytes());
        AtomicLong written = new AtomicLong();
        try (Arena arena = Arena.ofConfined();
             Progress p = new Progress("generate " + files + " x " + Sizes.format(ds.fileSize()), 0, written::get, "MiB",
                     1 << 20, quiet)) {
            MemorySegment buf = arena.allocate(CHUNK, 4096);
            ByteBuffer bb = buf.asByteBuffer();
            for (int f = 0; f < files; f++) {
                try (FileChannel ch = FileChannel.open(ds.file(f), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    for (long off = 0; off < ds.fileSize(); off += CHUNK) {
                        int len = (int) Math.min(CHUNK, ds.fileSize() - off);
                        BlockData.fill(buf, 0, f, off, len);
                        bb.clear().limit(len);
                        while (bb.hasRemaining()) {
                            ch.write(bb, off + bb.position());
                        }
                        written.addAndGet(len);
                    }
                }
            }
        }
        ds.writeManifest();
        return ds;
    }

    /** The data set in {@code dir} if it has this shape, else a new one. */
    public static DataSet ensure(Path dir, int files, long blocks, boolean quiet) throws IOException {
        try {
            DataSet ds = DataSet.load(dir);
            if (ds.files() == files && ds.blocks() == blocks) {
                return ds;
            }
        } catch (UsageError e) {
            // absent or different: write it
        }
        return generate(dir, files, blocks, quiet);
    }

    /** Flips one byte in each of {@code count} distinct random blocks; returns "file:block" of each. */
    public static String[] corrupt(DataSet ds, int count, long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        String[] where = new String[count];
        java.util.Set<Long> used = new java.util.HashSet<>();
        for (int i = 0; i < count; i++) {
            int f;
            long b;
            do {
                f = rnd.nextInt(ds.files());
                b = rnd.nextLong(ds.blocks());
            } while (!used.add(f * ds.blocks() + b) && used.size() < ds.files() * ds.blocks());
            long off = b * BlockData.BLOCK_SIZE + rnd.nextInt(BlockData.BLOCK_SIZE);
            try (FileChannel ch = FileChannel.open(ds.file(f), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer one = ByteBuffer.allocate(1);
                ch.read(one, off);
                one.put(0, (byte) ~one.get(0)).clear();
                ch.write(one, off);
            }
            where[i] = ds.file(f).getFileName() + " block " + b;
        }
        return where;
    }
}
