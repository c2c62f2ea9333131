package io.github.uring4j.engine;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The bytes of a path that {@code open(2)} is given, as the JDK's own provider gives them. A file name need not be
 * valid in the platform's encoding ({@code sun.jnu.encoding}, UTF-8 here): the JDK's path keeps the name's bytes as
 * they were listed, and its {@code toString()} shows the invalid ones as U+FFFD. Encoding that string again would
 * name another file: opens failed with {@code NoSuchFileException}, and {@code Files.writeString} created a second
 * file with U+FFFD in its name beside the one it was given. A path whose string holds U+FFFD is read from its URI
 * instead, which the JDK builds from the bytes themselves (each one outside ASCII as a percent escape).
 */
public final class PathBytes {
    /** The encoding the JDK gives paths to the kernel in. */
    public static final Charset JNU = jnu();

    private PathBytes() {
    }

    /** {@code path}'s bytes ({@code text} is its {@code toString()}), without a terminating NUL. */
    public static byte[] of(Path path, String text) {
        if (text.indexOf('\uFFFD') < 0) {
            return text.getBytes(JNU);
        }
        byte[] raw = fromUri(path);
        return raw != null ? raw : text.getBytes(JNU);
    }

    /** {@code path}'s bytes, without a terminating NUL. */
    public static byte[] of(Path path) {
        return of(path, path.toString());
    }

    /**
     * The bytes of the absolute path of {@code path} as its URI spells them (the JDK's {@code UnixPath.toUri}: the
     * name's bytes, those outside ASCII percent-escaped, and a {@code /} added after a directory's name); null when
     * it is not a {@code file} URI. Absolute: the process's working directory never changes under a JVM.
     */
    private static byte[] fromUri(Path path) {
        URI u;
        try {
            u = path.toUri();
        } catch (RuntimeException | java.io.IOError e) {
            return null;
        }
        String raw = u.getRawPath();
        if (!"file".equalsIgnoreCase(u.getScheme()) || raw == null) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()) {
                out.write(Integer.parseInt(raw, i + 1, i + 3, 16));
                i += 2;
            } else {
                out.write(c);
            }
        }
        byte[] b = out.toByteArray();
        // the slash the URI adds after a directory's name is not the path's own
        if (b.length > 1 && b[b.length - 1] == '/' && !path.toString().endsWith("/")) {
            return java.util.Arrays.copyOf(b, b.length - 1);
        }
        return b;
    }

    private static Charset jnu() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }
}
