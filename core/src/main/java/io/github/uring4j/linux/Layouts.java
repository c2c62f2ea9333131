package io.github.uring4j.linux;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * Offsets into kernel structs, derived from their {@link MemoryLayout}s rather than written down by hand.
 * <p>
 * Convention for the struct classes of this package: a group whose name starts with {@code _} stands for an
 * anonymous C union or struct, so a leaf is found by its C member name alone, as {@code offsetof} finds it.
 */
public final class Layouts {
    private Layouts() {
    }

    /** Byte offset of the member called {@code name}, looked up through anonymous groups and named nested structs ({@code "sq_off.head"}). */
    public static long offsetOf(GroupLayout layout, String name) {
        int dot = name.indexOf('.');
        if (dot >= 0) {
            String outer = name.substring(0, dot);
            long base = offsetOf(layout, outer);
            MemoryLayout nested = find(layout, outer);
            if (!(nested instanceof GroupLayout g)) {
                throw new IllegalArgumentException(outer + " is not a struct in " + layout);
            }
            return base + offsetOf(g, name.substring(dot + 1));
        }
        long off = search(layout, name, 0);
        if (off < 0) {
            throw new IllegalArgumentException("no member " + name + " in " + layout.name().orElse(layout.toString()));
        }
        return off;
    }

    private static MemoryLayout find(GroupLayout layout, String name) {
        for (MemoryLayout m : layout.memberLayouts()) {
            if (m.name().filter(name::equals).isPresent()) {
                return m;
            }
            if (m instanceof GroupLayout g && m.name().filter(n -> n.startsWith("_")).isPresent()) {
                MemoryLayout inner = find(g, name);
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }

    private static long search(GroupLayout layout, String name, long base) {
        long off = 0;
        boolean union = layout instanceof java.lang.foreign.UnionLayout;
        for (MemoryLayout m : layout.memberLayouts()) {
            long here = base + (union ? 0 : off);
            if (m.name().filter(name::equals).isPresent()) {
                return here;
            }
            if (m instanceof GroupLayout g && m.name().filter(n -> n.startsWith("_")).isPresent()) {
                long inner = search(g, name, here);
                if (inner >= 0) {
                    return inner;
                }
            }
            off += m.byteSize();
        }
        return -1;
    }
}
