package io.github.uring4j.engine;

import io.github.uring4j.linux.LeanCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native memory of the C heap that the GC frees once its segment is unreachable. An arena's memory is reserved
 * against {@code -XX:MaxDirectMemorySize} (it shows as the "direct" buffer pool): the drop-ins' per-thread staging
 * memory, taken from arenas, left 0.37 MB reserved after a thread's first heap-buffer I/O, and a program run with a
 * 1 MiB limit could then not allocate a 1 MB direct buffer, where the JDK's channel leaves nothing reserved (found by
 * a hostile probe).
 */
public final class CHeapMemory {
    /** False once the C heap could not be asked (no native access): arenas then. */
    private static volatile boolean usable = true;

    private CHeapMemory() {
    }

    /**
     * {@code size} bytes aligned to {@code alignment} (a power of two), not cleared; from an automatic arena where the
     * C heap cannot be asked.
     */
    public static MemorySegment allocate(long size, long alignment) {
        if (usable) {
            long rounded = (size + alignment - 1) & -alignment; // aligned_alloc wants a multiple of the alignment
            try {
                long address = LeanCalls.alignedAlloc(alignment, rounded);
                if (address == 0) {
                    throw new OutOfMemoryError("no native memory for " + size + " bytes of the C heap");
                }
                try {
                    return MemorySegment.ofAddress(address).reinterpret(size, Arena.ofAuto(),
                            unused -> LeanCalls.free(address));
                } catch (RuntimeException | Error e) {
                    LeanCalls.free(address);
                    throw e;
                }
            } catch (IllegalStateException | LinkageError e) {
                usable = false;
            }
        }
        return Arena.ofAuto().allocate(size, alignment);
    }
}
