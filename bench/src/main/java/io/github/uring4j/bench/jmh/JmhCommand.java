package io.github.uring4j.bench.jmh;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** {@code jmh}: hands its arguments to JMH's own command line ({@code -l} lists, {@code -h} explains). */
@Command(name = "jmh", versionProvider = io.github.uring4j.bench.Version.class,
        description = "Run the JMH benchmarks; arguments go to JMH unchanged (e.g. jmh -l, "
        + "jmh JUringRead -p bufferSize=4096 -t 2 -rf json -rff out.json; jmh -h for JMH's options).")
public final class JmhCommand implements Callable<Integer> {

    /** Everything after {@code jmh}, in order (Main makes the parser stop at the first argument). */
    @Unmatched
    List<String> args = new java.util.ArrayList<>();

    @picocli.CommandLine.Option(names = "--help", usageHelp = true, description = "Show this help message and exit"
            + " (JMH's own options: jmh -h).")
    boolean help;

    @Override
    public Integer call() throws Exception {
        // JMH's Main calls System.exit itself; its exit status is the command's.
        org.openjdk.jmh.Main.main(args.toArray(new String[0]));
        return 0;
    }
}
