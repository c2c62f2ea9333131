package io.github.uring4j.file;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/** The programs the child-JVM tests run (JVM exit, memlock limit, kill -9); each prints what the parent checks. */
public final class ChildMain {
    private ChildMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "exit" -> exit(Path.of(args[1]));
            case "memlock" -> memlock(Path.of(args[1]));
            case "durable" -> durable(Path.of(args[1]), Backend.valueOf(args[2]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Case 29: leaves executors open, a read pending on a pipe, and returns from main. */
    static void exit(Path dir) throws Exception {
        IoExecutor def = IoExecutor.defaultExecutor();
        IoExecutor own = IoExecutor.builder().loops(2).build();
        Path fifo = dir.resolve("fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        AsyncFile f = AsyncFile.open(own, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
        f.read(ByteBuffer.allocateDirect(8), 0);
        AsyncFile g = AsyncFile.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
        g.read(ByteBuffer.allocateDirect(8), 0);
        System.out.println("READY " + def.backend() + " " + own.backend());
        System.out.flush();
    }

    /** Case 22: registering buffers over the memlock limit falls back to unregistered I/O. */
    static void memlock(Path file) throws Exception {
        try (IoExecutor io = IoExecutor.builder().backend(Backend.IO_URING).loops(1).entries(8)
                        .inFlightLimit(8).build();
                BufferPool pool = BufferPool.builder().bufferSize(64 * 1024).count(16).register(io).build();
                AsyncFile f = AsyncFile.open(io, file, StandardOpenOption.READ, StandardOpenOption.WRITE).join()) {
            System.out.println("REGISTERED " + pool.isRegistered());
            System.out.println("FAILURE " + pool.registrationFailure().orElse("none"));
            MemorySegment m = pool.acquire();
            for (int i = 0; i < m.byteSize(); i++) {
                m.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            int w = f.writeFully(m, 0).join();
            m.fill((byte) 0);
            int r = f.readFully(m, 0).join();
            boolean same = true;
            for (int i = 0; i < m.byteSize(); i++) {
                same &= m.get(ValueLayout.JAVA_BYTE, i) == (byte) i;
            }
            System.out.println("IO " + (w == 65536 && r == 65536 && same ? "OK" : "BAD"));
            pool.release(m);
        }
    }

    /** Case 30: writes numbered records with write+fdatasync, printing ACK n once each is durable. */
    static void durable(Path file, Backend backend) throws Exception {
        try (IoExecutor io = IoExecutor.builder().backend(backend).loops(1).build();
                AsyncFile f = AsyncFile.open(io, file, StandardOpenOption.CREATE, StandardOpenOption.WRITE).join()) {
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            for (long i = 0; ; i++) {
                record(b, i);
                f.writeAndSync(b, i * 4096).join();
                System.out.println("ACK " + i);
                System.out.flush();
            }
        }
    }

    static void record(ByteBuffer b, long i) {
        b.clear();
        while (b.position() < 4088) {
            b.putLong(i);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.duplicate().flip());
        b.putLong(crc.getValue());
        b.flip();
    }

    static boolean check(byte[] file, long i) {
        if (file.length < (i + 1) * 4096) {
            return false;
        }
        ByteBuffer b = ByteBuffer.allocate(4096);
        record(b, i);
        return b.equals(ByteBuffer.wrap(file, (int) (i * 4096), 4096));
    }

    static Path self() {
        return Path.of(System.getProperty("java.class.path"));
    }

    static boolean exists(Path p) {
        return Files.exists(p);
    }
}
