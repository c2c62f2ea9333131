package io.github.uring4j.bench.common;

import java.nio.file.OpenOption;

/**
 * The JDK's {@code O_DIRECT} open option, {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}: looked up by name, so
 * that naming an internal JDK class does not warn in every build, and so that a runtime without it says so.
 */
public final class DirectIo {
    private static final OpenOption DIRECT = find();

    private DirectIo() {
    }

    private static OpenOption find() {
        try {
            for (Object o : Class.forName("com.sun.nio.file.ExtendedOpenOption").getEnumConstants()) {
                if (o.toString().equals("DIRECT")) {
                    return (OpenOption) o;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // not in this runtime
        }
        return null;
    }

    /** The JDK's DIRECT open option for {@code FileChannel.open}. */
    public static OpenOption option() {
        if (DIRECT == null) {
            throw new UnsupportedOperationException("this JDK has no com.sun.nio.file.ExtendedOpenOption.DIRECT");
        }
        return DIRECT;
    }
}
