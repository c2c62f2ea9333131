package io.github.uring4j.modulecheck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.file.Backend;
import io.github.uring4j.file.IoExecutor;
import io.github.uring4j.ring.IoUring;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The library used as a named module, as a module-path application would. */
class ModulePathTest {
    @TempDir
    Path dir;

    @Test
    void theLibraryIsANamedModuleExportingOnlyItsApi() {
        Module core = IoUring.class.getModule();
        assertTrue(core.isNamed(), "uring4j-core is on the module path");
        assertEquals("io.github.uring4j.core", core.getName());
        Set<String> exported = core.getDescriptor().exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        assertEquals(Set.of("io.github.uring4j", "io.github.uring4j.ring", "io.github.uring4j.file",
                "io.github.uring4j.nio"), exported);
        assertTrue(Consumer.class.getModule().isNamed(), "the consumer runs as a module too");
    }

    @Test
    void ringAndAsyncFileWorkFromAModule() throws Exception {
        byte[] data = new byte[5000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        Path p = dir.resolve("data");
        Files.write(p, data);
        assertArrayEquals(java.util.Arrays.copyOf(data, 4096), Consumer.readWithRing(p, 4096));
        assertArrayEquals(java.util.Arrays.copyOf(data, 4096), Consumer.readWithAsyncFile(p, 4096));
        try (IoExecutor io = IoExecutor.builder().build()) {
            assertEquals(io.fallbackReason().isEmpty(), io.backend() == Backend.IO_URING);
        }
    }
}
