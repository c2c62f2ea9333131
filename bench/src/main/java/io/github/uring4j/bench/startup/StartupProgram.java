package io.github.uring4j.bench.startup;

import io.github.uring4j.nio.UringFiles;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The program {@link StartupCommand} runs in fresh JVMs: its first path (which makes the default file system, and
 * with the property the uring4j provider), then {@code work} milliseconds of its own computing, as a program's
 * start-up does, then its first file operations, timed: {@code Files.readAllBytes} of the source and
 * {@code Files.write} of a copy. On uring4j's provider it also says how many of the two the JDK's own code served
 * because the provider was still linking its native calls ({@code by_jdk}).
 */
public final class StartupProgram {
    private StartupProgram() {
    }

    /**
     * Runs once.
     *
     * @param args the source file, the copy to write, the milliseconds of work before the first read
     * @throws Exception if a file operation fails
     */
    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        Path source = Path.of(args[0]);
        Path copy = Path.of(args[1]);
        long workNanos = Long.parseLong(args[2]) * 1_000_000L;
        long sink = 0;
        while (System.nanoTime() - start < workNanos) {
            sink += Long.toString(sink ^ System.nanoTime()).hashCode();
        }
        long t0 = System.nanoTime();
        byte[] bytes = Files.readAllBytes(source);
        long t1 = System.nanoTime();
        Files.write(copy, bytes);
        long t2 = System.nanoTime();
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        String provider = FileSystems.getDefault().provider().getClass().getName();
        // how many of the two calls the JDK's own code served while uring4j's provider linked its native calls (the
        // name as a string: a class literal would load uring4j's class into the built-in provider's run too)
        long byJdk = provider.equals("io.github.uring4j.nio.UringFileSystemProvider")
                ? UringFiles.statistics().jdkWhileLinking() : 0;
        System.out.println("STARTUP provider=" + provider + " read_ns=" + (t1 - t0) + " write_ns=" + (t2 - t1)
                + " bytes=" + bytes.length + " crc=" + Long.toHexString(crc.getValue()) + " by_jdk=" + byJdk
                + " sink=" + (sink & 1));
    }
}
