package io.github.uring4j.ring;

/** Receives completions from {@link IoUring#reap}; called once per CQE, with nothing allocated. */
@FunctionalInterface
public interface CqeHandler {
    /**
     * @param userData what the SQE carried in {@code user_data}
     * @param res      the result: a count or a descriptor when {@code >= 0}, {@code -errno} otherwise
     * @param flags    {@code IORING_CQE_F_*}
     */
    void handle(long userData, int res, int flags);
}
