package io.github.uring4j.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LogTest {
    /**
     * A logger that throws (as the JDK's formatter did when the first date it formatted needed the time-zone file and
     * the process had no descriptor left): the library's message returns quietly, so the call that made it (a drop-in
     * channel's {@code close()}) does not fail with it (found by a hostile probe).
     */
    @Test
    void aLoggerThatThrowsFailsNoCallOfTheLibrarys() {
        AtomicInteger asked = new AtomicInteger();
        System.Logger throwing = new System.Logger() {
            @Override
            public String getName() {
                return "throwing";
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
                asked.incrementAndGet();
                throw new ExceptionInInitializerError("the formatter's time zone could not be read");
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String format, Object... params) {
                asked.incrementAndGet();
                throw new ExceptionInInitializerError("the formatter's time zone could not be read");
            }
        };
        Log.say(throwing, System.Logger.Level.WARNING, "a message no logger can take", null);
        Log.say(throwing, System.Logger.Level.ERROR, "and one with its cause", new IllegalStateException("why"));
        assertEquals(2, asked.get(), "each message reached the logger");
    }
}
