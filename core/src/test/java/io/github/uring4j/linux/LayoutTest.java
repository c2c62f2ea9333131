package io.github.uring4j.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every struct size, every field offset and the ABI constants, checked against the system's kernel headers: the
 * test writes a C program that prints {@code sizeof}/{@code offsetof}/the constant values, compiles it with the
 * system C compiler, and compares with what the Java layouts derive.
 */
class LayoutTest {
    private static final List<StructLayout> STRUCTS = List.of(
            IoUringSqe.LAYOUT, IoUringCqe.LAYOUT, IoUringParams.LAYOUT, IoUringParams.SQ_OFFSETS,
            IoUringParams.CQ_OFFSETS, IoUringProbe.LAYOUT, IoUringProbe.OP_LAYOUT, Statx.LAYOUT, Statx.TIMESTAMP,
            OpenHow.LAYOUT, Iovec.LAYOUT, KernelTimespec.LAYOUT, IoUringRsrc.FILES_UPDATE, IoUringRsrc.RSRC_REGISTER,
            IoUringRsrc.RSRC_UPDATE2, IoUringRsrc.GETEVENTS_ARG);

    /** Enum values the 6.1 header has (later ones cannot be tested against it). */
    private static final int HEADER_LAST_OP = 48;
    private static final int HEADER_LAST_REGISTER = 25;

    private static Map<String, Long> c;

    /** Where the C program is written and compiled; removed after the class's tests. */
    @TempDir
    static Path dir;

