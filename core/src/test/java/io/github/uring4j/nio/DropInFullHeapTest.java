package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.file.ChildJvm;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardCopyOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drop-ins on a full heap ({@code OutOfMemoryError}): a close made while the heap is full closes the
 * descriptor, and a program's calls initialise no class of the library that the provider's start did not (a class
 * first initialised on a full heap fails for the life of the JVM). Found by a hostile probe: {@code Files.readAllBytes} through the provider, in threads that met a full
 * heap, left 6-9 descriptors of the file open in 5 of 6 runs (a close that threw after it had marked the channel
 * closed never closed its descriptor, and nothing did later); with the heap filled before a program's first calls,
 * every later {@code force} (and other calls, in other runs) failed with {@code NoClassDefFoundError}.
 */
class DropInFullHeapTest {
    @TempDir
    Path dir;

    /**
     * A child JVM with a 32 MiB heap opens 40 channels, each with its ring handle made, fills its heap (another thread
     * lets it go after two seconds) and closes them all: every close returns (it waits for memory) and the process has
     * as many descriptors afterwards as before the 40 were opened.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCloseOnAFullHeapClosesTheDescriptor() throws Exception {
        String text = ChildJvm.runMain(Closes.class, List.of("-Xmx32m"), 90, dir.toString());
        System.out.println(text);
        assertTrue(text.contains("CLOSED " + Closes.CHANNELS + " THREW 0\n"), text);
        assertTrue(text.contains("DESCRIPTORS LEFT 0 ("), text);
    }

    /** The child of {@link #aCloseOnAFullHeapClosesTheDescriptor}. */
    public static final class Closes {
        static final int CHANNELS = 40;
        static volatile boolean full;
        static volatile Object hog;

        public static void main(String[] args) throws Exception {
            Path p = Path.of(args[0]).resolve("f");
            Files.write(p, new byte[8192]);
            int before = descriptors();
            UringFileChannel[] channels = new UringFileChannel[CHANNELS];
            for (int i = 0; i < CHANNELS; i++) {
                channels[i] = (UringFileChannel) UringFiles.newFileChannel(p, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                channels[i].ringUse(); // the close then has the ring's handle to close too
            }
            int withRings = descriptors() - CHANNELS; // the default executor's ring and eventfd came with the first
            Thread filler = new Thread(() -> {
                List<byte[]> h = new ArrayList<>();
                hog = h;
                try {
                    while (true) {
                        h.add(new byte[4096]);
                    }
                } catch (OutOfMemoryError e) {
                    full = true;
                }
                long until = System.nanoTime() + 2_000_000_000L;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
                hog = null;
            });
            filler.start();
            while (!full) {
                Thread.onSpinWait();
            }
            int closed = 0;
            int threw = 0;
            for (UringFileChannel c : channels) {
                try {
                    c.close();
                    closed++;
                } catch (Throwable t) {
                    threw++;
                }
            }
            filler.join();
            System.gc();
            System.out.println("CLOSED " + closed + " THREW " + threw);
            System.out.println("DESCRIPTORS LEFT " + descriptorsOf(p) + " (before the channels: " + before
                    + ", with them and the rings: " + (withRings + CHANNELS) + ", now: " + descriptors() + ")");
        }

        /** The descriptors of this process open on {@code p}. */
        private static int descriptorsOf(Path p) throws java.io.IOException {
            int n = 0;
            for (String fd : new File("/proc/self/fd").list()) {
                try {
                    n += Files.readSymbolicLink(Path.of("/proc/self/fd", fd)).equals(p) ? 1 : 0;
                } catch (java.nio.file.NoSuchFileException e) {
                    // the listing's own descriptor, closed since
                }
            }
            return n;
        }

        private static int descriptors() {
            return new File("/proc/self/fd").list().length;
        }
    }

    /** Every class the preload names exists (a misspelt name would be passed over in silence). */
    @Test
    void thePreloadNamesClassesThatExist() throws Exception {
        List<String> names = new ArrayList<>(List.of(io.github.uring4j.engine.Preload.engineNames()));
        names.addAll(List.of(UringFiles.CHANNEL_CLASSES));
        for (String name : names) {
            assertEquals(name, Class.forName(name, false, UringFiles.class.getClassLoader()).getName());
        }
    }

