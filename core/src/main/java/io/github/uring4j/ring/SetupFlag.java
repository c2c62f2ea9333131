package io.github.uring4j.ring;

import io.github.uring4j.linux.Uapi;

/**
 * {@code IORING_SETUP_*}: bits for {@link IoUring.Options#flags(int)}. They reach the kernel exactly as given; bits
 * not named here are refused there.
 */
public final class SetupFlag {
    private SetupFlag() {
    }

    public static final int IOPOLL = Uapi.IORING_SETUP_IOPOLL;
    public static final int SQPOLL = Uapi.IORING_SETUP_SQPOLL;
    public static final int SQ_AFF = Uapi.IORING_SETUP_SQ_AFF;
    public static final int CQSIZE = Uapi.IORING_SETUP_CQSIZE;
    public static final int CLAMP = Uapi.IORING_SETUP_CLAMP;
    public static final int ATTACH_WQ = Uapi.IORING_SETUP_ATTACH_WQ;
    public static final int R_DISABLED = Uapi.IORING_SETUP_R_DISABLED;
    public static final int SUBMIT_ALL = Uapi.IORING_SETUP_SUBMIT_ALL;
    public static final int COOP_TASKRUN = Uapi.IORING_SETUP_COOP_TASKRUN;
    public static final int TASKRUN_FLAG = Uapi.IORING_SETUP_TASKRUN_FLAG;
    public static final int SQE128 = Uapi.IORING_SETUP_SQE128;
    public static final int CQE32 = Uapi.IORING_SETUP_CQE32;
    public static final int SINGLE_ISSUER = Uapi.IORING_SETUP_SINGLE_ISSUER;
    public static final int DEFER_TASKRUN = Uapi.IORING_SETUP_DEFER_TASKRUN;
    public static final int NO_SQARRAY = Uapi.IORING_SETUP_NO_SQARRAY;
}
