package io.github.uring4j.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.uring4j.ErrnoException;
import io.github.uring4j.file.FileIOException;
import org.junit.jupiter.api.Test;

/**
 * Errno names for every int: a value without a name says its number, a negative one is the same errno, and
 * {@code Integer.MIN_VALUE} (which has no positive int) gave {@code ArrayIndexOutOfBoundsException} from the name and
 * from every exception's constructor (found by a hostile probe); an exception refuses it as no errno.
 */
class ErrnoTest {
    @Test
    void everyIntHasAName() {
        assertEquals("EBADF", Errno.name(9));
        assertEquals("EBADF", Errno.name(-9));
        assertEquals("errno 4000", Errno.name(-4000));
        assertEquals("errno 2147483647", Errno.name(Integer.MAX_VALUE));
        assertEquals("errno 2147483648", Errno.name(Integer.MIN_VALUE));
        assertEquals("EBADF during READ", new ErrnoException("READ", -9).getMessage());
        assertEquals(9, new ErrnoException("READ", -9).errno());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ErrnoException("READ", Integer.MIN_VALUE));
        assertEquals("no errno is -2147483648", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new FileIOException(Integer.MIN_VALUE, "READ", "/f", 0, null));
    }
}
