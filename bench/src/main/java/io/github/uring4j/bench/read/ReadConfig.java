package io.github.uring4j.bench.read;

/** Settings of one {@code read} run. */
public record ReadConfig(int threads, int depth, boolean direct, long seed) {
}
