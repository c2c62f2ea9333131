package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relative read holds the channel's position lock for its whole length, the wait for the ring included: a virtual
 * thread waiting there must still leave its carrier.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelativeReadOnOneCarrierTest {
    @TempDir
    Path tmp;

    /**
     * In a JVM whose virtual threads share one carrier: a virtual thread's relative read of an empty FIFO waits for
     * the ring while it holds its channel's position lock; the virtual thread that writes what it waits for can only
     * run if the reader left the carrier.
     */
    @Test
    void aVirtualThreadWaitingForTheRingInsideThePositionLockLeavesItsCarrier() throws Exception {
        Path fifo = Conform.fifo(tmp, "fifo");
        Conform.Child child = Conform.runJava(List.of("-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1"), ReadUnderTheLock.class, fifo.toString());
        String text = child.output();
        assertTrue(child.ended(), "the reader kept the only carrier (child still running after 60 s): " + text);
        assertEquals(0, child.exit(), text);
        assertTrue(text.contains("READ 5 hello PARKED true"), text);
    }

    /** The child of the test above. */
    public static final class ReadUnderTheLock {
        public static void main(String[] args) throws Exception {
            Path fifo = Path.of(args[0]);
            // read and write: the open returns without a writer, and the FIFO stays open for the writer below
            try (FileChannel in = UringFiles.newFileChannel(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    FileChannel out = UringFiles.newFileChannel(fifo, StandardOpenOption.WRITE)) {
                ByteBuffer got = ByteBuffer.allocate(16);
                int[] n = new int[1];
                Thread r = Thread.ofVirtual().start(() -> {
                    try {
                        n[0] = in.read(got); // relative: under the position lock
                    } catch (IOException e) {
                        e.printStackTrace();
                    }
                });
                // the reader is parked once it waits for the ring; only then write what it waits for
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (r.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                boolean parked = r.getState() == Thread.State.WAITING;
                Thread w = Thread.ofVirtual().start(() -> {
                    try {
                        out.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
                    } catch (IOException e) {
                        e.printStackTrace();
                    }
                });
                w.join();
                r.join();
                System.out.println("READ " + n[0] + " " + new String(got.array(), 0, Math.max(0, n[0]),
                        StandardCharsets.US_ASCII) + " PARKED " + parked);
            }
        }
    }
}