    /**
     * A child JVM with the provider installed waits for its start (the thread that links the calls, preloads the
     * classes and starts the rings), then makes every kind of drop-in call: the JVM's class initialisation log shows
     * no class of the library initialised by those calls (lambdas aside: a lambda that fails to be made is made again
     * at its next use).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aProgramsCallsInitialiseNoLibraryClassAfterTheProvidersStart() throws Exception {
        Path log = dir.resolve("init.log");
        String text = ChildJvm.runMain(Calls.class, List.of("-Xlog:class+init=info:file=" + log,
                "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName()), 90,
                dir.toString());
        assertTrue(text.contains("CALLS MADE"), text);
        List<String> lines = Files.readAllLines(log);
        int marker = -1;
        for (int i = 0; i < lines.size() && marker < 0; i++) {
            if (lines.get(i).contains("Initializing '" + Calls.Marker.class.getName().replace('.', '/') + "'")) {
                marker = i;
            }
        }
        assertTrue(marker > 0, "the marker's initialisation is not in the log");
        List<String> late = new ArrayList<>();
        java.net.URL library = UringFiles.class.getProtectionDomain().getCodeSource().getLocation();
        for (String line : lines.subList(marker + 1, lines.size())) {
            int at = line.indexOf("Initializing 'io/github/uring4j/");
            // "(no method)": no static initialiser, nothing that can fail
            if (at < 0 || line.contains("$$Lambda") || line.contains("(no method)")) {
                continue;
            }
            String name = line.substring(at + "Initializing '".length(), line.indexOf('\'', at + 14)).replace('/', '.');
            Class<?> c = Class.forName(name, false, UringFiles.class.getClassLoader());
            if (c.getProtectionDomain().getCodeSource().getLocation().equals(library)) { // not the tests' own
                late.add(line.substring(at));
            }
        }
        assertEquals(List.of(), late, "initialised by the calls, not by the provider's start");
    }

    /** The child of {@link #aProgramsCallsInitialiseNoLibraryClassAfterTheProvidersStart}. */
    public static final class Calls {
        /** Initialised between the provider's start and the calls: the log's mark. */
        static final class Marker {
            static final long AT = System.nanoTime();
        }

        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            Files.size(dir); // the default file system, and with it the provider, is made
            long until = System.nanoTime() + 30_000_000_000L;
            while (UringFiles.LINKING.get() && System.nanoTime() - until < 0) {
                Thread.sleep(10);
            }
            Thread.sleep(200); // the rings' start, begun by that thread, ends
            Class.forName(Marker.class.getName());
            Path f = dir.resolve("f");
            byte[] data = new byte[65536];
            new java.util.Random(1).nextBytes(data);
            Files.write(f, data);
            calls(dir, f, data);
            Thread v = Thread.ofVirtual().start(() -> {
                try {
                    calls(dir, f, data);
                } catch (IOException | InterruptedException | java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(e);
                }
            });
            v.join();
            direct(dir);
            System.out.println("CALLS MADE");
        }

        private static void calls(Path dir, Path f, byte[] data) throws IOException, InterruptedException,
                java.util.concurrent.ExecutionException {
            Path t = dir.resolve("t" + Thread.currentThread().isVirtual());
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    FileChannel d = FileChannel.open(t, StandardOpenOption.READ, StandardOpenOption.WRITE,
                            StandardOpenOption.CREATE)) {
                ByteBuffer hb = ByteBuffer.allocate(4096);
                ByteBuffer db = ByteBuffer.allocateDirect(4096);
                ch.read(hb, 0);
                ch.read(db.clear(), 4096);
                ch.read(hb.clear());
                ch.read(new ByteBuffer[] {hb.clear(), db.clear()});
                ch.write(hb.clear(), 0);
                ch.write(db.clear(), 8192);
                ch.position(100);
                ch.write(hb.clear());
                ch.write(new ByteBuffer[] {hb.clear(), db.clear()});
                ch.force(true);
                ch.force(false);
                ch.size();
                ch.truncate(70000);
                ch.transferTo(0, 4096, d);
                d.transferFrom(ch, 0, 4096);
                try (FileLock l = ch.lock()) {
                    assertTrue(l.isValid());
                }
                try (FileLock l = ch.tryLock(0, 10, true)) {
                    assertTrue(l.isValid());
                }
                ch.map(FileChannel.MapMode.READ_ONLY, 0, 4096).get(0);
            }
            Files.readAllBytes(f);
            Files.readString(f, StandardCharsets.ISO_8859_1);
            Files.write(dir.resolve("s"), data);
            Files.copy(f, dir.resolve("c"), StandardCopyOption.REPLACE_EXISTING);
            try (InputStream in = Files.newInputStream(f)) {
                in.readAllBytes();
            }
            try (OutputStream out = Files.newOutputStream(dir.resolve("o"))) {
                out.write(data);
            }
            try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.ISO_8859_1)) {
                r.read();
            }
            try (var lines = Files.lines(f, StandardCharsets.ISO_8859_1)) {
                lines.count();
            }
            for (StandardOpenOption o : List.of(StandardOpenOption.APPEND, StandardOpenOption.SYNC,
                    StandardOpenOption.DSYNC)) {
                try (FileChannel c = FileChannel.open(dir.resolve("w" + o), StandardOpenOption.WRITE,
                        StandardOpenOption.CREATE, o)) {
                    c.write(ByteBuffer.wrap(data));
                }
            }
            try (AsynchronousFileChannel ac = AsynchronousFileChannel.open(f, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ac.read(ByteBuffer.allocate(4096), 0).get();
                ac.write(ByteBuffer.allocate(4096), 0).get();
                CountDownLatch ended = new CountDownLatch(2);
                CompletionHandler<Integer, Object> h = new CompletionHandler<>() {
                    @Override
                    public void completed(Integer n, Object a) {
                        ended.countDown();
                    }

                    @Override
                    public void failed(Throwable x, Object a) {
                        ended.countDown();
                    }
                };
                ac.read(ByteBuffer.allocate(4096), 0, null, h);
                ac.write(ByteBuffer.allocate(4096), 0, null, h);
                ended.await();
                ac.force(true);
                ac.size();
                ac.lock().get().release();
                ac.truncate(65536);
            }
        }

        /** {@code O_DIRECT} reads and writes on both kinds of thread, where the file system takes them. */
        private static void direct(Path dir) throws Exception {
            FileChannel ch;
            try {
                ch = FileChannel.open(dir.resolve("direct"), StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.CREATE, Conform.DIRECT);
            } catch (IOException | UnsupportedOperationException noDirectHere) {
                return;
            }
            try (ch) {
                ByteBuffer b = ByteBuffer.allocateDirect(8192).alignedSlice(4096).limit(4096);
                ch.write(b, 0);
                ch.force(true);
                ch.read(b.clear(), 0);
                Thread.ofVirtual().start(() -> {
                    try {
                        ch.write(b.clear(), 4096);
                        ch.read(b.clear(), 0);
                        ch.force(true);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }).join();
            }
        }
    }
}
