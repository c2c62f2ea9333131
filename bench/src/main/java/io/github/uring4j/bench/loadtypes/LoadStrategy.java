package io.github.uring4j.bench.loadtypes;

/** A way to run a load type; returns the nanoseconds the operations took (set-up excluded). */
public interface LoadStrategy {

    String name();

    /** Why it cannot run this spec, or null. */
    default String unsupported(LoadSpec spec) {
        return null;
    }

    long run(LoadSpec spec) throws Exception;

    /** Thrown when a read returns other bytes than the file should hold. */
    final class VerificationError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public VerificationError(String strategy, LoadSpec spec, long offset) {
            super(strategy + " " + spec.load().label + ": wrong data in " + spec.file().getFileName() + " at byte " + offset);
        }
    }
}
