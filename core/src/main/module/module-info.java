/**
 * uring4j: io_uring file I/O for Java on the Foreign Function &amp; Memory API.
 * <p>
 * {@code io.github.uring4j.ring} is the expert API (rings, typed operation encoders, registration);
 * {@code io.github.uring4j.file} the asynchronous file API (event loops, {@code AsyncFile}, buffer pools).
 * The kernel ABI ({@code io.github.uring4j.linux}) stays internal.
 */
module io.github.uring4j.core {
    requires jdk.jfr;
    requires java.management;

    exports io.github.uring4j;
    exports io.github.uring4j.ring;
    exports io.github.uring4j.file;
    exports io.github.uring4j.nio;
}
