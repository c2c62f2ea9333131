package io.github.uring4j.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * How to open a file: the {@code open(2)} flags and what the engine must know beside them.
 *
 * <p>The path goes to the kernel as a NUL-terminated string: an io_uring loop copies {@link #cString()} into memory
 * of the slot that opens it (the kernel reads it while the entry is submitted); {@link #cPath()} is the same string
 * in memory of its own, made on first use, for the calls that need it longer (the threads backend's {@code open},
 * the {@code unlink} of {@code DELETE_ON_CLOSE}). An automatic arena per open was a tenth of the loop's time when
 * it opened many small files.
 */
public final class OpenSpec {
    private final String path;
    private final byte[] cString;
    private final int flags;
    private final boolean readable;
    private final boolean writable;
    private final boolean direct;
    private final boolean registered;
    private final boolean deleteOnClose;
    private volatile MemorySegment cPath;

    /**
     * True for the JDK's {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, recognised without a dependency on
     * {@code jdk.unsupported}.
     */
    public static boolean isJdkDirect(OpenOption o) {
        return o instanceof Enum<?> e && e.name().equals("DIRECT")
                && e.getDeclaringClass().getName().equals("com.sun.nio.file.ExtendedOpenOption");
    }

    private OpenSpec(String path, byte[] bytes, int flags, boolean readable, boolean writable, boolean direct,
            boolean registered, boolean deleteOnClose) {
        this.path = path;
        this.cString = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        this.flags = flags;
        this.readable = readable;
        this.writable = writable;
        this.direct = direct;
        this.registered = registered;
        this.deleteOnClose = deleteOnClose;
    }

    /**
     * @param path          absolute path
     * @param flags         {@code O_*} flags, {@code O_CLOEXEC} included
     * @param readable      reads are allowed (the access mode)
     * @param writable      writes are allowed
     * @param direct        {@code O_DIRECT}: transfers must be aligned
     * @param registered    also place the file in the ring's registered-file table (io_uring only)
     * @param deleteOnClose unlink the path when the file is closed
     */
    public static OpenSpec of(String path, int flags, boolean readable, boolean writable, boolean direct,
            boolean registered, boolean deleteOnClose) {
        return new OpenSpec(path, path.getBytes(PathBytes.JNU), flags, readable, writable, direct, registered,
                deleteOnClose);
    }

    /**
     * As {@link #of(String, int, boolean, boolean, boolean, boolean, boolean)}, for {@code path} (absolute) whose
     * name's bytes {@link PathBytes} reads: a name that is not valid in the platform's encoding opens the file the
     * JDK would open.
     */
    public static OpenSpec of(Path path, int flags, boolean readable, boolean writable, boolean direct,
            boolean registered, boolean deleteOnClose) {
        String text = path.toString();
        return new OpenSpec(text, PathBytes.of(path, text), flags, readable, writable, direct, registered,
                deleteOnClose);
    }

    public String path() {
        return path;
    }

    /** The path's bytes ({@link PathBytes}) and a terminating NUL. Do not modify. */
    public byte[] cString() {
        return cString;
    }

    /** The path as a NUL-terminated string in memory the library keeps alive as long as this spec. */
    public MemorySegment cPath() {
        MemorySegment p = cPath;
        if (p == null) {
            p = Arena.ofAuto().allocate(cString.length);
            MemorySegment.copy(cString, 0, p, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, cString.length);
            cPath = p;
        }
        return p;
    }

    public int flags() {
        return flags;
    }

    public boolean readable() {
        return readable;
    }

    public boolean writable() {
        return writable;
    }

    public boolean direct() {
        return direct;
    }

    public boolean registered() {
        return registered;
    }

    public boolean deleteOnClose() {
        return deleteOnClose;
    }

    @Override
    public String toString() {
        return "OpenSpec[" + path + ", flags 0x" + Integer.toHexString(flags) + "]";
    }
}
