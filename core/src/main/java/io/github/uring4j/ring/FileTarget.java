package io.github.uring4j.ring;

/**
 * The file an operation works on: a plain file descriptor, or a slot in the ring's registered file table. The
 * encoders set {@code IOSQE_FIXED_FILE} from this type, so a slot number can never be taken for a descriptor.
 * Keep one per file: passing it to an encoder allocates nothing.
 */
public sealed interface FileTarget permits FileTarget.Fd, FileTarget.Fixed {

    /** The number that goes into {@code sqe->fd}. */
    int value();

    /** A plain file descriptor. */
    static Fd fd(int fd) {
        return new Fd(fd);
    }

    /** Slot {@code index} of the table registered with {@link IoUring#registerFiles} or {@link IoUring#registerFilesSparse}. */
    static Fixed fixed(int index) {
        return new Fixed(index);
    }

    /** A plain file descriptor. */
    record Fd(int value) implements FileTarget {
        public Fd {
            if (value < 0) {
                throw new IllegalArgumentException("negative file descriptor: " + value);
            }
        }
    }

    /** A registered file slot. */
    record Fixed(int value) implements FileTarget {
        public Fixed {
            if (value < 0) {
                throw new IllegalArgumentException("negative registered-file slot: " + value);
            }
        }
    }
}
