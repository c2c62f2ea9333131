package io.github.uring4j.ring;

/** Which opcodes the running kernel supports, from {@code IORING_REGISTER_PROBE}; never from the version string. */
public final class Probe {
    private final int lastOp;
    private final boolean[] supported;
    private final boolean known;

    Probe(int lastOp, boolean[] supported, boolean known) {
        this.lastOp = lastOp;
        this.supported = supported;
        this.known = known;
    }

    /** The highest opcode the kernel knows. */
    public int lastOp() {
        return lastOp;
    }

    /** False when the kernel could not be probed (before 5.6), in which case {@link #supports} answers true. */
    public boolean known() {
        return known;
    }

    public boolean supports(int opcode) {
        if (!known) {
            return true;
        }
        return opcode >= 0 && opcode < supported.length && supported[opcode];
    }

    boolean[] table() {
        return supported;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Probe[lastOp=").append(lastOp).append(", supported=");
        for (int i = 0; i < supported.length; i++) {
            if (supported[i]) {
                sb.append(Opcode.name(i).substring("IORING_OP_".length())).append(' ');
            }
        }
        return sb.append(']').toString();
    }
}
