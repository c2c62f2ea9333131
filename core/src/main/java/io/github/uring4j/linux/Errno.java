package io.github.uring4j.linux;

/** Linux errno values (x86-64 and arm64 share them) and their names for messages. */
public final class Errno {
    private Errno() {
    }

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EXDEV = 18;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ESPIPE = 29;
    public static final int EROFS = 30;
    public static final int EPIPE = 32;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOSYS = 38;
    public static final int ENOTEMPTY = 39;
    public static final int ELOOP = 40;
    public static final int ENODATA = 61;
    public static final int ETIME = 62;
    public static final int EOVERFLOW = 75;
    public static final int EBADFD = 77;
    public static final int EOPNOTSUPP = 95;
    public static final int EDQUOT = 122;
    public static final int ETIMEDOUT = 110;
    public static final int EALREADY = 114;
    public static final int ECANCELED = 125;
    /**
     * The kernel's own "restart the call" (not for user space, but a cancelled io-wq worker's blocking call, such as
     * an open waiting for a FIFO's other end, can end its completion with it): an {@link #EINTR}.
     */
    public static final int ERESTARTSYS = 512;

    private static final String[] NAMES = new String[134];

    static {
        String[] pairs = {
            "1 EPERM", "2 ENOENT", "3 ESRCH", "4 EINTR", "5 EIO", "6 ENXIO", "7 E2BIG", "8 ENOEXEC", "9 EBADF",
            "10 ECHILD", "11 EAGAIN", "12 ENOMEM", "13 EACCES", "14 EFAULT", "15 ENOTBLK", "16 EBUSY", "17 EEXIST",
            "18 EXDEV", "19 ENODEV", "20 ENOTDIR", "21 EISDIR", "22 EINVAL", "23 ENFILE", "24 EMFILE", "25 ENOTTY",
            "26 ETXTBSY", "27 EFBIG", "28 ENOSPC", "29 ESPIPE", "30 EROFS", "31 EMLINK", "32 EPIPE", "33 EDOM",
            "34 ERANGE", "35 EDEADLK", "36 ENAMETOOLONG", "37 ENOLCK", "38 ENOSYS", "39 ENOTEMPTY", "40 ELOOP",
            "61 ENODATA", "62 ETIME", "75 EOVERFLOW", "77 EBADFD", "95 EOPNOTSUPP", "104 ECONNRESET",
            "110 ETIMEDOUT", "114 EALREADY", "115 EINPROGRESS", "122 EDQUOT", "125 ECANCELED", "133 EHWPOISON",
        };
        for (String p : pairs) {
            int sp = p.indexOf(' ');
            NAMES[Integer.parseInt(p.substring(0, sp))] = p.substring(sp + 1);
        }
    }

    /** {@code "EBADF"} for 9 (or -9); {@code "errno 200"} for a value without a name here. */
    public static String name(int errno) {
        long e = Math.abs((long) errno); // Integer.MIN_VALUE has no int of its size
        String n = e < NAMES.length ? NAMES[(int) e] : null;
        return n != null ? n : "errno " + e;
    }
}
