package io.github.uring4j.bench.loadtypes;

/** The four load types of the NIO article. */
public enum Load {
    SEQ_READ("seq-read", false, false),
    APPEND_WRITE("append-write", true, false),
    RANDOM_READ("random-read", false, true),
    RANDOM_WRITE("random-write", true, true);

    public final String label;
    public final boolean write;
    public final boolean random;

    Load(String label, boolean write, boolean random) {
        this.label = label;
        this.write = write;
        this.random = random;
    }

    public static Load of(String label) {
        for (Load l : values()) {
            if (l.label.equals(label)) {
                return l;
            }
        }
        return null;
    }
}
