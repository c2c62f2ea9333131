package io.github.uring4j.bench;

import io.github.uring4j.bench.data.GenerateCommand;
import io.github.uring4j.bench.fio.FioCommand;
import io.github.uring4j.bench.iops.IopsCommand;
import io.github.uring4j.bench.jmh.JmhCommand;
import io.github.uring4j.bench.loadtypes.LoadTypesCommand;
import io.github.uring4j.bench.read.ReadCommand;
import io.github.uring4j.bench.report.ReportCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code uring4j-bench}: the benchmark tools, one subcommand each. */
@Command(name = "uring4j-bench", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "io_uring and JDK file I/O benchmarks",
        subcommands = {IopsCommand.class, GenerateCommand.class, ReadCommand.class, LoadTypesCommand.class,
            io.github.uring4j.bench.files.FilesCommand.class, io.github.uring4j.bench.lucene.LuceneCommand.class,
            io.github.uring4j.bench.carriers.CarriersCommand.class, io.github.uring4j.bench.mixed.MixedCommand.class,
            io.github.uring4j.bench.startup.StartupCommand.class, io.github.uring4j.bench.everyday.EverydayCommand.class,
            FioCommand.class, ReportCommand.class, JmhCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line; bad arguments print one line and give exit status 2, never a stack trace. */
    public static int run(String... args) {
        CommandLine cl = new CommandLine(new Main());
        // jmh passes every argument through to JMH, options and names alike, in their order.
        CommandLine jmh = cl.getSubcommands().get("jmh");
        jmh.setStopAtPositional(true);
        jmh.setStopAtUnmatched(true);
        jmh.setUnmatchedArgumentsAllowed(true);
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("uring4j-bench: " + ex.getMessage());
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            if (ex instanceof UsageError u) {
                cmd.getErr().println("uring4j-bench " + cmd.getCommandName() + ": " + u.getMessage());
                return 2;
            }
            String msg = ex instanceof java.nio.file.FileSystemException f ? describe(f)
                    : ex.getMessage() == null ? ex.toString() : ex.getMessage();
            cmd.getErr().println("uring4j-bench " + cmd.getCommandName() + ": " + msg);
            return 1;
        });
        return cl.execute(args);
    }

    /**
     * A file system error in words: the JDK's message of a {@code NoSuchFileException} is the bare path, which said
     * nothing on its own ("uring4j-bench startup: /proc/nope").
     */
    static String describe(java.nio.file.FileSystemException f) {
        if (f.getReason() != null) {
            return f.getMessage();
        }
        String what = f instanceof java.nio.file.NoSuchFileException ? "no such file or directory"
                : f instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : f instanceof java.nio.file.FileAlreadyExistsException ? "it exists already"
                : f instanceof java.nio.file.NotDirectoryException ? "not a directory"
                : f instanceof java.nio.file.DirectoryNotEmptyException ? "directory not empty"
                : f.getClass().getSimpleName();
        return f.getMessage() + ": " + what;
    }
}
