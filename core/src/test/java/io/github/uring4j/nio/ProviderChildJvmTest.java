package io.github.uring4j.nio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.nio.program.UnchangedProgram;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unchanged program ({@link UnchangedProgram}, which knows nothing of uring4j) run in child JVMs: on the plain
 * JDK, and with {@code -Djava.nio.file.spi.DefaultFileSystemProvider=io.github.uring4j.nio.UringFileSystemProvider}
 * with uring4j on the class path, on the module path beside the program on the class path, and beside the program
 * as a module of its own, exactly as the README says to run it. Every run prints the
 * same facts and leaves the same files.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProviderChildJvmTest {
    static final String PROPERTY = "-Djava.nio.file.spi.DefaultFileSystemProvider="
            + UringFileSystemProvider.class.getName();
    /** What the child reads from its standard input through {@code Files.newInputStream(Path.of("/dev/stdin"))}. */
    static final byte[] STDIN = "standard input, through the provider\n".repeat(3000).getBytes(StandardCharsets.UTF_8);
    static final Set<String> CHANNEL_CLASSES = Set.of("sun.nio.ch.FileChannelImpl",
            "io.github.uring4j.nio.UringFileChannel");

    @TempDir
    Path tmp;

    static Path location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * Runs the program in a new JVM with {@code jvmArgs} (which name the main module with {@code -m}, or else the
     * program runs from the class path) on a directory of its own; returns its output.
     */
    List<String> run(String name, List<String> jvmArgs) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve(name));
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.addAll(jvmArgs);
        if (!jvmArgs.contains("-m")) {
            cmd.add(UnchangedProgram.class.getName());
        }
        cmd.add(dir.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<Void> in = CompletableFuture.runAsync(() -> {
            try (OutputStream stdin = p.getOutputStream()) {
                stdin.write(STDIN);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child still running");
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(0, p.exitValue(), name + ": " + String.join("\n", lines));
        in.get(10, TimeUnit.SECONDS);
        assertTrue(lines.contains("DONE"), name + ": " + lines);
        for (String f : UnchangedProgram.FILES) {
            assertArrayEquals(UnchangedProgram.content(f), Files.readAllBytes(dir.resolve(f)), name + ": " + f);
        }
        return lines;
    }

    /** The line that starts with {@code key}, without it. */
    static String line(List<String> lines, String key) {
        return lines.stream().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError("no " + key + " in " + lines));
    }

    /** The facts the program found: every line after the ones that name the provider and the channel. */
    static List<String> facts(List<String> lines) {
        List<String> keys = List.of("READ", "STRING", "ALLLINES", "LINES", "PARALLEL-LINES", "READER", "INPUT",
                "CHANNEL-READ", "ASYNC-READ", "RANDOMACCESSFILE", "MISMATCH", "LOCK", "DIRECTORY-FORCE", "TOFILE",
                "SECURE", "WALK", "TEMPFILE", "WATCH", "ZIP", "INTERRUPTED", "STDIN");
        return lines.stream().filter(l -> keys.contains(l.split(" ")[0])).toList();
    }

    /**
     * Where io_uring works (it does in this JVM), the child's channels are uring4j's, and its MXBean, read through
     * JMX by name, says they did the work: channels opened, calls made, ring operations (the asynchronous channel's).
     */
    static void ranOnUring(List<String> lines) {
        if (io.github.uring4j.file.IoExecutor.defaultExecutor().backend() != io.github.uring4j.file.Backend.IO_URING) {
            return;
        }
        assertEquals("io.github.uring4j.nio.UringFileChannel", line(lines, "CHANNEL"));
        String d = line(lines, "DROPINS");
        assertTrue(d.startsWith("ioUring=true ") && d.contains(" jdkChannels=0 ") && !d.contains(" uringChannels=0 ")
                && !d.contains(" callerCalls=0 ") && !d.endsWith(" ringOperations=0"), d);
    }

    /**
     * The JDK's {@code jimage} tool extracts a class from a module image (a copy of this JDK's, so that the JVM has
     * not mapped it already) on the provider as on the JDK: the JDK's image reader makes the channel it opens
     * uninterruptible by reflection on the JDK's channel class, and failed with {@code IllegalArgumentException} on
     * uring4j's (found by a hostile probe with {@code jimage info}); an image file gets the JDK's channel.
     */
    @Test
    void theJimageToolReadsAnImageOnTheProvider() throws Exception {
        Path jimage = Path.of(System.getProperty("java.home"), "bin", "jimage");
        Path modules = Path.of(System.getProperty("java.home"), "lib", "modules");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(jimage) && Files.isRegularFile(modules),
                "no jimage tool or module image in this JDK");
        Path image = Files.copy(modules, Files.createDirectory(tmp.resolve("image")).resolve("modules"));
        String core = location(UringFileSystemProvider.class).toString();
        List<byte[]> extracted = new ArrayList<>();
        for (List<String> flags : List.of(List.<String>of(), List.of("-J--enable-native-access=ALL-UNNAMED",
                "-J-Xbootclasspath/a:" + core, "-J" + PROPERTY))) {
            Path out = tmp.resolve("out" + extracted.size());
            List<String> cmd = new ArrayList<>(List.of(jimage.toString()));
            cmd.addAll(flags);
            cmd.addAll(List.of("extract", "--dir", out.toString(), "--include",
                    "regex:/java.base/java/lang/Object.class", image.toString()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            p.getInputStream().transferTo(output);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jimage still running");
            assertEquals(0, p.exitValue(), cmd + ":\n" + output.toString(StandardCharsets.UTF_8));
            extracted.add(Files.readAllBytes(out.resolve("java.base/java/lang/Object.class")));
        }
        assertTrue(extracted.get(0).length > 1000, "Object.class of " + extracted.get(0).length + " bytes");
        assertArrayEquals(extracted.get(0), extracted.get(1));
    }

    @Test
    void anUnchangedProgramGivesTheSameResultsWithTheProviderOnTheClassPathAndOnTheModulePath() throws Exception {
        Path core = location(UringFileSystemProvider.class);
        Path program = location(UnchangedProgram.class);
        List<String> jdk = run("jdk", List.of("-cp", program.toString()));
        assertEquals("sun.nio.fs.LinuxFileSystemProvider", line(jdk, "PROVIDER"));
        List<String> expected = facts(jdk);
        assertEquals(UnchangedProgram.sha(STDIN), line(jdk, "STDIN"));
        assertTrue(expected.contains("TEMPFILE rw------- true"), expected.toString());
        assertTrue(expected.contains("TOFILE true true true 70000"), expected.toString());
        assertTrue(expected.stream().anyMatch(l -> l.startsWith("SECURE true ")), expected.toString());
        assertTrue(expected.stream().anyMatch(l -> l.startsWith("WATCH true true new")), expected.toString());
        assertEquals("ok", line(jdk, "UNIXSOCKET"));

        List<String> classPath = run("classpath", List.of("--enable-native-access=ALL-UNNAMED", PROPERTY,
                "-cp", core + java.io.File.pathSeparator + program));
        assertEquals(UringFileSystemProvider.class.getName(), line(classPath, "PROVIDER"));
        assertEquals("null", line(classPath, "MODULE"), "uring4j in the unnamed module");
        assertTrue(CHANNEL_CLASSES.contains(line(classPath, "CHANNEL")), line(classPath, "CHANNEL"));
        ranOnUring(classPath);
        assertEquals(expected, facts(classPath));
        assertEquals("IllegalArgumentException", line(classPath, "UNIXSOCKET"),
                "the JDK takes Unix domain socket paths only from its own file system");

        List<String> modulePath = run("modulepath", List.of("--enable-native-access=io.github.uring4j.core",
                "-p", core.toString(), "--add-modules", "io.github.uring4j.core", PROPERTY,
                "-cp", program.toString()));
        assertEquals(UringFileSystemProvider.class.getName(), line(modulePath, "PROVIDER"));
        assertEquals("io.github.uring4j.core", line(modulePath, "MODULE"), "uring4j as a named module");
        assertTrue(CHANNEL_CLASSES.contains(line(modulePath, "CHANNEL")), line(modulePath, "CHANNEL"));
        ranOnUring(modulePath);
        assertEquals(expected, facts(modulePath));

        Path app = modularProgram();
        List<String> modular = run("modularapp", List.of("--enable-native-access=io.github.uring4j.core", PROPERTY,
                "--add-modules", "io.github.uring4j.core", "-p", core + java.io.File.pathSeparator + app,
                "-m", "unchanged.app/" + UnchangedProgram.class.getName()));
        assertEquals(UringFileSystemProvider.class.getName(), line(modular, "PROVIDER"));
        assertEquals("io.github.uring4j.core", line(modular, "MODULE"));
        assertEquals(expected, facts(modular));
    }

    /** The program compiled as a module of its own, {@code unchanged.app}, that does not require uring4j. */
    Path modularProgram() throws Exception {
        Path src = tmp.resolve("app-src");
        Path source = Path.of("src/test/java", UnchangedProgram.class.getName().replace('.', '/') + ".java");
        Path copy = src.resolve(Path.of("src/test/java").relativize(source));
        Files.createDirectories(copy.getParent());
        Files.copy(source, copy);
        // java.management: the program reads the drop-ins' MXBean by name, as a monitoring tool would
        Path info = Files.writeString(src.resolve("module-info.java"),
                "module unchanged.app {\n    requires java.management;\n}\n");
        Path out = tmp.resolve("app");
        StringWriter messages = new StringWriter();
        int rc = ToolProvider.findFirst("javac").orElseThrow().run(new PrintWriter(messages),
                new PrintWriter(messages), "-proc:none", "-d", out.toString(), info.toString(), copy.toString());
        assertEquals(0, rc, messages.toString());
        return out;
    }

    /**
     * A program on the provider that ends at once, in JVMs that write a class archive as they exit
     * ({@code -XX:ArchiveClassesAtExit}, the way AppCDS archives are made): every run exits normally and leaves its
     * archive. On JDK 25 a third of such runs crashed (SIGSEGV in {@code LambdaProxyClassDictionary}) while the
     * library's JMX thread was still registering its MXBeans as the archive was written; the library now waits for
     * its start-up threads at exit in such JVMs.
     */
    @Test
    void aProgramEndingAtOnceOnTheProviderWritesAClassArchiveAtExitWithoutCrashing() throws Exception {
        Path core = coreJar();
        Path program = programJar();
        Path data = data();
        for (int i = 0; i < 8; i++) {
            Path archive = tmp.resolve("archive-" + i + ".jsa");
            String text = runFirstFile(List.of("-XX:ArchiveClassesAtExit=" + archive, "-cp",
                    core + java.io.File.pathSeparator + program), data);
            assertTrue(Files.size(archive) > 0, "run " + i + " wrote no archive: " + text);
        }
    }

    /**
     * What the README says to do where a JVM uses a class-data archive: uring4j on the boot class path, in the run
     * that writes the archive and in those that use it. The program runs from the archive on the provider.
     */
    @Test
    void theProviderOnTheBootClassPathRunsFromAClassArchiveItsTrainingRunWrote() throws Exception {
        Path core = coreJar();
        Path program = programJar();
        Path data = data();
        Path archive = tmp.resolve("boot.jsa");
        List<String> boot = List.of("-Xbootclasspath/a:" + core, "-cp", program.toString());
        List<String> training = new ArrayList<>(List.of("-XX:ArchiveClassesAtExit=" + archive));
        training.addAll(boot);
        runFirstFile(training, data);
        assertTrue(Files.size(archive) > 0, "no archive written");
        List<String> using = new ArrayList<>(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:on",
                "-Xlog:class+load=info"));
        using.addAll(boot);
        Files.delete(tmp.resolve("data.copy"));
        String text = runFirstFile(using, data);
        assertTrue(text.contains(UringFileSystemProvider.class.getName() + " source: shared objects file"),
                "the provider came from the archive: " + text.lines()
                        .filter(l -> l.contains(UringFileSystemProvider.class.getName() + " ")).toList());
    }

    /**
     * A runtime image of {@code java.base} alone (made with {@code jlink}), uring4j on its class path: the program
     * runs on the provider, its {@code AsynchronousFileChannel} on the library's executor, and the only word about
     * the missing {@code java.management} and {@code jdk.jfr} modules is one warning that there is no JMX view.
     * (Before, the executor failed with {@code NoClassDefFoundError: javax/management/StandardMBean}; and a large
     * copy from the device, which asks for its thread's CPU time to decide whether to split, with
     * {@code NoClassDefFoundError: java/lang/management/ManagementFactory}.)
     */
    @Test
    void aRuntimeImageOfJavaBaseAloneRunsTheProviderAndTheExecutor() throws Exception {
        Path image = tmp.resolve("java-base-image");
        StringWriter messages = new StringWriter();
        int rc = ToolProvider.findFirst("jlink").orElseThrow().run(new PrintWriter(messages),
                new PrintWriter(messages), "--add-modules", "java.base", "--output", image.toString());
        assertEquals(0, rc, messages.toString());
        Path data = data();
        Path program = location(io.github.uring4j.nio.program.FirstFileThenExit.class);
        String text = runFirstFile(image.resolve("bin/java").toString(),
                List.of("-cp", location(UringFileSystemProvider.class) + java.io.File.pathSeparator + program), data,
                "async", "bigcopy");
        assertTrue(text.contains("ASYNC 100"), text);
        assertTrue(text.contains("BIGCOPY " + (96L << 20) + " -1"), text);
        assertTrue(text.contains("no JMX view of uring4j: this Java runtime has no java.management module"), text);
        assertFalse(text.contains("Exception") || text.contains("Error"), text);
    }

    /** Runs {@code FirstFileThenExit} on the provider with {@code jvmArgs}; checks it and returns its output. */
    String runFirstFile(List<String> jvmArgs, Path data) throws Exception {
        return runFirstFile(ProcessHandle.current().info().command().orElseThrow(), jvmArgs, data);
    }

    String runFirstFile(String java, List<String> jvmArgs, Path data, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", PROPERTY));
        cmd.addAll(jvmArgs);
        cmd.add(io.github.uring4j.nio.program.FirstFileThenExit.class.getName());
        cmd.add(data.toString());
        cmd.addAll(List.of(more));
        Process p = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child still running");
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), jvmArgs + ": " + text);
        assertTrue(text.contains("PROVIDER " + UringFileSystemProvider.class.getName()), text);
        assertArrayEquals(Files.readAllBytes(data), Files.readAllBytes(tmp.resolve("data.copy")));
        return text;
    }

    /** uring4j's classes as a jar: class archives take classes from jars only. */
    Path coreJar() throws Exception {
        return jar("core.jar", location(UringFileSystemProvider.class), ".");
    }

    /** {@code FirstFileThenExit} alone, as a jar. */
    Path programJar() throws Exception {
        return jar("program.jar", location(io.github.uring4j.nio.program.FirstFileThenExit.class),
                io.github.uring4j.nio.program.FirstFileThenExit.class.getName().replace('.', '/') + ".class");
    }

    /** The file {@code FirstFileThenExit} copies. */
    Path data() throws IOException {
        return Files.write(tmp.resolve("data"), UnchangedProgram.content(UnchangedProgram.FILES.get(0)));
    }

    /** A jar of {@code what} (paths relative to {@code dir}) in the test's directory. */
    Path jar(String name, Path dir, String what) {
        Path jar = tmp.resolve(name);
        StringWriter messages = new StringWriter();
        int rc = ToolProvider.findFirst("jar").orElseThrow().run(new PrintWriter(messages), new PrintWriter(messages),
                "--create", "--file", jar.toString(), "-C", dir.toString(), what);
        assertEquals(0, rc, messages.toString());
        return jar;
    }
}
