package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The release of an executor dropped without {@code close()}, made by a thread that builds another, does not wait
 * for a loop (or worker) that a completion handler holds: it returns with the handler still held and says nothing,
 * where a close waits 2 s for it and warns (a probe's builds took 2 s each behind dropped executors whose handlers
 * waited for a lock the builder held); the executor's threads end once the handler returns.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReleaseWithoutWaitingTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"IO_URING", "THREADS"})
    void aReleaseWithoutWaitingLeavesAHeldExecutorToEndOnItsOwn(Backend backend) throws Exception {
        Path p = Files.write(dir.resolve("f"), new byte[4096]);
        IoExecutor io = IoExecutor.builder().backend(backend).loops(1).threads(1).build();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch hold = new CountDownLatch(1);
        Thread[] handlerThread = new Thread[1];
        AsyncFile f = get(AsyncFile.open(io, p, StandardOpenOption.READ));
        f.read(ByteBuffer.allocateDirect(4096), 0, null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void a) {
                handlerThread[0] = Thread.currentThread();
                entered.countDown();
                try {
                    hold.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void failed(Throwable t, Void a) {
                entered.countDown();
            }
        });
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        String said;
        try (LibraryLog log = new LibraryLog()) {
            io.backend.shutdownWithoutWaiting();
            assertEquals(1, hold.getCount(), "returned with the handler still held");
            said = log.text();
        } finally {
            hold.countDown();
        }
        assertEquals("", said, "a release without waiting says nothing");
        handlerThread[0].join(10_000);
        assertTrue(!handlerThread[0].isAlive(), "the executor's thread ended once its handler returned");
    }

    /**
     * What the library logs meanwhile, through the JDK's logging (reflection: the module does not read
     * {@code java.logging}, and the tests run on the class path).
     */
    private static final class LibraryLog implements AutoCloseable {
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        private final Class<?> loggerClass;
        private final Class<?> handlerClass;
        private final Object logger;
        private final Object handler;
        private final Object level;
        private final boolean parents;

        LibraryLog() throws ReflectiveOperationException {
            loggerClass = Class.forName("java.util.logging.Logger");
            handlerClass = Class.forName("java.util.logging.Handler");
            logger = loggerClass.getMethod("getLogger", String.class).invoke(null, "io.github.uring4j");
            Class<?> formatter = Class.forName("java.util.logging.Formatter");
            handler = Class.forName("java.util.logging.StreamHandler")
                    .getConstructor(java.io.OutputStream.class, formatter)
                    .newInstance(out, Class.forName("java.util.logging.SimpleFormatter").getConstructor().newInstance());
            loggerClass.getMethod("addHandler", handlerClass).invoke(logger, handler);
            // the test JVM's logging configuration turns the library's logger off (its warnings would bury the
            // results): on for the capture, and not passed on to the console
            Class<?> levelClass = Class.forName("java.util.logging.Level");
            level = loggerClass.getMethod("getLevel").invoke(logger);
            parents = (Boolean) loggerClass.getMethod("getUseParentHandlers").invoke(logger);
            loggerClass.getMethod("setLevel", levelClass).invoke(logger, levelClass.getField("ALL").get(null));
            loggerClass.getMethod("setUseParentHandlers", boolean.class).invoke(logger, false);
        }

        String text() throws ReflectiveOperationException {
            handlerClass.getMethod("flush").invoke(handler);
            return out.toString(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws ReflectiveOperationException {
            loggerClass.getMethod("removeHandler", handlerClass).invoke(logger, handler);
            loggerClass.getMethod("setLevel", Class.forName("java.util.logging.Level")).invoke(logger, level);
            loggerClass.getMethod("setUseParentHandlers", boolean.class).invoke(logger, parents);
        }
    }
}
