package io.github.uring4j.ring;

/** Every SQE of the ring is taken; submit (and reap) before preparing more. */
public final class SubmissionQueueFullException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public SubmissionQueueFullException(int entries) {
        super("submission queue full: all " + entries + " SQEs are prepared and not yet submitted");
    }
}
