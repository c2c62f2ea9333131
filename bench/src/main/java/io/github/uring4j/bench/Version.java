package io.github.uring4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the build's version, the JDK and the kernel it runs on. */
public final class Version implements IVersionProvider {

    /** The version this jar was built as ({@code version.properties}, filled in by the build). */
    public static String number() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "uring4j-bench " + number(),
            "JDK " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                    + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                    + System.getProperty("os.arch"),
        };
    }
}
