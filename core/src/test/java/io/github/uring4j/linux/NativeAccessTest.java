package io.github.uring4j.linux;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What the library says when a native call cannot be linked. A holder class whose first link ran out of heap or
 * stack cannot be initialised again, and its later uses fail with {@code NoClassDefFoundError}, caused by that error:
 * the message says so, and does not advise the native-access flag (a hostile probe's first use of the drop-ins on a
 * full heap was reported as native access refused, "start Java with --enable-native-access", with the flag given).
 */
class NativeAccessTest {
    @Test
    void aLinkThatRanOutOfMemoryOrStackIsNotCalledARefusal() {
        NoClassDefFoundError heap = new NoClassDefFoundError("Could not initialize class io.github.uring4j.linux.X");
        heap.initCause(new ExceptionInInitializerError(new OutOfMemoryError("Java heap space")));
        String said = NativeAccess.explain(heap);
        assertTrue(said.contains("ran out of memory") && said.contains("Java heap space"), said);
        assertFalse(said.contains("--enable-native-access"), said);
        String stack = NativeAccess.explain(new StackOverflowError());
        assertTrue(stack.contains("ran out of stack"), stack);
        assertFalse(stack.contains("--enable-native-access"), stack);
    }

    @Test
    void aRefusalNamesTheFlag() {
        String said = NativeAccess.explain(new IllegalCallerException("Illegal native access from an unnamed module"));
        assertTrue(said.contains("--enable-native-access=ALL-UNNAMED"), said);
    }
}
