package io.github.uring4j.file;

import java.nio.file.OpenOption;

/** Options of the JDK that the library's module cannot name (they live in {@code jdk.unsupported}). */
public final class JdkOptions {
    private JdkOptions() {
    }

    /** {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, looked up by name. */
    public static final OpenOption DIRECT = direct();

    private static OpenOption direct() {
        try {
            for (Object o : Class.forName("com.sun.nio.file.ExtendedOpenOption").getEnumConstants()) {
                if (((Enum<?>) o).name().equals("DIRECT")) {
                    return (OpenOption) o;
                }
            }
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
        throw new ExceptionInInitializerError("no ExtendedOpenOption.DIRECT in this JDK");
    }
}
