package io.github.uring4j.bench.read;

/** Settings of one {@code read} run; {@code verify} false only for like-for-like runs beside fio, which checks nothing. */
public record ReadConfig(int threads, int depth, boolean direct, long seed, boolean verify) {

    public ReadConfig(int threads, int depth, boolean direct, long seed) {
        this(threads, depth, direct, seed, true);
    }
}
