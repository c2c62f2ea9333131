package io.github.uring4j.bench.loadtypes;

/**
 * A way to run a load type; returns the nanoseconds the operations took (set-up excluded). One instance serves one
 * spec's passes and is closed after them, so what a program would set up once (an executor) is set up once.
 */
public interface LoadStrategy extends AutoCloseable {

    String name();

    /** Why it cannot run this spec, or null. */
    default String unsupported(LoadSpec spec) {
        return null;
    }

    long run(LoadSpec spec) throws Exception;

    /**
     * Whether this strategy's turns alternate with the others' (true), or run after all of theirs (false: for a
     * strategy that leaves the machine in a state that would slow the one after it).
     */
    default boolean takesTurns() {
        return true;
    }

    /** What the strategy has to say about its passes so far, as row parameters (none by default). */
    default java.util.Map<String, Object> notes() {
        return java.util.Map.of();
    }

    /** Releases what the passes shared. */
    @Override
    default void close() {
    }

    /** Thrown when a read returns other bytes than the file should hold. */
    final class VerificationError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public VerificationError(String strategy, LoadSpec spec, long offset) {
            super(strategy + " " + spec.load().label + ": wrong data in " + spec.file().getFileName() + " at byte " + offset);
        }
    }
}
