package io.github.uring4j.modulecheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.ring.IoUring;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * uring4j loaded by a plugin host into a module layer of its own, in a JVM that denies native access to modules not
 * granted it: the command line's {@code --enable-native-access=io.github.uring4j.core} does not reach a module of
 * another layer (the JVM says "Unknown module"), so the library's message says what does (the layer's
 * {@code ModuleLayer.Controller.enableNativeAccess}); granted that way, io_uring is used. (Before, the message advised
 * the very flag that had been given.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChildLayerTest {
    @Test
    void aModuleOfAChildLayerIsToldHowItsLayerGrantsNativeAccess() throws Exception {
        String refused = host(false);
        assertTrue(refused.contains("REASON ") && refused.contains("ModuleLayer.Controller.enableNativeAccess"),
                refused);
        String granted = host(true);
        assertTrue(granted.contains("REASON none"), granted);
    }

    private static String host(boolean grant) throws Exception {
        Path core = Path.of(IoUring.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path here = Path.of(ChildLayerTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--illegal-native-access=deny", "--enable-native-access=io.github.uring4j.core,ALL-UNNAMED", "-cp",
                here.toString(), Host.class.getName(), core.toString(), String.valueOf(grant)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String text = new String(out, java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), cmd + "\n" + text);
        return text;
    }

    /**
     * A plugin host (on the class path, with native access of its own: granting it is a restricted call): the library
     * in a layer of its own, granted native access by the layer's controller or not.
     */
    public static final class Host {
        public static void main(String[] args) throws Exception {
            ModuleFinder finder = ModuleFinder.of(Path.of(args[0]));
            ModuleLayer boot = ModuleLayer.boot();
            Configuration cf = boot.configuration().resolve(finder, ModuleFinder.of(), Set.of("io.github.uring4j.core"));
            ModuleLayer.Controller c = ModuleLayer.defineModulesWithOneLoader(cf, List.of(boot),
                    ClassLoader.getPlatformClassLoader());
            Module m = c.layer().findModule("io.github.uring4j.core").orElseThrow();
            if (Boolean.parseBoolean(args[1])) {
                c.enableNativeAccess(m);
            }
            Class<?> executor = Class.forName("io.github.uring4j.file.IoExecutor", true, m.getClassLoader());
            Object builder = executor.getMethod("builder").invoke(null);
            try (AutoCloseable io = (AutoCloseable) builder.getClass().getMethod("build").invoke(builder)) {
                Optional<?> reason = (Optional<?>) executor.getMethod("fallbackReason").invoke(io);
                System.out.println("REASON " + reason.map(Object::toString).orElse("none"));
            }
        }
    }
}
