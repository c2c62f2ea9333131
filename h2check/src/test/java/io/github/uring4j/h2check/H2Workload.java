package io.github.uring4j.h2check;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

/**
 * The H2 database, unchanged, through each of its file systems, run in a child JVM by {@code H2OnProviderTest} (on
 * the built-in provider in one, on {@code UringFileSystemProvider} in another):
 * <ul>
 *   <li>{@code file:} ({@code FilePathDisk}: {@code FileChannel.open}, {@code Files.move}, {@code newOutputStream},
 *       temporary files, directory listings);</li>
 *   <li>{@code nioMapped:} (reads through {@code FileChannel.map});</li>
 *   <li>{@code async:} ({@code AsynchronousFileChannel}, futures);</li>
 *   <li>{@code split:20:} (the database in 1 MiB files, many channels at once).</li>
 * </ul>
 * For each: four virtual threads insert rows on connections of their own, with commits; large objects; an index,
 * updates and deletes; {@code SCRIPT}, {@code CSVWRITE} and {@code BACKUP}; {@code SHUTDOWN COMPACT} (which rewrites
 * the store into a new file and moves it over the old one). Then the database is opened again and everything read
 * back: the rows and large objects checksummed, index lookups, the CSV file read by H2, the script run into a new
 * database and the backup restored, each checksummed again. Every {@code RESULT} line depends only on the data, so
 * the two runs must print the same lines.
 *
 * <p>Arguments: a directory, the rows, a seed.
 */
public final class H2Workload {
    private static final int WRITERS = 4;
    private static final int LOBS = 40;

