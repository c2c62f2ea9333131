package io.github.uring4j.bench.common;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What one command run measured, as JSON: the environment and the rows. {@code report --collect} reads these. */
public final class ResultFile {
    public String command;
    public Environment environment;
    public List<Result> results = new ArrayList<>();

    private static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create();

    public ResultFile() {
    }

    public ResultFile(String command, Environment environment, List<Result> results) {
        this.command = command;
        this.environment = environment;
        this.results = results;
    }

    /**
     * Ends a command's run: captures the environment, prints it as the last line ({@code # ...}) and, when
     * {@code json} is given, writes the rows there.
     */
    public static void conclude(String command, Path dataDir, String pageCacheState, List<Result> rows, Path json)
            throws IOException {
        Environment env = Environment.capture(dataDir, pageCacheState);
        System.out.println("# " + env.oneLine());
        if (json != null) {
            new ResultFile(command, env, rows).write(json);
        }
    }

    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (Writer w = Files.newBufferedWriter(file)) {
            GSON.toJson(this, w);
        }
    }

    public static ResultFile read(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file)) {
            return GSON.fromJson(r, ResultFile.class);
        }
    }
}
