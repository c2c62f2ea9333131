package io.github.uring4j.nio;

import static io.github.uring4j.nio.ChannelAgreementTest.contents;
import static io.github.uring4j.nio.ChannelAgreementTest.describe;
import static io.github.uring4j.nio.ChannelAgreementTest.get;
import static io.github.uring4j.nio.ChannelAgreementTest.handled;
import static io.github.uring4j.nio.ChannelAgreementTest.state;
import static io.github.uring4j.nio.Conform.outcome;
import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.DELETE_ON_CLOSE;
import static java.nio.file.StandardOpenOption.DSYNC;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.SPARSE;
import static java.nio.file.StandardOpenOption.SYNC;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileChannel.MapMode;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded differential fuzz: for each seed, the same file opened with the same random options on the JDK's channel
 * and on uring4j's, then the same random sequence of a few hundred calls on both, arguments at and past every edge
 * (buffers of every kind and window, positions past the end, negative and huge, bad offsets and lengths, transfers
 * to and from a channel of the same kind, the JDK's, a stand-in file channel, streams and channels that move a few
 * bytes a call or fail, maps, overlapping locks, a second channel on the same file, calls with the thread's
 * interrupt set, calls after close), on a platform or a virtual thread. Every return value or exception class, the
 * buffers, the positions and the size after each call, and the files' bytes at the end must agree: the JDK's answer
 * is the expected one. What is not compared, and why, is said where it is left out ({@link #readDirect}, {@link #KERNEL_COPY}, the range of a failed O_DIRECT write
 * ({@code Fuzz.settle}), the source's position after a failed transferFrom, O_DIRECT for the asynchronous channel).
 *
 * <p>By default seeds 0 to 63 run, and the {@link #REGRESSIONS}; {@code -During4j.fuzz.seeds=N} runs N seeds from
 * {@code -During4j.fuzz.first=S} (a failure names its seed and how to run it alone), {@code -During4j.fuzz.ops=N}
 * makes N calls per seed, {@code -During4j.fuzz.keepGoing=true} reports every failing seed instead of the first, and
 * {@code -During4j.fuzz.transcripts=DIR} keeps both transcripts of every seed.
 */
@Timeout(value = 3600, unit = TimeUnit.SECONDS)
class ChannelFuzzAgreementTest {
    private static final int SEEDS = Integer.getInteger("uring4j.fuzz.seeds", 64);
    private static final long FIRST = Long.getLong("uring4j.fuzz.first", 0);
    /**
     * Seeds past the default range that showed a difference since fixed, run with it unless a range is asked for:
     * 736 an interrupted O_DIRECT write at an unaligned position (the JDK: IOException, the channel open), 761 a
     * gathering O_DIRECT write of a null buffer after one with nothing remaining, 853 and 910 O_DIRECT relative
     * reads on a virtual thread, 265 a transfer from a source positioned past its end, 473 and 613 transfers to a
     * channel that takes part of each write (the JDK's 8 KiB steps), 596 and 955 an interrupted lock over a lock
     * held, 94 a transfer from a stream to a position past the largest file (the JDK's channel has read 8 KiB of it
     * when the write fails), 2861 and 4975 a positional read near Long.MAX_VALUE once the channel reads through its
     * mapping (IndexOutOfBoundsException; the JDK: IOException), 105648 and 105785 positional reads past the end a
     * truncation by another channel made, which the channel's mapping of the file (then on by default) did not see:
     * InternalError, or zeros as bytes read. In the default range: 1, 4, 7, 16, 23, 32, 41 among
     * others, and an asynchronous tryLock on a closed channel in most.
     */
    private static final long[] REGRESSIONS = {736, 761, 853, 910, 265, 473, 613, 596, 955, 94, 2861, 4975, 105648,
        105785};
    private static final int OPS = Integer.getInteger("uring4j.fuzz.ops", 200);
    private static final boolean KEEP_GOING = Boolean.getBoolean("uring4j.fuzz.keepGoing");

    @TempDir
    Path dir;

    @AfterEach
    void nothingLeftOpen() throws IOException {
        assertEquals(List.of(), Conform.fdsUnder(dir), "descriptors left open under the test's directory");
    }

    /** One seed's run on one kind of channel, writing what it saw a line at a time. */
    @FunctionalInterface
    interface Run {
        void run(Kind kind, Random r, Path d, List<String> out) throws Exception;
    }

    /**
     * Runs every seed on both kinds, each in a directory of its own and on a thread of the kind the seed says
     * (virtual threads take other paths in uring4j's channels), and compares the transcripts.
     */
    private void agree(String what, Run run) throws Exception {
        List<String> failures = new ArrayList<>();
        java.util.stream.LongStream seeds = java.util.stream.LongStream.range(FIRST, FIRST + SEEDS);
        if (System.getProperty("uring4j.fuzz.first") == null && System.getProperty("uring4j.fuzz.seeds") == null) {
            seeds = java.util.stream.LongStream.concat(seeds, java.util.Arrays.stream(REGRESSIONS));
        }
        for (long seed : seeds.toArray()) {
            boolean virtual = new Random(seed ^ 0x5DEECE66DL).nextInt(4) == 0;
            Map<Kind, List<String>> t = new EnumMap<>(Kind.class);
            Path seedDir = dir.resolve(what + "-" + seed);
            for (Kind k : Kind.values()) {
                Path d = Files.createDirectories(seedDir.resolve(k.name()));
                List<String> lines = new ArrayList<>();
                Random r = new Random(seed);
                lines.add(what + " seed " + seed + (virtual ? " on a virtual thread" : " on a platform thread"));
                onThread(virtual, () -> run.run(k, r, d, lines));
                t.put(k, lines);
            }
            String keep = System.getProperty("uring4j.fuzz.transcripts");
            if (keep != null) {
                // -During4j.fuzz.transcripts=DIR keeps both transcripts of every seed, to read or diff
                Files.createDirectories(Path.of(keep));
                Files.write(Path.of(keep, what + "-" + seed + ".jdk.txt"), t.get(Kind.JDK));
                Files.write(Path.of(keep, what + "-" + seed + ".uring4j.txt"), t.get(Kind.URING));
            }
            String difference = firstDifference(t.get(Kind.JDK), t.get(Kind.URING));
            if (difference != null) {
                String message = what + " seed " + seed + " (alone: -During4j.fuzz.first=" + seed
                        + " -During4j.fuzz.seeds=1)" + difference;
                if (!KEEP_GOING) {
                    fail(message);
                }
                failures.add(message);
            }
            deleteTree(seedDir);
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " seeds differ:\n" + String.join("\n", failures));
        }
    }

    /** The first line where the transcripts differ, with the lines before it; null when they agree. */
    private static String firstDifference(List<String> jdk, List<String> ours) {
        int n = Math.min(jdk.size(), ours.size());
        for (int i = 0; i < n; i++) {
            if (!jdk.get(i).equals(ours.get(i))) {
                StringBuilder s = new StringBuilder(", line ").append(i).append(':');
                for (int j = Math.max(1, i - 4); j < i; j++) {
                    s.append("\n  both:    ").append(jdk.get(j));
                }
                return s.append("\n  JDK:     ").append(jdk.get(i)).append("\n  uring4j: ").append(ours.get(i))
                        .toString();
            }
        }
        if (jdk.size() != ours.size()) {
            return ": transcripts of different lengths, " + jdk.size() + " and " + ours.size() + " lines";
        }
        return null;
    }

    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    private static void onThread(boolean virtual, Body body) throws Exception {
        if (!virtual) {
            body.run();
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                body.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        get(done);
    }

    private static void deleteTree(Path p) throws IOException {
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }

    // ==================================================================================== arguments

    private static final List<OpenOption> OPTIONS = List.of(READ, WRITE, APPEND, CREATE, TRUNCATE_EXISTING, SYNC,
            DSYNC, CREATE_NEW, DELETE_ON_CLOSE, SPARSE, Conform.DIRECT);
    /** How often each option is drawn, in 1/12ths: SYNC and DSYNC less often, each write waits for the disk. */
    private static final int[] ODDS = {7, 7, 3, 3, 2, 1, 1, 1, 1, 1, 1};

    static Set<OpenOption> options(Random r) {
        Set<OpenOption> o = new LinkedHashSet<>();
        for (int i = 0; i < OPTIONS.size(); i++) {
            if (r.nextInt(12) < ODDS[i]) {
                o.add(OPTIONS.get(i));
            }
        }
        return o;
    }

    /** A position: at and past the end, inside, negative, and too large for any file. */
    /** A size to truncate to: negative, the size, past it, or within it. */
    private static long truncateTarget(Random r, long size) {
        return switch (r.nextInt(5)) {
            case 0 -> -1;
            case 1 -> size;
            case 2 -> size + r.nextInt(5000);
            default -> (long) (r.nextDouble() * (size + 1));
        };
    }

    static long position(Random r, long size) {
        return switch (r.nextInt(16)) {
            case 0 -> -1;
            case 1 -> Long.MIN_VALUE;
            case 2 -> Long.MAX_VALUE;
            case 3 -> Long.MAX_VALUE - r.nextInt(100_000);
            case 4 -> 1L << 50; // beyond the largest file ext4 (and most file systems) can hold
            case 5 -> 0;
            case 6, 7 -> size;
            case 8 -> size + 1 + r.nextInt(5000);
            case 9 -> 4096L * r.nextInt((int) Math.min(size / 4096 + 3, 1000)); // aligned for O_DIRECT
            default -> (long) (r.nextDouble() * (size + 1));
        };
    }

    /** A count of bytes: none, negative, small, past the thresholds where the JDK maps or steps, huge. */
    static long count(Random r) {
        return switch (r.nextInt(12)) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> Long.MAX_VALUE;
            case 3 -> Long.MIN_VALUE;
            case 4 -> 1 + r.nextInt(16);
            case 5, 6 -> 16 * 1024 + r.nextInt(100_000);
            default -> r.nextInt(20_000);
        };
    }

    /**
     * A buffer of any kind: heap, direct, a slice of either (a nonzero array offset or address), memory of an
     * automatic, confined or shared arena (the latter two closed after the call), each possibly read-only, with a
     * random window (sometimes with nothing remaining).
     */
    static ByteBuffer buffer(Random r, List<Arena> arenas) {
        return buffer(r, arenas, true);
    }

    /**
     * As {@link #buffer(Random, List)}; without {@code confined}, a shared arena's memory where a confined one's would
     * be: the JDK's asynchronous channel touches the buffer on a thread of its pool, where a confined arena's
     * {@code WrongThreadException} escapes its task and the operation never completes (nothing to compare).
     */
    static ByteBuffer buffer(Random r, List<Arena> arenas, boolean confined) {
        int cap = switch (r.nextInt(14)) {
            case 0, 1 -> 0;
            case 2, 3 -> 1 + r.nextInt(16);
            case 4 -> 256 * 1024 + r.nextInt(70_000); // more than uring4j stages at once
            case 5 -> 512 * (1 + r.nextInt(40)); // what O_DIRECT takes, or half of it
            case 6 -> 256 * 1024 + 4096 * r.nextInt(20);
            default -> r.nextInt(9000);
        };
        // native memory sits 0, 512 or 5 bytes past a page boundary, never where malloc happens to put it: O_DIRECT
        // refuses a misaligned address, and both runs must meet the same one
        int off = switch (r.nextInt(4)) {
            case 0 -> 512;
            case 1 -> 5;
            default -> 0;
        };
        ByteBuffer b = switch (r.nextInt(9)) {
            case 0, 1 -> ByteBuffer.allocate(cap);
            case 2, 3 -> ByteBuffer.allocateDirect(cap + off + 8192).alignedSlice(4096).position(off).limit(off + cap)
                    .slice();
            case 4 -> ByteBuffer.wrap(new byte[cap + 7], 3, cap).slice();
            case 5 -> Arena.ofAuto().allocate(cap + off + 1, 4096).asSlice(off, cap).asByteBuffer();
            default -> {
                Arena a = r.nextBoolean() && confined ? Arena.ofConfined() : Arena.ofShared();
                arenas.add(a);
                yield a.allocate(cap + off + 1, 4096).asSlice(off, cap).asByteBuffer();
            }
        };
        b.put(0, pattern(cap, r.nextInt(100)));
        if (r.nextInt(6) == 0) {
            int at = r.nextInt(cap + 1);
            b.limit(at).position(at);
        } else if (r.nextInt(3) == 0) {
            int from = r.nextInt(cap + 1);
            b.limit(from + r.nextInt(cap - from + 1)).position(from);
        } else if (r.nextInt(3) == 0 && cap >= 4096) {
            b.position(4096 * r.nextInt(cap / 4096 + 1)); // aligned for O_DIRECT
        }
        return r.nextInt(5) == 0 ? b.asReadOnlyBuffer() : b;
    }

    /** An array of buffers (some null, sometimes) and an offset and length into it, mostly valid. */
    record Buffers(ByteBuffer[] bs, int offset, int length) {
        static Buffers of(Random r, List<Arena> arenas) {
            ByteBuffer[] bs = new ByteBuffer[r.nextInt(6)];
            for (int i = 0; i < bs.length; i++) {
                bs[i] = r.nextInt(20) == 0 ? null : buffer(r, arenas);
            }
            int offset;
            int length;
            if (r.nextInt(6) == 0) {
                offset = r.nextInt(bs.length + 4) - 2;
                length = r.nextInt(bs.length + 4) - 2;
            } else {
                offset = r.nextInt(bs.length + 1);
                length = r.nextInt(bs.length - offset + 1);
            }
            return new Buffers(bs, offset, length);
        }

        String name() {
            return "[" + bs.length + "](" + offset + ", " + length + ")";
        }

        /** The bytes remaining in the buffers the offset and length name (0 where they name none). */
        long remaining() {
            long n = 0;
            for (int i = Math.max(offset, 0); i < Math.min(offset + length, bs.length); i++) {
                n += bs[i] == null ? 0 : bs[i].remaining();
            }
            return n;
        }

        static final int READ = 0;
        static final int READ_DIRECT = 1;
        static final int WRITE = 2;

        String after(int how) {
            StringBuilder s = new StringBuilder();
            for (ByteBuffer b : bs) {
                s.append(' ').append(b == null ? "null" : how == READ ? contents(b) : how == READ_DIRECT
                        ? readDirect(b) : describe(b));
            }
            return s.toString();
        }
    }

    /**
     * A buffer an O_DIRECT read filled: its window and the bytes up to its position. Not the bytes past it: the
     * kernel reads whole blocks into native memory it is given, so a read that ends at the end of the file leaves the
     * rest of the last block (zeros) past the position; the JDK's channel gives it a direct buffer's own memory, or
     * a temporary buffer from which it copies only the bytes read, and so does uring4j's, but not for the same kinds
     * of memory (a shared arena's, which uring4j stages).
     */
    static String readDirect(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b.duplicate().flip());
        return describe(b) + " crc " + Long.toHexString(c.getValue());
    }

    /**
     * A transfer between an O_DIRECT channel and one of the JDK's: the JDK's channel hands it to copy_file_range
     * (and sendfile) on the two descriptors, and the kernel copies some O_DIRECT ranges, refuses others and writes part
     * of some before it fails, by rules of its own that depend on more than the arguments; uring4j's channel cannot
     * reach the JDK channel's descriptor, and the JDK's channel on its own file is not O_DIRECT. Not compared (between
     * two uring4j channels, where it makes the same calls, it is).
     */
    private static final String KERNEL_COPY = "not compared (O_DIRECT and the JDK's channel: the kernel's copy)";

    // ==================================================================================== far sides

    /** A channel that takes at most a few bytes a write, as a non-blocking one does. */
    static final class Trickle implements WritableByteChannel, ReadableByteChannel {
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();
        final ByteBuffer given;
        final int step;
        /** Bytes after which a call fails (a broken pipe), or -1. */
        final long failAfter;
        long moved;
        boolean open = true;

        Trickle(Random r) {
            given = ByteBuffer.wrap(pattern(r.nextInt(30_000), r.nextInt(100)));
            step = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(20_000);
            failAfter = r.nextBoolean() ? -1 : r.nextInt(40_000);
        }

        private int allow(int want) throws IOException {
            if (!open) {
                throw new ClosedChannelException();
            }
            if (failAfter >= 0 && moved >= failAfter) {
                throw new IOException("broken");
            }
            return Math.min(want, step);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            int n = allow(src.remaining());
            byte[] b = new byte[n];
            src.get(b);
            taken.write(b);
            moved += n;
            return n;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (!given.hasRemaining()) {
                allow(0);
                return -1;
            }
            int n = Math.min(allow(dst.remaining()), given.remaining());
            dst.put(given.slice(given.position(), n));
            given.position(given.position() + n);
            moved += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public String toString() {
            CRC32C c = new CRC32C();
            c.update(taken.toByteArray());
            return "trickle[moved " + moved + " took " + taken.size() + " crc " + Long.toHexString(c.getValue())
                    + " left " + given.remaining() + "]";
        }
    }

    /** What a far side of a transfer looks like afterwards. */
    private static String far(Object o, ByteArrayOutputStream sink, ByteArrayInputStream source) {
        if (o instanceof FileChannel f) {
            return "file position "
                    + outcome(f::position) + " size " + outcome(f::size);
        }
        if (sink != null) {
            CRC32C c = new CRC32C();
            c.update(sink.toByteArray());
            return "stream took " + sink.size() + " crc " + Long.toHexString(c.getValue());
        }
        if (source != null) {
            return "stream has " + source.available() + " left";
        }
        return String.valueOf(o);
    }

    // ==================================================================================== FileChannel

    /** The state of one seed's run on a {@link FileChannel}. */
    private static final class Fuzz {
        final Random r;
        final FileChannel ch;
        final Path p;
        /**
         * The far sides of transfers, all on one other file: a channel of the same kind as this one (what the JDK's
         * channel does with another of its own is what uring4j's must do with another of its own), the JDK's, and a
         * file channel of neither (a stand-in over the JDK's).
         */
        final FileChannel[] others;
        final List<FileLock> locks = new ArrayList<>();
        final Kind kind;
        /** Opened with O_DIRECT. */
        final boolean direct;
        /** A second channel on the same file, opened by a call, or null. */
        FileChannel sibling;
        /** The size last seen, for the arguments (the same in both runs while the transcripts agree). */
        long size;
        /**
         * The range an O_DIRECT write of this step was to write, {@code [unsureFrom, unsureTo)}, or -1: where such a
         * write fails, the kernel may have written part of it (see {@link #settle}).
         */
        long unsureFrom = -1;
        long unsureTo;

        Fuzz(Kind kind, Random r, FileChannel ch, Path p, FileChannel[] others, boolean direct) throws IOException {
            this.kind = kind;
            this.direct = direct;
            this.r = r;
            this.ch = ch;
            this.p = p;
            this.others = others;
            this.size = ch.size();
        }

        String step() throws Exception {
            List<Arena> arenas = new ArrayList<>();
            try {
                unsureFrom = -1;
                String s = call(arenas);
                if (unsureFrom >= 0 && s.contains(": ! java.io.IOException")) {
                    s += " " + settle();
                }
                try {
                    size = ch.size();
                } catch (IOException e) {
                    // closed: the last size seen stays
                }
                StringBuilder t = new StringBuilder(s).append(" | position ").append(outcome(ch::position))
                        .append(" size ").append(outcome(ch::size)).append(" far sides at");
                for (FileChannel o : others) {
                    t.append(' ').append(o.isOpen() ? outcome(o::position) : "closed");
                }
                return t.toString();
            } finally {
                for (Arena a : arenas) {
                    a.close();
                }
            }
        }

        /** Marks {@code [from, from + n)} as the range of this step's write, where the channel is O_DIRECT. */
        private void unsure(long from, long n) {
            if (direct && from >= 0 && n > 0) {
                unsureFrom = from;
                unsureTo = from + n < 0 ? Long.MAX_VALUE : from + n;
            }
        }

        /** The channel's position for {@link #unsure}: -1 where it has none (closed) or is not asked (not O_DIRECT). */
        private long here() {
            if (!direct) {
                return -1;
            }
            try {
                return ch.position();
            } catch (IOException e) {
                return -1;
            }
        }

        /**
         * After an O_DIRECT write that failed (EINVAL: a length, position or address the device's block does not
         * divide): the kernel may have written part of it anyway. ext4 writes the extents of the range one at a time
         * and checks each piece's alignment as it comes to it, so a write of 17,051 bytes at 0 over 16 KiB of written
         * blocks followed by a hole writes those 16 KiB and then says EINVAL; over one extent it writes nothing. The
         * layout of the extents depends on when the kernel allocated the blocks of earlier buffered writes, which is
         * a matter of timing, so the JDK's run and uring4j's can differ there (seed 203306 did, one run in a few)
         * though both made the same call. Each run states the file's bytes outside the range (which no failed write
         * may touch), then writes the same bytes over the range through a buffered channel of the JDK's, so that
         * both go on from the same file.
         */
        private String settle() throws IOException {
            if (!Files.exists(p)) {
                return "(no file: deleted on close)";
            }
            long size = Files.size(p);
            long from = Math.min(unsureFrom, size);
            long to = Math.min(unsureTo, size);
            String digest = io.github.uring4j.file.TestFiles.digest(p, from, to);
            if (from < to) {
                try (FileChannel w = Kind.JDK.open(p, Set.of(WRITE))) {
                    ByteBuffer b = ByteBuffer.wrap(pattern((int) (to - from), 7));
                    while (b.hasRemaining()) {
                        w.write(b, from + b.position());
                    }
                }
            }
            return "(the file outside [" + from + ", " + to + "): " + digest + ")";
        }

        private String call(List<Arena> arenas) throws Exception {
            int op = r.nextInt(110);
            if (op < 10) {
                ByteBuffer b = buffer(r, arenas);
                return "read " + Conform.describe(b) + ": " + outcome(() -> ch.read(b) + " " + read(b));
            }
            if (op < 20) {
                ByteBuffer b = buffer(r, arenas);
                long at = position(r, size);
                return "read " + Conform.describe(b) + " at " + at + ": " + outcome(() -> ch.read(b, at) + " "
                        + read(b));
            }
            if (op < 30) {
                ByteBuffer b = buffer(r, arenas);
                unsure(here(), b.remaining());
                return "write " + Conform.describe(b) + ": " + outcome(() -> ch.write(b) + " " + describe(b));
            }
            if (op < 40) {
                ByteBuffer b = buffer(r, arenas);
                long at = position(r, size);
                unsure(at, b.remaining());
                return "write " + Conform.describe(b) + " at " + at + ": " + outcome(() -> ch.write(b, at) + " " + describe(b));
            }
            if (op < 45) {
                Buffers bs = Buffers.of(r, arenas);
                return "read " + bs.name() + ": " + outcome(() -> ch.read(bs.bs, bs.offset, bs.length)
                        + bs.after(direct ? Buffers.READ_DIRECT : Buffers.READ));
            }
            if (op < 50) {
                Buffers bs = Buffers.of(r, arenas);
                unsure(here(), bs.remaining());
                return "write " + bs.name() + ": "
                        + outcome(() -> ch.write(bs.bs, bs.offset, bs.length) + bs.after(Buffers.WRITE));
            }
            if (op < 52) {
                ByteBuffer[] bs = r.nextBoolean() ? null : new ByteBuffer[] {buffer(r, arenas), null};
                boolean read = r.nextBoolean();
                return (read ? "read " : "write ") + (bs == null ? "null" : "[x, null]") + ": "
                        + outcome(() -> read ? ch.read(bs) : ch.write(bs));
            }
            if (op < 57) {
                long at = position(r, size);
                return "position(" + at + "): " + outcome(() -> ch.position(at) == ch);
            }
            if (op < 59) {
                return "size(): " + outcome(ch::size);
            }
            if (op < 64) {
                long to = truncateTarget(r, size);
                return "truncate(" + to + "): " + outcome(() -> ch.truncate(to) == ch);
            }
            if (op < 65) {
                boolean meta = r.nextBoolean();
                return "force(" + meta + "): " + outcome(() -> {
                    ch.force(meta);
                    return "done";
                });
            }
            if (op < 71) {
                return transferTo();
            }
            if (op < 77) {
                return transferFrom();
            }
            if (op < 82) {
                return map();
            }
            if (op < 90) {
                return lock();
            }
            if (op < 93) {
                if (locks.isEmpty()) {
                    return "no lock to release";
                }
                FileLock l = locks.remove(r.nextInt(locks.size()));
                return "release " + Conform.describe(l) + ": " + outcome(() -> {
                    l.release();
                    return Conform.describe(l);
                });
            }
            if (op < 95) {
                StringBuilder s = new StringBuilder("locks:");
                for (FileLock l : locks) {
                    s.append(' ').append(Conform.describe(l)).append(l.channel() == ch ? " own" : " other's")
                            .append(l.acquiredBy() == ch ? "" : " acquired by another");
                }
                return s.toString();
            }
            if (op < 96) {
                int which = r.nextInt(others.length);
                long at = position(r, size);
                return "far side " + which + " position(" + at + "): " + outcome(() -> others[which].position(at)
                        .position());
            }
            if (op >= 100 && op < 106) {
                return sibling();
            }
            if (op == 106) {
                return interrupted();
            }
            if (op < 99 || op > 106 || r.nextInt(2) == 0) {
                return "isOpen: " + ch.isOpen();
            }
            if (r.nextInt(4) == 0) {
                int which = r.nextInt(others.length);
                others[which].close();
                return "far side " + which + " closed";
            }
            return "close: " + outcome(() -> {
                ch.close();
                return ch.isOpen();
            });
        }

        /**
         * A call on a second channel of the same kind on the same file (opened first): its writes and truncations
         * change the file under this one (and under a mapping of it), its locks overlap this one's.
         */
        private String sibling() {
            if (sibling == null || !sibling.isOpen()) {
                Set<OpenOption> o = FAR_OPTIONS.get(r.nextInt(FAR_OPTIONS.size()));
                return "sibling open " + o + ": " + outcome(() -> {
                    sibling = kind.open(p, o);
                    return "open";
                });
            }
            FileChannel s = sibling;
            long at = position(r, size);
            ByteBuffer b = ByteBuffer.wrap(pattern(r.nextInt(20_000), r.nextInt(100)));
            return switch (r.nextInt(7)) {
                case 0, 1 -> "sibling write " + b.remaining() + " at " + at + ": " + outcome(() -> s.write(b, at));
                case 2 -> "sibling read at " + at + ": " + outcome(() -> s.read(b, at) + " " + contents(b));
                case 3 -> {
                    long to = (long) (r.nextDouble() * (size + 1));
                    yield "sibling truncate(" + to + "): " + outcome(() -> s.truncate(to).size());
                }
                case 4, 5 -> {
                    long from = r.nextInt(1000);
                    long length = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(300);
                    boolean shared = r.nextBoolean();
                    yield "sibling tryLock(" + from + ", " + length + ", " + shared + "): " + outcome(() -> {
                        FileLock l = s.tryLock(from, length, shared);
                        if (l == null) {
                            return "none";
                        }
                        locks.add(l);
                        return Conform.describe(l);
                    });
                }
                default -> "sibling close: " + outcome(() -> {
                    s.close();
                    return "closed";
                });
            };
        }

        /**
         * A call made with the thread's interrupt flag set: the JDK's channel closes (and a transfer closes the far
         * side too) and says {@code ClosedByInterruptException}, where the call is one that blocks.
         */
        private String interrupted() {
            int which = r.nextInt(7);
            int far = r.nextInt(others.length);
            long at = r.nextInt(1000);
            Thread.currentThread().interrupt();
            String o = outcome(() -> switch (which) {
                case 0 -> ch.read(ByteBuffer.allocate(10));
                case 1 -> ch.write(ByteBuffer.wrap(pattern(10, 1)), at);
                case 2 -> ch.size();
                case 3 -> ch.transferTo(at, 100, others[far]);
                case 4 -> ch.transferFrom(others[far], at, 100);
                case 5 -> Conform.describe(far == 0 ? ch.lock(at, 10, false) : ch.tryLock(at, 10, false));
                default -> ch.position();
            }) + " still interrupted " + Thread.interrupted();
            return "interrupted " + which + " far side " + far + ": " + o + " open " + ch.isOpen() + " far side open "
                    + others[far].isOpen();
        }

        /** What a read filled, as {@link ChannelAgreementTest#contents} or (O_DIRECT) {@link #readDirect}. */
        private String read(ByteBuffer b) {
            return direct ? readDirect(b) : contents(b);
        }

        private String transferTo() {
            long at = position(r, size);
            long n = count(r);
            int kind = r.nextInt(6);
            ByteArrayOutputStream sink = kind == 3 ? new ByteArrayOutputStream() : null;
            WritableByteChannel target = switch (kind) {
                case 0, 1, 2 -> others[kind];
                case 3 -> Channels.newChannel(sink);
                case 4 -> new Trickle(r);
                default -> r.nextInt(4) == 0 ? null : ch; // the channel itself, at and past its end
            };
            if (target == ch && n > 0 && at < size) {
                // to itself over bytes it has: where the ranges overlap the bytes are unspecified (the JDK's smear);
                // ChannelAgreementTest covers that, here only what moves nothing
                n = 0;
            }
            long count = n;
            String name = "transferTo(" + at + ", " + count + ", " + (target == ch ? "itself" : kind < 3 ? "far side "
                    + kind : target == null ? "null" : target.getClass().getSimpleName()) + ")";
            if (direct && kind == 1) {
                return name + ": " + KERNEL_COPY;
            }
            return name + ": " + outcome(() -> ch.transferTo(at, count, target)) + " then "
                    + far(target == ch ? null : target, sink, null);
        }

        private String transferFrom() {
            long at = position(r, size);
            long n = count(r);
            int kind = r.nextInt(5);
            ByteArrayInputStream in = kind == 3 ? new ByteArrayInputStream(pattern(r.nextInt(90_000), r.nextInt(100)))
                    : null;
            ReadableByteChannel src = switch (kind) {
                case 0, 1, 2 -> others[kind];
                case 3 -> Channels.newChannel(in);
                default -> r.nextInt(6) == 0 ? null : new Trickle(r);
            };
            if (src instanceof FileChannel && n > 0 && at >= 1L << 40) {
                // where the write fails after a read, the JDK's channel keeps the bytes it read from a source that is
                // not its own consumed; uring4j's gives them back (UringFileChannelTest): the source's position differs
                n = 0;
            }
            long count = n;
            if (direct && kind == 1) {
                return "transferFrom(far side 1, " + at + ", " + count + "): " + KERNEL_COPY;
            }
            unsure(at, count);
            String outcome = outcome(() -> ch.transferFrom(src, at, count));
            if (src instanceof FileChannel && (outcome.equals("! java.io.IOException") || direct)) {
                // a write that fails after a read (any failure, or under O_DIRECT a last piece not a multiple of the
                // block): the JDK's channel keeps what it read from a source that is not its own consumed, uring4j's
                // gives back what it did not write (UringFileChannelTest), on purpose; the source's position differs,
                // and is set to the same in both runs
                return "transferFrom(" + kind + ", " + at + ", " + count + "): " + outcome + " then source "
                        + outcome(() -> ((FileChannel) src).position(0).position());
            }
            String name = "transferFrom(" + (kind < 3 ? "far side " + kind : src == null ? "null"
                    : src.getClass().getSimpleName()) + ", " + at + ", " + count + ")";
            return name + ": " + outcome + " then " + far(src, null, in);
        }

        private String map() {
            MapMode mode = switch (r.nextInt(13)) {
                case 0 -> null;
                case 1, 2, 3, 4 -> MapMode.READ_ONLY;
                case 5, 6, 7, 8 -> MapMode.READ_WRITE;
                default -> MapMode.PRIVATE;
            };
            long at = switch (r.nextInt(8)) {
                case 0 -> -1;
                case 1 -> Long.MAX_VALUE;
                case 2 -> 0;
                case 3 -> size;
                case 4 -> size + r.nextInt(5000);
                default -> (long) (r.nextDouble() * (size + 1));
            };
            long length = switch (r.nextInt(8)) {
                case 0 -> -1;
                case 1 -> 0;
                case 2 -> Integer.MAX_VALUE + 1L;
                case 3 -> Long.MAX_VALUE;
                default -> r.nextInt(70_000);
            };
            boolean segment = r.nextBoolean();
            int poke = r.nextInt(1 << 20);
            String name = "map" + (segment ? " segment" : "") + "(" + mode + ", " + at + ", " + length + ")";
            if (segment) {
                if (length > Integer.MAX_VALUE && length != Long.MAX_VALUE) {
                    return name + ": skipped (2 GiB of file)"; // a segment may be that large, and grow the file
                }
                return name + ": " + outcome(() -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment s = ch.map(mode, at, length, a);
                        return Conform.describe(s) + " " + mapped(s.asByteBuffer(), at, mode, poke);
                    }
                });
            }
            return name + ": " + outcome(() -> {
                MappedByteBuffer m = ch.map(mode, at, length);
                return Conform.describe(m) + " " + mapped(m, at, mode, poke);
            });
        }

        /** The mapped bytes that are in the file, read (and one written where the mapping may be). */
        private String mapped(ByteBuffer m, long at, MapMode mode, int poke) throws IOException {
            long fileSize = ch.size();
            int inFile = (int) Math.max(0, Math.min(m.capacity(), fileSize - at));
            CRC32C c = new CRC32C();
            c.update(m.duplicate().clear().limit(inFile));
            if (!m.isReadOnly() && inFile > 0) {
                m.put(poke % inFile, (byte) poke);
                if (m instanceof MappedByteBuffer mb && mode == MapMode.READ_WRITE) {
                    mb.force();
                }
            }
            return "in file " + inFile + " crc " + Long.toHexString(c.getValue());
        }

        private String lock() {
            long at = switch (r.nextInt(8)) {
                case 0 -> -1;
                case 1 -> Long.MAX_VALUE;
                case 2, 3 -> 0;
                default -> r.nextInt(1000);
            };
            long length = switch (r.nextInt(8)) {
                case 0 -> -1;
                case 1, 2 -> 0;
                case 3 -> Long.MAX_VALUE;
                case 4 -> Long.MAX_VALUE - Math.max(at, 0);
                default -> 1 + r.nextInt(300);
            };
            boolean shared = r.nextBoolean();
            boolean wait = r.nextBoolean();
            boolean whole = r.nextInt(8) == 0;
            String name = (wait ? "lock" : "tryLock") + (whole ? "()" : "(" + at + ", " + length + ", " + shared + ")");
            return name + ": " + outcome(() -> {
                FileLock l = whole ? wait ? ch.lock() : ch.tryLock()
                        : wait ? ch.lock(at, length, shared) : ch.tryLock(at, length, shared);
                if (l != null) {
                    locks.add(l);
                    return Conform.describe(l) + (l.channel() == ch ? " own" : " other's");
                }
                return "none";
            });
        }

        /** After close: what the locks still say. */
        String closing() {
            StringBuilder s = new StringBuilder("closed; locks:");
            for (FileLock l : locks) {
                s.append(' ').append(Conform.describe(l)).append(" release ").append(outcome(() -> {
                    l.release();
                    return "done";
                }));
            }
            return s.toString();
        }
    }

    private static final List<Set<OpenOption>> FAR_OPTIONS = List.of(Set.of(READ), Set.of(WRITE), Set.of(READ, WRITE),
            Set.of(WRITE, APPEND), Set.of(READ, WRITE, SYNC));

    private static void fileChannel(Kind kind, Random r, Path d, List<String> out) throws Exception {
        Path p = d.resolve("f");
        Path q = d.resolve("g");
        boolean exists = r.nextInt(12) != 0;
        int initial = r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 300 : 40_000);
        if (exists) {
            Files.write(p, pattern(initial, r.nextInt(100)));
        }
        Files.write(q, pattern(r.nextInt(40_000), r.nextInt(100)));
        Set<OpenOption> options = options(r);
        Set<OpenOption> farOptions = FAR_OPTIONS.get(r.nextInt(FAR_OPTIONS.size()));
        out.add("open " + options + (exists ? " a file of " + initial : " nothing") + ", far side " + farOptions);
        FileChannel ch;
        try {
            ch = kind.open(p, options);
        } catch (Exception e) {
            out.add("open: ! " + e.getClass().getName());
            out.add("then " + state(p));
            return;
        }
        FileChannel[] others = new FileChannel[3];
        try (ch; FileChannel a = kind.open(q, farOptions); FileChannel b = Kind.JDK.open(q, farOptions);
                FileChannel c = StandInChannel.standIn(q, farOptions)) {
            others[0] = a;
            others[1] = b;
            others[2] = c;
            Fuzz f = new Fuzz(kind, r, ch, p, others, options.contains(Conform.DIRECT));
            try {
                for (int i = 0; i < OPS; i++) {
                    out.add(i + " " + f.step());
                }
                ch.close();
                out.add(f.closing());
            } finally {
                if (f.sibling != null) {
                    f.sibling.close();
                }
            }
        }
        out.add("then " + state(p) + " and " + state(q));
    }

    @Test
    void randomSequencesAgreeForFileChannel() throws Exception {
        agree("channel", ChannelFuzzAgreementTest::fileChannel);
    }

    // ==================================================================================== AsynchronousFileChannel

    /** One call on an asynchronous channel, waited for; the locks it takes are kept in {@code locks}. */
    private static String asyncCall(Random r, AsynchronousFileChannel ch, long size, List<FileLock> locks,
            List<Arena> arenas) throws Exception {
        int op = r.nextInt(100);
        if (op < 30) {
            ByteBuffer b = buffer(r, arenas, false);
            long at = position(r, size);
            boolean handler = r.nextInt(3) == 0;
            return "read " + describe(b) + " at " + at + (handler ? " handler" : "") + ": " + outcome(() -> (handler
                    ? handled(h -> ch.read(b, at, "r", h)) : get(ch.read(b, at))) + " " + contents(b));
        }
        if (op < 60) {
            ByteBuffer b = buffer(r, arenas, false);
            long at = position(r, size);
            boolean handler = r.nextInt(3) == 0;
            return "write " + describe(b) + " at " + at + (handler ? " handler" : "") + ": " + outcome(() -> (handler
                    ? handled(h -> ch.write(b, at, "w", h)) : get(ch.write(b, at))) + " " + describe(b));
        }
        if (op < 64) {
            return "size(): " + outcome(ch::size);
        }
        if (op < 70) {
            long to = truncateTarget(r, size);
            return "truncate(" + to + "): " + outcome(() -> ch.truncate(to) == ch);
        }
        if (op < 72) {
            boolean meta = r.nextBoolean();
            return "force(" + meta + "): " + outcome(() -> {
                ch.force(meta);
                return "done";
            });
        }
        if (op < 88) {
            long at = switch (r.nextInt(8)) {
                case 0 -> -1;
                case 1 -> Long.MAX_VALUE;
                case 2, 3 -> 0;
                default -> r.nextInt(1000);
            };
            long length = switch (r.nextInt(8)) {
                case 0 -> -1;
                case 1, 2 -> 0;
                case 3 -> Long.MAX_VALUE;
                case 4 -> Long.MAX_VALUE - Math.max(at, 0);
                default -> 1 + r.nextInt(300);
            };
            boolean shared = r.nextBoolean();
            int how = r.nextInt(3);
            String name = (how == 0 ? "lock" : how == 1 ? "lock handler" : "tryLock") + "(" + at + ", " + length + ", "
                    + shared + ")";
            return name + ": " + outcome(() -> {
                FileLock l = switch (how) {
                    case 0 -> (FileLock) get(ch.lock(at, length, shared));
                    case 1 -> {
                        CompletableFuture<FileLock> f = new CompletableFuture<>();
                        ch.lock(at, length, shared, "l", io.github.uring4j.file.TestFiles.into(f));
                        yield (FileLock) get(f);
                    }
                    default -> ch.tryLock(at, length, shared);
                };
                if (l == null) {
                    return "none";
                }
                locks.add(l);
                return Conform.describe(l) + (l.acquiredBy() == ch ? " own" : " other's");
            });
        }
        if (op < 95) {
            if (locks.isEmpty()) {
                return "no lock to release";
            }
            FileLock l = locks.remove(r.nextInt(locks.size()));
            return "release " + Conform.describe(l) + ": " + outcome(() -> {
                l.release();
                return Conform.describe(l);
            });
        }
        if (op < 99 || r.nextBoolean()) {
            return "isOpen: " + ch.isOpen();
        }
        return "close: " + outcome(() -> {
            ch.close();
            return ch.isOpen();
        });
    }

    private static void asyncChannel(Kind kind, Random r, Path d, List<String> out) throws Exception {
        Path p = d.resolve("f");
        boolean exists = r.nextInt(12) != 0;
        int initial = r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 300 : 40_000);
        if (exists) {
            Files.write(p, pattern(initial, r.nextInt(100)));
        }
        Set<OpenOption> options = options(r);
        // Not O_DIRECT: the JDK's asynchronous channel makes none of its FileChannel's alignment checks and stages
        // a heap buffer through a temporary direct buffer wherever malloc put it, so the kernel's answer depends on
        // an address that differs from run to run
        options.remove(Conform.DIRECT);
        out.add("open " + options + (exists ? " a file of " + initial : " nothing"));
        AsynchronousFileChannel ch;
        try {
            ch = kind.openAsync(p, options, null);
        } catch (Exception e) {
            out.add("open: ! " + e.getClass().getName());
            out.add("then " + state(p));
            return;
        }
        List<FileLock> locks = new ArrayList<>();
        try (ch) {
            long size = ch.size();
            for (int i = 0; i < OPS; i++) {
                List<Arena> arenas = new ArrayList<>();
                String s;
                try {
                    s = asyncCall(r, ch, size, locks, arenas);
                } finally {
                    for (Arena a : arenas) {
                        a.close();
                    }
                }
                try {
                    size = ch.size();
                } catch (IOException e) {
                    // closed: the last size seen stays
                }
                out.add(i + " " + s + " | size " + outcome(ch::size));
            }
        }
        StringBuilder s = new StringBuilder("closed; locks:");
        for (FileLock l : locks) {
            s.append(' ').append(Conform.describe(l)).append(" release ").append(outcome(() -> {
                l.release();
                return "done";
            }));
        }
        out.add(s.toString());
        out.add("then " + state(p));
    }

    @Test
    void randomSequencesAgreeForAsynchronousFileChannel() throws Exception {
        agree("async", ChannelFuzzAgreementTest::asyncChannel);
    }
}
