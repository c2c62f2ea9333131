package io.github.uring4j.file;

/** A bounded stack of idle {@link Op}s; callers take, backends give back after the completion. */
final class OpPool {
    private final Op[] idle;
    private int size;
    private Engine engine;

    OpPool(int capacity) {
        this.idle = new Op[capacity];
    }

    void engine(Engine engine) {
        this.engine = engine;
    }

    Op acquire() {
        synchronized (this) {
            if (size > 0) {
                Op op = idle[--size];
                idle[size] = null;
                return op;
            }
        }
        return new Op(this, engine);
    }

    void release(Op op) {
        synchronized (this) {
            if (size < idle.length) {
                idle[size++] = op;
            }
        }
    }
}
