package io.github.uring4j.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java block of the README compiles and runs as it is written there: its imports become the class's imports,
 * the rest the body of a method that is then called.
 */
class ReadmeExamplesTest {
    @TempDir
    Path dir;

    /** The README's {@code ```java} blocks, in order. */
    static List<String> javaBlocks() throws Exception {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : Files.readAllLines(Path.of("..", "README.md"))) {
            if (current == null && line.strip().equals("```java")) {
                current = new StringBuilder();
            } else if (current != null && line.strip().equals("```")) {
                blocks.add(current.toString());
                current = null;
            } else if (current != null) {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockCompilesAndRuns() throws Exception {
        List<String> blocks = javaBlocks();
        assertTrue(blocks.size() >= 2, "the README shows the ring and the async API: " + blocks.size() + " blocks");
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            int n = i;
            String block = blocks.get(i);
            tests.add(DynamicTest.dynamicTest("README java block " + (n + 1), () -> compileAndRun(n, block)));
        }
        return tests.stream();
    }

    private void compileAndRun(int n, String block) throws Throwable {
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        for (String line : block.split("\n", -1)) {
            (line.startsWith("import ") ? imports : body).append(line).append('\n');
        }
        String name = "ReadmeExample" + (n + 1);
        String source = imports + "\npublic class " + name + " {\n    public static void run() throws Throwable {\n"
                + body + "    }\n}\n";
        Path src = Files.writeString(dir.resolve(name + ".java"), source);
        Path out = Files.createDirectories(dir.resolve("classes" + n));
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        StringWriter messages = new StringWriter();
        int rc = javac.run(new PrintWriter(messages), new PrintWriter(messages), "-proc:none", "-Xlint:none",
                "-cp", System.getProperty("java.class.path"), "-d", out.toString(), src.toString());
        assertEquals(0, rc, "README java block " + (n + 1) + " does not compile:\n" + messages + "\n" + source);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Set<String> tempBefore = tempEntries();
        PrintStream old = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            loader.loadClass(name).getMethod("run").invoke(null);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            System.setOut(old);
        }
        String said = printed.toString(StandardCharsets.UTF_8);
        old.print(said);
        assertFalse(said.isBlank(), "README java block " + (n + 1) + " ran and printed nothing");
        Set<String> left = tempEntries();
        left.removeAll(tempBefore);
        assertEquals(Set.of(), left, "README java block " + (n + 1) + " left files in " + TMP
                + " (a reader who copies it would too)");
    }

    private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));

    /** The names in the temporary directory that the README's examples could have made there. */
    private static Set<String> tempEntries() throws java.io.IOException {
        try (Stream<Path> s = Files.list(TMP)) {
            return s.map(p -> p.getFileName().toString()).filter(f -> f.startsWith("uring4j"))
                    .collect(Collectors.toCollection(HashSet::new));
        }
    }
}
