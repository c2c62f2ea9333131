package io.github.uring4j.bench.data;

import io.github.uring4j.bench.UsageError;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A generated data set: {@code files} files of {@code blocks} 4 KiB blocks in one directory, described by a small
 * properties file so that {@code read} knows what to expect.
 */
public record DataSet(Path dir, int files, long blocks) {

    public static final String MANIFEST = "uring4j-dataset.properties";

    public DataSet {
        if (files <= 0 || blocks <= 0) {
            throw new UsageError("a data set needs at least one file and one block (got " + files + " x " + blocks + ")");
        }
    }

    public Path file(int fileId) {
        return dir.resolve(String.format("block-data-%05d.bin", fileId));
    }

    public long fileSize() {
        return blocks * BlockData.BLOCK_SIZE;
    }

    public long totalBytes() {
        return fileSize() * files;
    }

    public void writeManifest() throws IOException {
        Properties p = new Properties();
        p.setProperty("files", Integer.toString(files));
        p.setProperty("blocks", Long.toString(blocks));
        p.setProperty("blockSize", Integer.toString(BlockData.BLOCK_SIZE));
        try (OutputStream out = Files.newOutputStream(dir.resolve(MANIFEST))) {
            p.store(out, "uring4j-bench data set: files of 4 KiB blocks, each filled from a hash of (file, block)");
        }
    }

    /** The data set in {@code dir}, or a one-line error naming the command that makes one. */
    public static DataSet load(Path dir) {
        Path m = dir.resolve(MANIFEST);
        if (!Files.isRegularFile(m)) {
            throw new UsageError("no data set in " + dir + " (missing " + MANIFEST + "): run `uring4j-bench generate --dir "
                    + dir + "` first");
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(m)) {
            p.load(in);
        } catch (IOException e) {
            throw new UsageError("cannot read " + m + ": " + e.getMessage());
        }
        DataSet ds;
        try {
            ds = new DataSet(dir, Integer.parseInt(p.getProperty("files")), Long.parseLong(p.getProperty("blocks")));
        } catch (RuntimeException e) {
            throw new UsageError("damaged manifest " + m + ": " + e.getMessage());
        }
        for (int f = 0; f < ds.files(); f++) {
            Path file = ds.file(f);
            try {
                if (!Files.isRegularFile(file) || Files.size(file) != ds.fileSize()) {
                    throw new UsageError("data set in " + dir + " is incomplete: " + file.getFileName()
                            + " is missing or not " + ds.fileSize() + " bytes; run generate again");
                }
            } catch (IOException e) {
                throw new UsageError("cannot stat " + file + ": " + e.getMessage());
            }
        }
        return ds;
    }
}
