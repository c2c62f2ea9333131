package io.github.uring4j.engine.uring;

import io.github.uring4j.engine.Request;
import java.lang.foreign.Arena;
import java.util.Arrays;

/**
 * The slots of one loop. It grows when every slot is taken: the in-flight limit applies per file, so one file
 * whose requests never complete (a FIFO nobody writes) cannot hold back another file, nor its own close.
 * Loop thread only.
 */
final class SlotTable {
    private final Arena arena;
    private Slot[] slots;
    private int[] free;
    private int freeTop;
    private int used;

    SlotTable(Arena arena, int initial) {
        this.arena = arena;
        this.slots = new Slot[0];
        this.free = new int[0];
        grow(Math.max(16, initial));
    }

    private void grow(int to) {
        int from = slots.length;
        slots = Arrays.copyOf(slots, to);
        free = Arrays.copyOf(free, to);
        for (int i = to - 1; i >= from; i--) {
            slots[i] = new Slot(i, arena);
            free[freeTop++] = i;
        }
    }

    Slot take(Request r) {
        if (freeTop == 0) {
            grow(slots.length * 2);
        }
        Slot s = slots[free[--freeTop]];
        s.request = r;
        used++;
        return s;
    }

    void give(Slot s) {
        s.clear();
        free[freeTop++] = s.index;
        used--;
    }

    Slot get(int index) {
        return index >= 0 && index < slots.length ? slots[index] : null;
    }

    int capacity() {
        return slots.length;
    }

    int used() {
        return used;
    }
}
