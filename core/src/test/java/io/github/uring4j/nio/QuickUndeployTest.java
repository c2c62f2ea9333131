package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A web application that opens, reads and closes a drop-in channel and is undeployed at once (its class loader
 * closed while the library's start-up thread still loads classes): that thread ends quietly. Before, it died with an
 * uncaught {@code NoClassDefFoundError} printed for each undeploy (a hostile probe: 12 of 12).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuickUndeployTest {
    @TempDir
    Path tmp;

    @Test
    void theStartUpThreadEndsQuietlyWhenItsClassLoaderIsClosedUnderIt() throws Exception {
        Conform.Child child = Conform.runJava(List.of(), Undeploys.class, tmp.toString());
        String text = child.output();
        assertTrue(child.ended(), "child still running: " + text);
        assertEquals(0, child.exit(), text);
        assertTrue(text.contains("UNDEPLOYED 6"), text);
        assertFalse(text.contains("UNCAUGHT"), text);
    }

    /** Six deployments, each closed the moment its channel is. */
    public static final class Undeploys {
        public static void main(String[] args) throws Exception {
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> System.out.println("UNCAUGHT in " + t.getName() + ": " + e));
            Path p = Path.of(args[0]).resolve("f");
            Files.write(p, new byte[4096]);
            URL library = UringFiles.class.getProtectionDomain().getCodeSource().getLocation();
            int done = 0;
            for (int i = 0; i < 6; i++) {
                URLClassLoader app = new URLClassLoader(new URL[] {library}, ClassLoader.getPlatformClassLoader());
                Class<?> files = Class.forName(UringFiles.class.getName(), true, app);
                try (FileChannel ch = (FileChannel) files.getMethod("newFileChannel", Path.class, OpenOption[].class)
                        .invoke(null, p, new OpenOption[] {StandardOpenOption.READ})) {
                    ch.read(ByteBuffer.allocate(100), 0);
                }
                app.close();
                done++;
            }
            Thread.sleep(2000); // what the start-up threads do after the close
            System.out.println("UNDEPLOYED " + done);
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
    }
}
