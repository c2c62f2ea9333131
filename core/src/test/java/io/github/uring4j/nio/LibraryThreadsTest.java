package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.file.AsyncFile;
import io.github.uring4j.file.BufferPool;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.IoUring;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The threads the library starts for itself take nothing of the thread whose call started them: no copy of its
 * inheritable thread locals (a request's context, kept by a loop or cleaner for the life of the JVM), and, for the
 * threads that serve the whole process, not its context class loader (a web application's, kept from being unloaded
 * after it was undeployed: a hostile probe found five such threads per redeploy). An executor the program builds
 * keeps the builder's context class loader for its threads, where its handlers run.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibraryThreadsTest {
    @TempDir
    Path tmp;

    @Test
    void libraryThreadsKeepNeitherTheCallersThreadLocalsNorItsClassLoader() throws Exception {
        Conform.Child child = Conform.runJava(List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED"),
                FirstCallsFromARequest.class, tmp.toString());
        String text = child.output();
        assertTrue(child.ended(), "child still running: " + text);
        assertEquals(0, child.exit(), text);
        assertTrue(text.contains("THREADS CHECKED "), text);
        assertTrue(text.contains("OWN EXECUTOR KEEPS THE BUILDER'S LOADER"), text);
        assertTrue(!text.contains("WRONG"), text);
        for (String name : List.of("uring4j-default-0", "own-0", "uring4j-cleaner", "uring4j-ring-cleaner",
                "uring4j-cleaner-pools", "uring4j-async-channel-1", "uring4j-jmx", "uring4j-loop-watchdog")) {
            assertTrue(text.contains("SEEN " + name + "\n"), name + " not seen: " + text);
        }
    }

    /** A request thread with a context of its own makes the process's first calls into the library. */
    public static final class FirstCallsFromARequest {
        static final InheritableThreadLocal<Object> REQUEST = new InheritableThreadLocal<>();

        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            Path p = dir.resolve("f");
            Files.write(p, new byte[8192]);
            ClassLoader webapp = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader());
            Object context = new Object();
            REQUEST.set(context); // the request thread takes a copy as it is made
            Thread request = new Thread(() -> {
                try {
                    calls(p);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }, "request");
            request.setContextClassLoader(webapp);
            request.start(); // with REQUEST's value and the web application's loader
            request.join();
            REQUEST.remove();
            java.lang.reflect.Field itl = Thread.class.getDeclaredField("inheritableThreadLocals");
            itl.setAccessible(true);
            int checked = 0;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!t.getName().startsWith("uring4j") && !t.getName().startsWith("own-")) {
                    continue;
                }
                checked++;
                System.out.println("SEEN " + t.getName());
                Object map = itl.get(t);
                if (map != null) {
                    System.out.println("WRONG: " + t.getName() + " holds inheritable thread locals");
                }
                boolean own = t.getName().startsWith("own-");
                if (own != (t.getContextClassLoader() == webapp)) {
                    System.out.println("WRONG: " + t.getName() + " has context class loader " + t.getContextClassLoader());
                }
            }
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("own-") && t.getContextClassLoader() == webapp) {
                    System.out.println("OWN EXECUTOR KEEPS THE BUILDER'S LOADER");
                    break;
                }
            }
            System.out.println("THREADS CHECKED " + checked);
            System.out.flush();
            Runtime.getRuntime().halt(0); // the executors stay open: their threads were what was looked at
        }

        private static void calls(Path p) throws Exception {
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            try (AsyncFile f = AsyncFile.open(IoExecutor.defaultExecutor(), p, StandardOpenOption.READ).get()) {
                f.read(b, 0).get();
            }
            IoExecutor own = IoExecutor.builder().name("own").build(); // left open: its threads are looked at
            try (AsyncFile f = AsyncFile.open(own, p, StandardOpenOption.READ).get()) {
                f.read(b.clear(), 0).get();
            }
            try (FileChannel ch = UringFiles.newFileChannel(p, StandardOpenOption.READ)) {
                ch.read(b.clear(), 0);
                ch.transferTo(0, 8192, FileChannel.open(p.resolveSibling("copy"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE));
            }
            try (AsynchronousFileChannel ch = UringFiles.newAsynchronousFileChannel(p, StandardOpenOption.READ)) {
                CompletableFuture<Integer> done = new CompletableFuture<>();
                ch.read(b.clear(), 0, null, io.github.uring4j.file.TestFiles.into(done)); // on the default pool
                done.get();
            }
            IoExecutor.defaultExecutor().jmxName();
            IoUring.open(8); // dropped: the ring's cleaner closes it
            BufferPool.builder().count(2).bufferSize(4096).build(); // dropped: a pool cleaner releases it
            AsyncFile.open(IoExecutor.defaultExecutor(), p, StandardOpenOption.READ).get(); // dropped
            System.gc();
            Thread.sleep(500);
        }
    }
}