    @BeforeAll
    static void compileAndRun() throws Exception {
        StringBuilder src = new StringBuilder("""
                #define _GNU_SOURCE
                #include <stdio.h>
                #include <stddef.h>
                #include <errno.h>
                #include <fcntl.h>
                #include <sys/mman.h>
                #include <sys/uio.h>
                #include <linux/io_uring.h>
                #include <linux/stat.h>
                #include <linux/openat2.h>
                #include <linux/time_types.h>
                int main(void) {
                """);
        for (StructLayout s : STRUCTS) {
            String name = s.name().orElseThrow();
            src.append("  printf(\"sizeof ").append(name).append(" %zu\\n\", sizeof(struct ").append(name).append("));\n");
            for (String member : leaves(s, "").keySet()) {
                src.append("  printf(\"offsetof ").append(name).append('.').append(member).append(" %zu\\n\", offsetof(struct ")
                        .append(name).append(", ").append(member).append("));\n");
            }
        }
        for (Map.Entry<String, Long> e : javaConstants().entrySet()) {
            String n = e.getKey();
            boolean isEnum = n.startsWith("IORING_OP_") || n.startsWith("IORING_REGISTER_") || n.startsWith("IORING_UNREGISTER_");
            if (isEnum) {
                src.append("  printf(\"const ").append(n).append(" %lld\\n\", (long long) ").append(n).append(");\n");
            } else {
                src.append("#ifdef ").append(n).append("\n  printf(\"const ").append(n)
                        .append(" %lld\\n\", (long long) (").append(n).append("));\n#endif\n");
            }
        }
        src.append("  return 0;\n}\n");
        Path cfile = dir.resolve("layout.c");
        Path exe = dir.resolve("layout");
        Files.writeString(cfile, src);
        assumeTrue(run(List.of("sh", "-c", "command -v cc")) != null, "no C compiler: layout check skipped");
        String cc = run(List.of("cc", "-o", exe.toString(), cfile.toString()));
        assertTrue(cc != null, "the generated C program must compile (the compiler's messages are above):\n" + src);
        String out = run(List.of(exe.toString()));
        c = new HashMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 3) {
                c.put(f[0] + " " + f[1], Long.parseLong(f[2]));
            }
        }
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            System.err.println(new String(out, StandardCharsets.UTF_8));
            return null;
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** Named leaves of a layout as C member designators, through anonymous ({@code _}) groups. */
    private static Map<String, Long> leaves(GroupLayout g, String prefix) {
        Map<String, Long> out = new LinkedHashMap<>();
        collect(g, prefix, 0, out);
        return out;
    }

    private static void collect(GroupLayout g, String prefix, long base, Map<String, Long> out) {
        long off = 0;
        for (MemoryLayout m : g.memberLayouts()) {
            long here = base + (g instanceof UnionLayout ? 0 : off);
            String name = m.name().orElse(null);
            if (name != null) {
                if (m instanceof GroupLayout inner) {
                    if (name.startsWith("_")) {
                        collect(inner, prefix, here, out);
                    } else {
                        out.put(prefix + name, here);
                        collect(inner, prefix + name + ".", here, out);
                    }
                } else {
                    out.put(prefix + name, here);
                }
            }
            off += m.byteSize();
        }
    }

    private static Map<String, Long> javaConstants() throws IllegalAccessException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Class<?> k : List.of(Uapi.class, Errno.class)) {
            for (Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (!Modifier.isStatic(mod) || !Modifier.isPublic(mod) || (f.getType() != int.class && f.getType() != long.class)) {
                    continue;
                }
                String n = f.getName();
                if (n.startsWith("SYS_") || n.equals("O_LARGEFILE")) {
                    // glibc defines O_LARGEFILE as 0 on 64-bit; the kernel's value is the one io_uring sees.
                    continue;
                }
                long v = ((Number) f.get(null)).longValue();
                if (n.startsWith("IORING_OP_") && v > HEADER_LAST_OP) {
                    continue;
                }
                if ((n.startsWith("IORING_REGISTER_") || n.startsWith("IORING_UNREGISTER_")) && v > HEADER_LAST_REGISTER) {
                    continue;
                }
                out.put(n, v);
            }
        }
        return out;
    }

    @Test
    void everyStructHasTheHeadersSize() {
        for (StructLayout s : STRUCTS) {
            String name = s.name().orElseThrow();
            assertEquals(c.get("sizeof " + name), s.byteSize(), "sizeof(struct " + name + ")");
        }
    }

    @Test
    void everyFieldHasTheHeadersOffset() {
        int checked = 0;
        for (StructLayout s : STRUCTS) {
            String name = s.name().orElseThrow();
            for (Map.Entry<String, Long> e : leaves(s, "").entrySet()) {
                Long expected = c.get("offsetof " + name + "." + e.getKey());
                assertEquals(expected, e.getValue(), "offsetof(struct " + name + ", " + e.getKey() + ")");
                checked++;
            }
        }
        assertTrue(checked > 100, "checked " + checked + " fields");
    }

    @Test
    void offsetConstantsAgreeWithTheLayouts() {
        assertEquals(c.get("offsetof io_uring_sqe.user_data"), IoUringSqe.USER_DATA);
        assertEquals(c.get("offsetof io_uring_sqe.file_index"), IoUringSqe.FILE_INDEX);
        assertEquals(c.get("offsetof io_uring_params.cq_off.cqes"), IoUringParams.CQ_OFF_CQES);
        assertEquals(c.get("offsetof statx.stx_dio_offset_align"), Statx.DIO_OFFSET_ALIGN);
        assertEquals(c.get("offsetof statx.stx_mtime.tv_nsec"), Statx.MTIME_NSEC);
        assertEquals(c.get("offsetof io_uring_getevents_arg.ts"), IoUringRsrc.GETEVENTS_TS);
    }

    @Test
    void constantsHaveTheHeadersValues() throws IllegalAccessException {
        int checked = 0;
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Long> e : javaConstants().entrySet()) {
            Long v = c.get("const " + e.getKey());
            if (v == null) {
                missing.add(e.getKey());
                continue;
            }
            long expected = v;
            long actual = e.getValue();
            // The header prints unsigned macros such as (~0U) or (1U << 31) as unsigned.
            assertEquals(expected & 0xFFFF_FFFFL, actual & 0xFFFF_FFFFL, e.getKey());
            checked++;
        }
        assertTrue(checked > 150, "checked " + checked + " constants; not in the header: " + missing);
    }
}
