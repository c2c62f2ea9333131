package io.github.uring4j.bench;

/** Entry point of {@code uring4j-bench}: dispatches to the subcommands. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("uring4j-bench");
    }
}
