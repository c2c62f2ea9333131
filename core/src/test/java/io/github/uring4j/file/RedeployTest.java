package io.github.uring4j.file;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A web application that bundles uring4j, uses it and closes everything (its files, channels, pools, its executor
 * and the default one), then is undeployed: its class loader can be unloaded. Before, every redeploy left the whole
 * loader behind (a hostile probe: 100 of 100), held by the library's threads (their context class loader), its
 * cleaner threads that never ended, its JMX thread, two shutdown hooks, the drop-ins' JMX view and the values of its
 * thread locals in the server's threads.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedeployTest {
    @TempDir
    Path dir;

    @Test
    void anApplicationThatClosedEverythingCanBeUnloaded() throws Exception {
        String text = ChildJvm.runMain(Server.class, List.of(), 150, dir.toString());
        assertTrue(text.contains("DEPLOYED 3"), text);
        assertTrue(text.contains("UNLOADED 3 OF 3"), text);
    }

    /** The server: deploys the application three times, each in a class loader of its own, and undeploys it. */
    public static final class Server {
        public static void main(String[] args) throws Exception {
            Path data = Path.of(args[0]);
            URL library = IoExecutor.class.getProtectionDomain().getCodeSource().getLocation();
            URL tests = Server.class.getProtectionDomain().getCodeSource().getLocation();
            List<WeakReference<ClassLoader>> undeployed = new ArrayList<>();
            Thread request = null;
            for (int i = 0; i < 3; i++) {
                URLClassLoader app = new URLClassLoader(new URL[] {library, tests}, ClassLoader.getPlatformClassLoader());
                Runnable work = (Runnable) Class.forName(App.class.getName(), true, app).getConstructor(Path.class)
                        .newInstance(data.resolve("app" + i));
                // a server's request thread, which lives on after the application is gone
                if (request == null) {
                    request = new Thread(Server::serve, "request");
                    request.setDaemon(true);
                    request.start();
                }
                REQUESTS.put(work);
                String r = DONE.take();
                if (!r.equals("ok")) {
                    System.out.println("APP FAILED " + r);
                    return;
                }
                app.close();
                undeployed.add(new WeakReference<>(app));
            }
            System.out.println("DEPLOYED " + undeployed.size());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            int unloaded = 0;
            while (System.nanoTime() - deadline < 0) {
                System.gc();
                Thread.sleep(500);
                unloaded = 0;
                for (WeakReference<ClassLoader> w : undeployed) {
                    unloaded += w.get() == null ? 1 : 0;
                }
                if (unloaded == undeployed.size()) {
                    break;
                }
            }
            System.out.println("UNLOADED " + unloaded + " OF " + undeployed.size());
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("uring4j")) {
                    System.out.println("LEFT THREAD " + t.getName());
                }
            }
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }

        static final java.util.concurrent.SynchronousQueue<Runnable> REQUESTS = new java.util.concurrent.SynchronousQueue<>();
        static final java.util.concurrent.SynchronousQueue<String> DONE = new java.util.concurrent.SynchronousQueue<>();

        private static void serve() {
            while (true) {
                try {
                    Runnable r = REQUESTS.take();
                    String result;
                    try {
                        r.run();
                        result = "ok";
                    } catch (Throwable t) {
                        result = String.valueOf(t);
                    }
                    r = null;
                    DONE.put(result);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** The application: uses the library and closes everything it used. */
    public static final class App implements Runnable {
        private final Path dir;

        public App(Path dir) {
            this.dir = dir;
        }

        @Override
        public void run() {
            try {
                Files.createDirectories(dir);
                Path p = dir.resolve("f");
                Files.write(p, new byte[65536]);
                try (IoExecutor own = IoExecutor.builder().name("app").build();
                        BufferPool pool = BufferPool.builder().count(2).bufferSize(4096).build();
                        AsyncFile f = AsyncFile.open(own, p, StandardOpenOption.READ, StandardOpenOption.WRITE)
                                .get(10, TimeUnit.SECONDS)) {
                    ByteBuffer b = ByteBuffer.allocateDirect(4096);
                    f.write(b, 0).get(10, TimeUnit.SECONDS);
                    f.read(b.clear(), 4096).get(10, TimeUnit.SECONDS);
                    f.writeAndSync(b.clear(), 8192).get(10, TimeUnit.SECONDS);
                    pool.hashCode();
                }
                try (AsyncFile g = AsyncFile.open(IoExecutor.defaultExecutor(), p, StandardOpenOption.READ)
                        .get(10, TimeUnit.SECONDS)) {
                    g.read(ByteBuffer.allocateDirect(100), 0).get(10, TimeUnit.SECONDS);
                }
                try (FileChannel ch = io.github.uring4j.nio.UringFiles.newFileChannel(p, StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
                    ch.read(ByteBuffer.allocate(100), 0);
                    ch.write(ByteBuffer.allocate(100), 100);
                    ch.force(false);
                }
                IoExecutor.defaultExecutor().close();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }
    }
}