    private H2Workload() {
    }

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args[0]).toAbsolutePath();
        int rows = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        System.out.println("PROVIDER " + FileSystems.getDefault().provider().getClass().getName());
        Path probe = base.resolve("probe");
        try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                AsynchronousFileChannel ach = AsynchronousFileChannel.open(probe, StandardOpenOption.READ)) {
            System.out.println("CHANNELS " + ch.getClass().getName() + " " + ach.getClass().getName());
        }
        Files.delete(probe);
        for (String fs : List.of("file:", "nioMapped:", "async:", "split:20:")) {
            String name = fs.replace(":", "").replace("20", "");
            Path dir = Files.createDirectory(base.resolve(name));
            long t0 = System.nanoTime();
            write(fs, dir, rows, seed);
            long t1 = System.nanoTime();
            read(fs, name, dir, rows);
            long t2 = System.nanoTime();
            System.out.printf("TIMING %s write %.3f s read %.3f s%n", name, (t1 - t0) / 1e9, (t2 - t1) / 1e9);
        }
        if (FileSystems.getDefault().provider().getClass().getName().startsWith("io.github.uring4j")) {
            System.out.println("STATS " + io.github.uring4j.nio.UringFiles.statistics());
        }
    }

    static String url(String fs, Path dir, String db) {
        return "jdbc:h2:" + fs + dir.resolve(db);
    }

    static void write(String fs, Path dir, int rows, long seed) throws Exception {
        String url = url(fs, dir, "db");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("create table t(id int primary key, k int not null, v varchar(400))");
            s.execute("create table lobs(id int primary key, b blob, c clob)");
            // writers on connections of their own, each a range of ids, committing every 500 rows
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> writers = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++) {
                    int from = rows / WRITERS * w;
                    int to = w == WRITERS - 1 ? rows : rows / WRITERS * (w + 1);
                    long mySeed = seed + w;
                    writers.add(ex.submit(() -> {
                        insert(url, from, to, mySeed);
                        return null;
                    }));
                }
                for (Future<?> f : writers) {
                    f.get();
                }
            }
            Random r = new Random(seed ^ 0x10b5);
            try (PreparedStatement p = c.prepareStatement("insert into lobs values(?, ?, ?)")) {
                for (int i = 0; i < LOBS; i++) {
                    byte[] b = new byte[r.nextInt(400_000)];
                    r.nextBytes(b);
                    StringBuilder text = new StringBuilder();
                    for (int n = r.nextInt(20_000); n > 0; n--) {
                        text.append((char) ('a' + r.nextInt(26)));
                    }
                    p.setInt(1, i);
                    p.setBytes(2, b);
                    p.setString(3, text.toString());
                    p.executeUpdate();
                }
            }
            s.execute("create index ik on t(k)");
            s.execute("update t set v = concat(v, '-updated') where mod(id, 7) = 0");
            s.execute("delete from t where mod(id, 11) = 0");
            s.execute("delete from lobs where mod(id, 5) = 0");
            s.execute("script to '" + dir.resolve("dump.sql") + "'");
            s.execute("call csvwrite('" + dir.resolve("t.csv") + "', 'select id, k, v from t order by id')");
            s.execute("backup to '" + dir.resolve("backup.zip") + "'");
            s.execute("shutdown compact");
        }
    }

    private static void insert(String url, int from, int to, long seed) throws SQLException {
        Random r = new Random(seed);
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement p = c.prepareStatement("insert into t values(?, ?, ?)")) {
            c.setAutoCommit(false);
            for (int id = from; id < to; id++) {
                p.setInt(1, id);
                p.setInt(2, r.nextInt(1000));
                p.setString(3, Long.toHexString(r.nextLong()) + "x".repeat(r.nextInt(300)));
                p.addBatch();
                if ((id - from) % 500 == 499) {
                    p.executeBatch();
                    c.commit();
                }
            }
            p.executeBatch();
            c.commit();
        }
    }

    static void read(String fs, String name, Path dir, int rows) throws Exception {
        try (Connection c = DriverManager.getConnection(url(fs, dir, "db")); Statement s = c.createStatement()) {
            System.out.println("RESULT " + name + " rows " + rows(s));
            System.out.println("RESULT " + name + " lobs " + lobs(s));
            long found = 0;
            long sum = 0;
            try (PreparedStatement p = c.prepareStatement("select count(*), sum(id) from t where k = ?")) {
                for (int k = 0; k < 1000; k++) {
                    p.setInt(1, k);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        found += rs.getLong(1);
                        sum += rs.getLong(2) * (k + 1);
                    }
                }
            }
            System.out.println("RESULT " + name + " lookups " + found + " " + sum);
            try (ResultSet rs = s.executeQuery(
                    "select count(*), sum(cast(id as int)), sum(cast(k as int)), sum(length(v)) from csvread('" + dir.resolve("t.csv") + "')")) {
                rs.next();
                System.out.println("RESULT " + name + " csv " + rs.getLong(1) + " " + rs.getLong(2) + " "
                        + rs.getLong(3) + " " + rs.getLong(4));
            }
        }
        // the script run into a new database, and the backup restored (unzipped by H2 into a directory of its own)
        try (Connection c = DriverManager.getConnection(url(fs, dir, "fromscript")); Statement s = c.createStatement()) {
            s.execute("runscript from '" + dir.resolve("dump.sql") + "'");
            System.out.println("RESULT " + name + " script " + rows(s) + " " + lobs(s));
        }
        Path restored = Files.createDirectory(dir.resolve("restored"));
        org.h2.tools.Restore.execute(dir.resolve("backup.zip").toString(), restored.toString(), "db");
        try (Connection c = DriverManager.getConnection(url(fs, restored, "db")); Statement s = c.createStatement()) {
            System.out.println("RESULT " + name + " backup " + rows(s) + " " + lobs(s));
        }
        try (var files = Files.list(dir)) {
            // what H2 left behind: the databases, the script, the CSV file, the backup (no temporary files)
            System.out.println("RESULT " + name + " files " + files.map(p -> p.getFileName().toString())
                    .filter(f -> !f.startsWith("db.") || f.equals("db.mv.db")).sorted().toList());
        }
    }

    /** The rows of {@code t} in id order, checksummed. */
    private static String rows(Statement s) throws SQLException {
        CRC32C crc = new CRC32C();
        long n = 0;
        try (ResultSet rs = s.executeQuery("select id, k, v from t order by id")) {
            while (rs.next()) {
                n++;
                crc.update((rs.getInt(1) + "," + rs.getInt(2) + "," + rs.getString(3) + "\n").getBytes());
            }
        }
        return n + " " + Long.toHexString(crc.getValue());
    }

    /** The large objects, each read whole through its stream, checksummed. */
    private static String lobs(Statement s) throws SQLException, IOException {
        CRC32C crc = new CRC32C();
        long n = 0;
        long bytes = 0;
        try (ResultSet rs = s.executeQuery("select id, b, c from lobs order by id")) {
            while (rs.next()) {
                n++;
                Blob b = rs.getBlob(2);
                try (InputStream in = b.getBinaryStream()) {
                    byte[] all = in.readAllBytes();
                    crc.update(all);
                    bytes += all.length;
                }
                Clob c = rs.getClob(3);
                try (Reader r = c.getCharacterStream()) {
                    char[] buf = new char[4096];
                    for (int k; (k = r.read(buf)) > 0; ) {
                        crc.update(new String(buf, 0, k).getBytes());
                        bytes += k;
                    }
                }
            }
        }
        return n + " " + bytes + " " + Long.toHexString(crc.getValue());
    }
}
