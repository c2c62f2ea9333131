package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.outcome;
import static io.github.uring4j.nio.Conform.pattern;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.DELETE_ON_CLOSE;
import static java.nio.file.StandardOpenOption.DSYNC;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.SYNC;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileChannel.MapMode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same scenarios run on the JDK's channels and on uring4j's, each in a directory of its own: every return value,
 * exception class, position, size and byte of the file afterwards must agree. This is where the order in which the
 * JDK checks things is pinned down (a closed channel against a bad argument, a mode against a range), without
 * writing each answer by hand: the JDK's answer is the expected one.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ChannelAgreementTest {
    @TempDir
    Path dir;

    /** A scenario writes what it saw, a line at a time. */
    @FunctionalInterface
    interface Scenario {
        void run(Kind kind, Path dir, List<String> transcript) throws Exception;
    }

    @org.junit.jupiter.api.AfterEach
    void nothingLeftOpen() throws IOException {
        assertEquals(List.of(), Conform.fdsUnder(dir), "descriptors left open under the test's directory");
    }

    private void agree(String name, Scenario s) throws Exception {
        Map<Kind, List<String>> t = new LinkedHashMap<>();
        for (Kind k : Kind.values()) {
            Path d = Files.createDirectories(dir.resolve(name).resolve(k.name()));
            List<String> lines = new ArrayList<>();
            s.run(k, d, lines);
            t.put(k, lines);
        }
        List<String> jdk = t.get(Kind.JDK);
        List<String> ours = t.get(Kind.URING);
        String keep = System.getenv("URING4J_CONFORM_TRANSCRIPTS");
        if (keep != null) {
            // URING4J_CONFORM_TRANSCRIPTS=DIR keeps both transcripts of every scenario, to read or diff.
            Files.createDirectories(Path.of(keep));
            Files.write(Path.of(keep, name + ".jdk.txt"), jdk);
            Files.write(Path.of(keep, name + ".uring4j.txt"), ours);
        }
        for (int i = 0; i < Math.min(jdk.size(), ours.size()); i++) {
            if (!jdk.get(i).equals(ours.get(i))) {
                fail(name + ", line " + i + ":\n  JDK:     " + jdk.get(i) + "\n  uring4j: " + ours.get(i));
            }
        }
        assertEquals(jdk.size(), ours.size(), name + ": transcripts of different lengths");
    }

    /** What is at {@code p} now: nothing, a link, a directory, or a file and a digest of its bytes. */
    static String state(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return "absent";
        }
        if (Files.isSymbolicLink(p)) {
            return "link";
        }
        if (Files.isDirectory(p)) {
            return "directory";
        }
        if (!Files.isRegularFile(p)) {
            return "other";
        }
        byte[] head = new byte[(int) Math.min(8, Files.size(p))];
        try (java.io.InputStream in = Files.newInputStream(p)) {
            in.readNBytes(head, 0, head.length);
        }
        return "file[" + io.github.uring4j.file.TestFiles.digest(p, 0, 0) + " " + HexFormat.of().formatHex(head) + " "
                + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p)) + "]";
    }

    // =========================================================================================== open options

    /** What is at the path opened. */
    enum Target {
        MISSING, FILE, LINK, DANGLING_LINK, DIRECTORY;

        Path make(Path d) throws IOException {
            Path p = d.resolve("p");
            switch (this) {
                case MISSING -> {
                }
                case FILE -> Files.write(p, pattern(20, 1));
                case LINK -> {
                    Files.write(d.resolve("target"), pattern(20, 2));
                    Files.createSymbolicLink(p, d.resolve("target"));
                }
                case DANGLING_LINK -> Files.createSymbolicLink(p, d.resolve("target"));
                case DIRECTORY -> Files.createDirectory(p);
            }
            return p;
        }
    }

    private static final List<OpenOption> BASIC = List.of(READ, WRITE, APPEND, CREATE, CREATE_NEW,
            TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
    private static final List<OpenOption> EXTRA = java.util.Arrays.asList(null, DELETE_ON_CLOSE, SYNC, DSYNC);

    /** Every combination of the basic options, each alone and with one of DELETE_ON_CLOSE, SYNC or DSYNC. */
    static List<Set<OpenOption>> optionSets() {
        List<Set<OpenOption>> all = new ArrayList<>();
        for (int mask = 0; mask < 1 << BASIC.size(); mask++) {
            for (OpenOption extra : EXTRA) {
                Set<OpenOption> s = new LinkedHashSet<>();
                for (int i = 0; i < BASIC.size(); i++) {
                    if ((mask & 1 << i) != 0) {
                        s.add(BASIC.get(i));
                    }
                }
                if (extra != null) {
                    s.add(extra);
                }
                all.add(s);
            }
        }
        return all;
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void everyOpenOptionCombinationAgreesForFileChannel(Target target) throws Exception {
        agree("open-" + target, (kind, d, out) -> {
            int i = 0;
            for (Set<OpenOption> o : optionSets()) {
                Path c = Files.createDirectory(d.resolve(String.valueOf(i++)));
                Path p = target.make(c);
                StringBuilder line = new StringBuilder(o.toString()).append(": ");
                FileChannel[] ch = new FileChannel[1];
                line.append(outcome(() -> ch[0] = kind.open(p, o)));
                if (ch[0] != null) {
                    try (FileChannel f = ch[0]) {
                        line.append(" position ").append(outcome(f::position));
                        line.append(" size ").append(outcome(f::size));
                        line.append(" read ").append(outcome(() -> f.read(ByteBuffer.allocate(4))));
                        line.append(" write ").append(outcome(() -> f.write(ByteBuffer.wrap(pattern(2, 3)))));
                        line.append(" position ").append(outcome(f::position));
                    }
                }
                line.append(" then ").append(state(p)).append(" / ").append(state(c.resolve("target")));
                out.add(line.toString());
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Target.class)
    void everyOpenOptionCombinationAgreesForAsynchronousFileChannel(Target target) throws Exception {
        agree("async-open-" + target, (kind, d, out) -> {
            int i = 0;
            for (Set<OpenOption> o : optionSets()) {
                Path c = Files.createDirectory(d.resolve(String.valueOf(i++)));
                Path p = target.make(c);
                StringBuilder line = new StringBuilder(o.toString()).append(": ");
                AsynchronousFileChannel[] ch = new AsynchronousFileChannel[1];
                line.append(outcome(() -> ch[0] = kind.openAsync(p, o, null)));
                if (ch[0] != null) {
                    try (AsynchronousFileChannel f = ch[0]) {
                        line.append(" size ").append(outcome(f::size));
                        line.append(" read ").append(outcome(() -> get(f.read(ByteBuffer.allocate(4), 0))));
                        line.append(" write ").append(outcome(() -> get(f.write(ByteBuffer.wrap(pattern(2, 3)),
                                30))));
                    }
                }
                line.append(" then ").append(state(p)).append(" / ").append(state(c.resolve("target")));
                out.add(line.toString());
            }
        });
    }

    static Object get(Future<?> f) throws Exception {
        try {
            return f.get(Conform.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }

    // ============================================================================== arguments against modes

    /** How the channel an action runs on was opened. */
    enum Mode {
        READ_ONLY(Set.of(READ)), WRITE_ONLY(Set.of(WRITE)), READ_WRITE(Set.of(READ, WRITE)),
        APPENDING(Set.of(WRITE, APPEND)), CLOSED(Set.of(READ, WRITE)), DIRECT(Set.of(READ, WRITE, Conform.DIRECT));

        final Set<OpenOption> options;

        Mode(Set<OpenOption> options) {
            this.options = options;
        }
    }

    /** An action on a channel, by name. */
    record Act(String name, ChannelAction action) {
    }

    @FunctionalInterface
    interface ChannelAction {
        Object run(FileChannel ch) throws Throwable;
    }

    static List<Act> actions() {
        ByteBuffer[] none = null;
        List<Act> a = new ArrayList<>();
        a.add(new Act("read(null)", ch -> ch.read((ByteBuffer) null)));
        a.add(new Act("read(empty)", ch -> ch.read(ByteBuffer.allocate(0))));
        a.add(new Act("read(read-only)", ch -> ch.read(ByteBuffer.allocate(5).asReadOnlyBuffer())));
        a.add(new Act("read(read-only empty)", ch -> ch.read(ByteBuffer.allocate(0).asReadOnlyBuffer())));
        a.add(new Act("read(heap 10)", ch -> ch.read(ByteBuffer.allocate(10))));
        // allocateDirect's address is 16-byte aligned and otherwise wherever malloc puts it: with O_DIRECT the JDK
        // refused or took the same read depending on it, so this buffer is misaligned on purpose
        a.add(new Act("read(misaligned direct 4096)", ch -> ch.read(misaligned(4096))));
        a.add(new Act("read(aligned 4096)", ch -> ch.read(aligned(4096))));
        a.add(new Act("read(bb, -1)", ch -> ch.read(ByteBuffer.allocate(10), -1)));
        a.add(new Act("read(null, -1)", ch -> ch.read(null, -1)));
        a.add(new Act("read(bb, 0)", ch -> ch.read(ByteBuffer.allocate(10), 0)));
        a.add(new Act("read(bb, size)", ch -> ch.read(ByteBuffer.allocate(10), 100)));
        a.add(new Act("read(bb, past)", ch -> ch.read(ByteBuffer.allocate(10), 1000)));
        a.add(new Act("read(empty, past)", ch -> ch.read(ByteBuffer.allocate(0), 1000)));
        a.add(new Act("read(aligned, 4096)", ch -> ch.read(aligned(4096), 4096)));
        a.add(new Act("read(bbs null)", ch -> ch.read(none)));
        a.add(new Act("read(bbs with null)", ch -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(1), null})));
        a.add(new Act("read(bbs, -1, 1)", ch -> ch.read(new ByteBuffer[2], -1, 1)));
        a.add(new Act("read(bbs, 0, 3)", ch -> ch.read(new ByteBuffer[2], 0, 3)));
        a.add(new Act("read(bbs, 2, 0)", ch -> ch.read(new ByteBuffer[2], 2, 0)));
        a.add(new Act("read(bbs)", ch -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(3), ByteBuffer.allocate(4)})));
        // a vector's addresses are the kernel's to judge under O_DIRECT (512 bytes past a page it takes on ext4 over
        // a disk of 512-byte sectors, 8 bytes past it refuses), a single buffer's the JDK's (a whole block)
        a.add(new Act("read(bbs aligned, 512 past a page)", ch -> ch.read(new ByteBuffer[] {aligned(4096),
                pastPage(4096, 512)})));
        a.add(new Act("read(bbs aligned, 8 past a page)", ch -> ch.read(new ByteBuffer[] {aligned(4096),
                pastPage(4096, 8)})));
        a.add(new Act("write(bbs heap, 512 past a page)", ch -> ch.write(new ByteBuffer[] {
                ByteBuffer.wrap(pattern(4096, 3)), pastPage(4096, 512)})));
        a.add(new Act("write(bbs 8 past a page, aligned)", ch -> ch.write(new ByteBuffer[] {pastPage(4096, 8),
                aligned(4096)})));
        a.add(new Act("write(null)", ch -> ch.write((ByteBuffer) null)));
        a.add(new Act("write(empty)", ch -> ch.write(ByteBuffer.allocate(0))));
        a.add(new Act("write(read-only 5)", ch -> ch.write(ByteBuffer.wrap(pattern(5, 4)).asReadOnlyBuffer())));
        a.add(new Act("write(direct 5)", ch -> ch.write(ByteBuffer.allocateDirect(5).put(pattern(5, 5)).flip())));
        a.add(new Act("write(aligned 4096)", ch -> ch.write(aligned(4096))));
        a.add(new Act("write(bb, -1)", ch -> ch.write(ByteBuffer.allocate(5), -1)));
        a.add(new Act("write(bb, 0)", ch -> ch.write(ByteBuffer.wrap(pattern(5, 6)), 0)));
        a.add(new Act("write(bb, past)", ch -> ch.write(ByteBuffer.wrap(pattern(5, 7)), 1000)));
        a.add(new Act("write(aligned, 8192)", ch -> ch.write(aligned(4096), 8192)));
        a.add(new Act("write(bbs with null)", ch -> ch.write(new ByteBuffer[] {null})));
        a.add(new Act("write(bbs, 1, 2)", ch -> ch.write(new ByteBuffer[2], 1, 2)));
        a.add(new Act("write(bbs)", ch -> ch.write(new ByteBuffer[] {ByteBuffer.wrap(pattern(3, 8)),
            ByteBuffer.wrap(pattern(4, 9))})));
        a.add(new Act("position()", FileChannel::position));
        a.add(new Act("position(-1)", ch -> ch.position(-1)));
        a.add(new Act("position(past)", ch -> ch.position(1000).position()));
        a.add(new Act("size()", FileChannel::size));
        a.add(new Act("truncate(-1)", ch -> ch.truncate(-1)));
        a.add(new Act("truncate(0)", ch -> ch.truncate(0)));
        a.add(new Act("truncate(50)", ch -> ch.truncate(50)));
        a.add(new Act("truncate(past)", ch -> ch.truncate(1000)));
        a.add(new Act("force(true)", ch -> {
            ch.force(true);
            return null;
        }));
        a.add(new Act("force(false)", ch -> {
            ch.force(false);
            return null;
        }));
        a.add(new Act("transferTo(-1)", ch -> ch.transferTo(-1, 1, sink())));
        a.add(new Act("transferTo(count -1)", ch -> ch.transferTo(0, -1, sink())));
        a.add(new Act("transferTo(past)", ch -> ch.transferTo(1000, 1, sink())));
        a.add(new Act("transferTo(0, 1000)", ch -> ch.transferTo(0, 1000, sink())));
        a.add(new Act("transferTo(null)", ch -> ch.transferTo(0, 10, null)));
        a.add(new Act("transferFrom(-1)", ch -> ch.transferFrom(source(), -1, 1)));
        a.add(new Act("transferFrom(count -1)", ch -> ch.transferFrom(source(), 0, -1)));
        a.add(new Act("transferFrom(past)", ch -> ch.transferFrom(source(), 1000, 5)));
        a.add(new Act("transferFrom(0, 8192)", ch -> ch.transferFrom(source(), 0, 8192)));
        a.add(new Act("transferFrom(null)", ch -> ch.transferFrom(null, 0, 1)));
        a.add(new Act("map(ro)", ch -> ch.map(MapMode.READ_ONLY, 0, 10)));
        a.add(new Act("map(rw)", ch -> ch.map(MapMode.READ_WRITE, 0, 10)));
        a.add(new Act("map(private)", ch -> ch.map(MapMode.PRIVATE, 0, 10)));
        a.add(new Act("map(null)", ch -> ch.map(null, 0, 10)));
        a.add(new Act("map(ro, -1)", ch -> ch.map(MapMode.READ_ONLY, -1, 10)));
        a.add(new Act("map(ro, size -1)", ch -> ch.map(MapMode.READ_ONLY, 0, -1)));
        a.add(new Act("map(ro, 2 GiB)", ch -> ch.map(MapMode.READ_ONLY, 0, 1L << 31)));
        a.add(new Act("map(ro, overflow)", ch -> ch.map(MapMode.READ_ONLY, Long.MAX_VALUE, 10)));
        a.add(new Act("map(ro, past)", ch -> ch.map(MapMode.READ_ONLY, 0, 1000)));
        a.add(new Act("map(rw, past)", ch -> ch.map(MapMode.READ_WRITE, 0, 1000)));
        a.add(new Act("map(ro, arena)", ch -> {
            try (Arena arena = Arena.ofConfined()) {
                return Conform.describe(ch.map(MapMode.READ_ONLY, 0, 10, arena));
            }
        }));
        a.add(new Act("map(rw, arena past)", ch -> {
            try (Arena arena = Arena.ofConfined()) {
                return Conform.describe(ch.map(MapMode.READ_WRITE, 50, 1000, arena));
            }
        }));
        a.add(new Act("map(ro, closed arena)", ch -> {
            Arena arena = Arena.ofConfined();
            arena.close();
            return ch.map(MapMode.READ_ONLY, 0, 10, arena);
        }));
        a.add(new Act("map(ro, null arena)", ch -> ch.map(MapMode.READ_ONLY, 0, 10, null)));
        a.add(new Act("lock()", FileChannel::lock));
        a.add(new Act("lock(shared)", ch -> ch.lock(0, 10, true)));
        a.add(new Act("lock(-1)", ch -> ch.lock(-1, 10, true)));
        a.add(new Act("lock(size -1)", ch -> ch.lock(0, -1, false)));
        a.add(new Act("lock(overflow)", ch -> ch.lock(Long.MAX_VALUE, 10, false)));
        a.add(new Act("lock(twice)", ch -> {
            ch.lock(0, 10, true);
            return ch.lock(5, 10, true);
        }));
        a.add(new Act("tryLock()", FileChannel::tryLock));
        a.add(new Act("tryLock(0, 0, shared)", ch -> ch.tryLock(0, 0, true)));
        a.add(new Act("tryLock(5, 0)", ch -> ch.tryLock(5, 0, false)));
        a.add(new Act("tryLock(shared)", ch -> ch.tryLock(0, 10, true)));
        return a;
    }

    static ByteBuffer aligned(int n) {
        return ByteBuffer.allocateDirect(2 * n).alignedSlice(4096).limit(n);
    }

    /** A direct buffer whose address is 8 bytes past a page boundary. */
    static ByteBuffer misaligned(int n) {
        return pastPage(n, 8);
    }

    /** A direct buffer of {@code n} bytes of {@link #pattern} whose address is {@code off} bytes past a page boundary. */
    static ByteBuffer pastPage(int n, int off) {
        return ByteBuffer.allocateDirect(n + 8192).alignedSlice(4096).position(off).slice().limit(n)
                .put(0, pattern(n, off));
    }

    static java.nio.channels.WritableByteChannel sink() {
        return Channels.newChannel(new ByteArrayOutputStream());
    }

    static java.nio.channels.ReadableByteChannel source() {
        return Channels.newChannel(new ByteArrayInputStream(pattern(100, 10)));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void everyArgumentEdgeAgreesForFileChannel(Mode mode) throws Exception {
        agree("edges-" + mode, (kind, d, out) -> {
            int i = 0;
            for (Act act : actions()) {
                Path p = d.resolve(String.valueOf(i++));
                Files.write(p, pattern(mode == Mode.DIRECT ? 8192 : 100, 11));
                String line;
                FileChannel ch = kind.open(p, mode.options);
                try {
                    if (mode != Mode.APPENDING) {
                        ch.position(mode == Mode.DIRECT ? 4096 : 10);
                    }
                    if (mode == Mode.CLOSED) {
                        ch.close();
                    }
                    line = act.name() + ": " + outcome(() -> act.action().run(ch));
                    if (ch.isOpen()) {
                        line += " position " + outcome(ch::position) + " size " + outcome(ch::size);
                    } else {
                        line += " closed";
                    }
                } finally {
                    ch.close();
                }
                out.add(line + " then " + state(p));
            }
        });
    }

    // ============================================================================================ interrupt

    /** Which operations notice an interrupted caller, what they throw, and whether the channel survives. */
    @Test
    void everyOperationAgreesOnAnInterruptedCaller() throws Exception {
        agree("interrupt", (kind, d, out) -> {
            Path p = d.resolve("f");
            Files.write(p, pattern(100, 12));
            for (boolean virtual : new boolean[] {false, true}) {
                int n;
                try (FileChannel probe = FileChannel.open(p)) {
                    n = FileChannelContract.everyOperation(probe).size();
                }
                for (int i = 0; i < n; i++) {
                    int op = i;
                    FileChannel ch = kind.open(p, READ, WRITE);
                    try {
                        CompletableFuture<String> got = new CompletableFuture<>();
                        (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                            Thread.currentThread().interrupt();
                            String o = outcome(FileChannelContract.everyOperation(ch).get(op));
                            got.complete(o + " interrupted=" + Thread.currentThread().isInterrupted());
                        });
                        out.add((virtual ? "virtual " : "platform ") + op + ": " + Conform.await(got) + " open="
                                + ch.isOpen());
                    } finally {
                        ch.close();
                    }
                }
            }
            out.add("then " + state(p));
        });
    }

    // ========================================================================================== transfers

    /**
     * Transfers of a channel to itself, overlapping or not, forwards and backwards: the counts, positions and sizes
     * agree, and so do the bytes where the ranges do not overlap. Where they overlap the javadoc says nothing and the
     * JDK copies in pieces, smearing its own output forwards (a range moved up by one byte comes out as its first
     * byte repeated): no other channel needs to repeat that, so those bytes are not compared.
     */
    @Test
    void transfersOfAChannelToItselfAgree() throws Exception {
        agree("self", (kind, d, out) -> {
            long[][] cases = {{0, 50, 10}, {10, 50, 0}, {0, 100_000, 1}, {1, 100_000, 0}, {0, 200_000, 50_000},
                {150_000, 100_000, 0}, {0, 10, 300_000}, {0, 50_000, 100_000}, {100_000, 50_000, 0}};
            int i = 0;
            for (long[] c : cases) {
                for (boolean to : new boolean[] {true, false}) {
                    Path p = d.resolve(String.valueOf(i++));
                    Files.write(p, pattern(200_000, 13));
                    try (FileChannel ch = kind.open(p, READ, WRITE)) {
                        ch.position(c[2]);
                        long[] n = new long[1];
                        String o = outcome(() -> n[0] = to ? ch.transferTo(c[0], c[1], ch)
                                : ch.transferFrom(ch, c[0], c[1]));
                        // transferTo reads at c[0] and writes at the position; transferFrom the other way round.
                        long from = to ? c[0] : c[2];
                        long at = to ? c[2] : c[0];
                        boolean overlap = n[0] > 0 && from < at + n[0] && at < from + n[0];
                        out.add((to ? "transferTo" : "transferFrom") + java.util.Arrays.toString(c) + ": " + o
                                + " position " + ch.position() + " size " + ch.size() + " then "
                                + (overlap ? "overlapping, bytes unspecified" : state(p)));
                    }
                }
            }
        });
    }

    /** How {@link #everyMapModeRangeAndArenaAgrees} maps: a buffer, or a segment of one kind of arena. */
    enum MapArena {
        NONE, GLOBAL, AUTO, SHARED, CONFINED, CLOSED, CONFINED_TO_ANOTHER_THREAD;

        Arena make() {
            return switch (this) {
                case GLOBAL -> Arena.global();
                case AUTO -> Arena.ofAuto();
                case SHARED -> Arena.ofShared();
                case CLOSED -> {
                    Arena a = Arena.ofShared();
                    a.close();
                    yield a;
                }
                default -> Arena.ofConfined();
            };
        }
    }

    /** One map: its size and access, after reading and (where it may) writing its first byte. */
    private static Object map(FileChannel ch, MapMode mode, long offset, long size, MapArena how) throws Exception {
        if (how == MapArena.NONE) {
            java.nio.MappedByteBuffer m = ch.map(mode, offset, size);
            if (m.capacity() > 0) {
                m.get(0);
                if (!m.isReadOnly()) {
                    m.put(0, (byte) 7);
                }
            }
            return "buffer[" + m.capacity() + (m.isReadOnly() ? " read-only]" : "]");
        }
        Arena arena = how.make();
        if (how == MapArena.CONFINED_TO_ANOTHER_THREAD) {
            CompletableFuture<String> f = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> f.complete(outcome(() -> ch.map(mode, offset, size, arena).byteSize())))
                    .join();
            arena.close();
            return f.get();
        }
        java.lang.foreign.MemorySegment s = ch.map(mode, offset, size, arena);
        String d = "segment[" + s.byteSize() + (s.isReadOnly() ? " read-only]" : "]");
        if (s.byteSize() > 0) {
            s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0);
            if (!s.isReadOnly()) {
                s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 9);
            }
        }
        if (how == MapArena.SHARED || how == MapArena.CONFINED) {
            arena.close();
        }
        return d;
    }

    /**
     * {@code map} in every mode, over ranges inside, at and past the end, negative and too large, as a buffer and as a
     * segment of every kind of arena (closed, confined to another thread included), on channels of every access:
     * the same answers, in the same order of checks, and the same file afterwards (its size and first byte).
     */
    @Test
    void everyMapModeRangeAndArenaAgrees() throws Exception {
        List<Set<OpenOption>> accesses = List.of(Set.of(READ), Set.of(WRITE), Set.of(READ, WRITE), Set.of(WRITE, APPEND));
        long[][] ranges = {{0, 100}, {0, 0}, {50, 100}, {-1, 10}, {0, -1}, {0, Integer.MAX_VALUE + 1L},
            {Long.MAX_VALUE, 1}, {200, 100}, {4096, 4096}};
        agree("map", (kind, d, out) -> {
            int i = 0;
            for (Set<OpenOption> access : accesses) {
                for (MapMode mode : new MapMode[] {MapMode.READ_ONLY, MapMode.READ_WRITE, MapMode.PRIVATE}) {
                    for (long[] range : ranges) {
                        for (MapArena how : MapArena.values()) {
                            Path p = d.resolve(String.valueOf(i++));
                            Files.write(p, new byte[150]);
                            String line = access + " " + mode + " " + range[0] + "+" + range[1] + " " + how + ": ";
                            try (FileChannel ch = kind.open(p, access)) {
                                line += outcome(() -> map(ch, mode, range[0], range[1], how)) + " size " + ch.size();
                            }
                            long size = Files.size(p);
                            int first;
                            try (java.io.InputStream in = Files.newInputStream(p)) {
                                first = in.read();
                            }
                            out.add(line + " then " + size + " bytes, the first " + first);
                            Files.delete(p); // a 2 GiB map grew it
                        }
                    }
                }
            }
        });
    }

    /**
     * Scattering reads and gathering writes over more buffers than the kernel's {@code IOV_MAX} (1024): the JDK's
     * channel takes the first 1024 with bytes to move (empty ones do not count) and leaves the rest, unexamined (a
     * read-only or missing buffer past them is not noticed), to the next call; heap and direct buffers.
     */
    @Test
    void scatteringAndGatheringOverMoreThanIovMaxBuffersAgree() throws Exception {
        agree("iov-max", (kind, d, out) -> {
            Path p = d.resolve("f");
            Files.write(p, pattern(3_000_000, 19));
            try (FileChannel ch = kind.open(p, READ, WRITE)) {
                for (int n : new int[] {1023, 1024, 1025, 1500, 3000}) {
                    for (boolean direct : new boolean[] {false, true}) {
                        ByteBuffer[] bs = new ByteBuffer[n];
                        for (int i = 0; i < n; i++) {
                            int size = i % 3 == 0 ? 0 : 100 + i % 7; // every third one empty
                            bs[i] = direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
                        }
                        bs[n - 1] = bs[n - 1].asReadOnlyBuffer(); // noticed only where it is reached
                        ch.position(17);
                        String read = outcome(() -> ch.read(bs));
                        int filled = 0;
                        for (ByteBuffer b : bs) {
                            filled += b.capacity() > 0 && !b.hasRemaining() ? 1 : 0;
                        }
                        ByteBuffer[] ws = new ByteBuffer[n];
                        for (int i = 0; i < n; i++) {
                            ws[i] = direct ? ByteBuffer.allocateDirect(50) : ByteBuffer.allocate(50);
                            ws[i].put(0, (byte) i);
                        }
                        ws[n - 1] = n > 1500 ? null : ws[n - 1]; // never reached: no NullPointerException
                        String write = outcome(() -> ch.write(ws, 0, n));
                        out.add(n + (direct ? " direct" : " heap") + ": read " + read + ", " + filled + " filled; write "
                                + write + "; position " + ch.position());
                    }
                }
            }
            out.add("then " + state(p));
        });
    }

    // ===================================================================================== random sequences

    /** Arguments a caller may pass: the edges and ordinary values. */
    private static long arg(java.util.Random r) {
        return switch (r.nextInt(9)) {
            case 0 -> -1;
            case 1 -> 0;
            case 2 -> Long.MAX_VALUE;
            case 3 -> Long.MIN_VALUE;
            default -> r.nextInt(20_000);
        };
    }

    /** Each of the open options a random sequence may use, with a chance of one in three. */
    private static Set<OpenOption> randomOptions(java.util.Random r) {
        Set<OpenOption> options = new LinkedHashSet<>();
        for (OpenOption o : List.of(READ, WRITE, APPEND, TRUNCATE_EXISTING, CREATE,
                java.nio.file.StandardOpenOption.SPARSE, SYNC, DSYNC)) {
            if (r.nextInt(3) == 0) {
                options.add(o);
            }
        }
        return options;
    }

    /** What lock was taken ({@code none} for no lock), after releasing it. */
    static String released(java.nio.channels.FileLock l) throws IOException {
        if (l == null) {
            return "none";
        }
        String t = l.isShared() ? "shared" : "exclusive";
        l.release();
        return t;
    }

    /** A buffer of one of four kinds (heap, direct, and each read-only), with a random window. */
    private static ByteBuffer buffer(java.util.Random r) {
        int cap = r.nextInt(5) == 0 ? 0 : r.nextInt(9000);
        int kind = r.nextInt(4);
        ByteBuffer b = kind % 2 == 0 ? ByteBuffer.allocate(cap) : ByteBuffer.allocateDirect(cap);
        b.put(0, pattern(cap, r.nextInt(100)));
        int from = r.nextInt(cap + 1);
        b.limit(from + r.nextInt(cap - from + 1)).position(from);
        return kind >= 2 ? b.asReadOnlyBuffer() : b;
    }

    static String contents(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b.duplicate().clear());
        return describe(b) + " crc " + Long.toHexString(c.getValue());
    }

    static String describe(ByteBuffer b) {
        return "[" + b.position() + " " + b.limit() + "]";
    }

    /** One random call on {@code ch} ({@code other} is the far side of transfers); what it returned, and the buffers. */
    private static String randomCall(java.util.Random r, FileChannel ch, FileChannel other) {
        int op = r.nextInt(15);
        long a1 = arg(r);
        long a2 = arg(r);
        ByteBuffer b = buffer(r);
        ByteBuffer[] bs = new ByteBuffer[1 + r.nextInt(4)];
        for (int i = 0; i < bs.length; i++) {
            bs[i] = buffer(r);
        }
        int offset = (int) Math.floorMod(a1, bs.length + 2L) - (a1 < 0 ? 1 : 0);
        int length = (int) Math.floorMod(a2, bs.length + 2L) - (a2 < 0 ? 1 : 0);
        boolean shared = r.nextBoolean();
        String name = switch (op) {
            case 0 -> "read";
            case 1 -> "read(" + a1 + ")";
            case 2 -> "write";
            case 3 -> "write(" + a1 + ")";
            case 4 -> "position(" + a1 + ")";
            case 5 -> "position()";
            case 6 -> "size()";
            case 7 -> "truncate(" + a1 + ")";
            case 8 -> "read[" + bs.length + "](" + offset + ", " + length + ")";
            case 9 -> "write[" + bs.length + "](" + offset + ", " + length + ")";
            case 10 -> "transferTo(" + a1 + ", " + a2 + ")";
            case 11 -> "transferFrom(" + Math.floorMod(a1, 20_000) + ", " + a2 + ")";
            case 12 -> "force";
            case 13 -> "map(" + a1 + ", " + Math.floorMod(a2, 70_000) + ")";
            default -> "tryLock(" + a1 + ", " + a2 + ", " + shared + ")";
        };
        String o = outcome(() -> switch (op) {
            case 0 -> ch.read(b) + " " + contents(b);
            case 1 -> ch.read(b, a1) + " " + contents(b);
            case 2 -> ch.write(b) + " " + describe(b);
            case 3 -> ch.write(b, a1) + " " + describe(b);
            case 4 -> ch.position(a1).position();
            case 5 -> ch.position();
            case 6 -> ch.size();
            case 7 -> ch.truncate(a1).size();
            case 8, 9 -> {
                StringBuilder t = new StringBuilder().append(op == 8 ? ch.read(bs, offset, length) : ch.write(bs, offset, length));
                for (ByteBuffer x : bs) {
                    t.append(' ').append(op == 8 ? contents(x) : describe(x));
                }
                yield t.toString();
            }
            case 10 -> ch.transferTo(a1, a2, other) + " far side at " + other.position() + " of " + other.size();
            // the position stays where the file can grow to: at a position it cannot, the JDK's channel reads bytes
            // from a channel that is not its own and drops them when the write fails (ours gives them back: see
            // UringFileChannelTest)
            case 11 -> ch.transferFrom(other, Math.floorMod(a1, 20_000), a2) + " far side at " + other.position();
            case 12 -> {
                ch.force(a1 % 2 == 0);
                yield "done";
            }
            case 13 -> {
                java.nio.MappedByteBuffer m = ch.map(MapMode.READ_ONLY, a1, Math.floorMod(a2, 70_000));
                int inFile = (int) Math.max(0, Math.min(m.capacity(), ch.size() - a1));
                yield m.capacity() + " " + contents(m.limit(inFile));
            }
            default -> released(ch.tryLock(a1, a2, shared));
        });
        return name + ": " + o;
    }

    /**
     * Random sequences of calls with random arguments (the edges among them) on channels opened with random options,
     * the far side of transfers a channel of the same kind: every result, exception, buffer, position, size and byte
     * of both files agrees with the JDK's. Seeded, so a failure names the sequence that shows it.
     */
    @Test
    void randomSequencesOfCallsAgreeForFileChannel() throws Exception {
        for (int part = 0; part < 10; part++) {
            int first = part * 100;
            agree("random-" + first, (kind, d, out) -> {
                for (int seed = first; seed < first + 100; seed++) {
                    java.util.Random r = new java.util.Random(seed);
                    Set<OpenOption> options = randomOptions(r);
                    Path p = d.resolve("f" + seed);
                    Path q = d.resolve("g" + seed);
                    Files.write(p, pattern(r.nextInt(3) == 0 ? 0 : r.nextInt(30_000), seed));
                    Files.write(q, pattern(r.nextInt(20_000), seed + 1));
                    Set<OpenOption> farOptions = r.nextBoolean() ? Set.of(READ) : Set.of(READ, WRITE);
                    out.add("seed " + seed + " " + options + ", far side " + farOptions);
                    FileChannel ch;
                    try {
                        ch = kind.open(p, options);
                    } catch (Exception e) {
                        out.add("open: ! " + e.getClass().getName());
                        continue;
                    }
                    try (ch; FileChannel other = kind.open(q, farOptions)) {
                        for (int calls = 1 + r.nextInt(12); calls > 0; calls--) {
                            out.add(randomCall(r, ch, other));
                        }
                    }
                    out.add("then " + state(p) + " and " + state(q));
                }
            });
        }
    }

    /** A handler's outcome, waited for. */
    static String handled(java.util.function.Consumer<java.nio.channels.CompletionHandler<Integer, String>> call)
            throws Exception {
        CompletableFuture<String> f = new CompletableFuture<>();
        call.accept(new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(Integer n, String a) {
                f.complete(n + " " + a);
            }

            @Override
            public void failed(Throwable t, String a) {
                f.complete("failed " + t.getClass().getName() + " " + a);
            }
        });
        return f.get(Conform.WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** One random call on an asynchronous channel, waited for. */
    private static String randomAsyncCall(java.util.Random r, AsynchronousFileChannel ch) {
        int op = r.nextInt(10);
        long a1 = arg(r);
        long a2 = arg(r);
        ByteBuffer b = buffer(r);
        boolean shared = r.nextBoolean();
        String name = switch (op) {
            case 0 -> "read(" + a1 + ")";
            case 1 -> "write(" + a1 + ")";
            case 2 -> "read(" + a1 + ", handler)";
            case 3 -> "write(" + a1 + ", handler)";
            case 4 -> "size()";
            case 5 -> "truncate(" + a1 + ")";
            case 6 -> "force";
            case 7 -> "lock(" + a1 + ", " + a2 + ", " + shared + ")";
            case 8 -> "tryLock(" + a1 + ", " + a2 + ", " + shared + ")";
            default -> "lock(" + a1 + ", " + a2 + ", " + shared + ", handler)";
        };
        String o = outcome(() -> switch (op) {
            case 0 -> get(ch.read(b, a1)) + " " + contents(b);
            case 1 -> get(ch.write(b, a1)) + " " + describe(b);
            case 2 -> handled(h -> ch.read(b, a1, "r", h)) + " " + contents(b);
            case 3 -> handled(h -> ch.write(b, a1, "w", h)) + " " + describe(b);
            case 4 -> ch.size();
            case 5 -> ch.truncate(a1).size();
            case 6 -> {
                ch.force(a1 % 2 == 0);
                yield "done";
            }
            case 7 -> released((java.nio.channels.FileLock) get(ch.lock(a1, a2, shared)));
            case 8 -> released(ch.tryLock(a1, a2, shared));
            default -> {
                CompletableFuture<java.nio.channels.FileLock> f = new CompletableFuture<>();
                ch.lock(a1, a2, shared, "l", new java.nio.channels.CompletionHandler<java.nio.channels.FileLock, String>() {
                    @Override
                    public void completed(java.nio.channels.FileLock l, String a) {
                        f.complete(l);
                    }

                    @Override
                    public void failed(Throwable t, String a) {
                        f.completeExceptionally(t);
                    }
                });
                yield released((java.nio.channels.FileLock) get(f));
            }
        });
        return name + ": " + o;
    }

    /** As {@link #randomSequencesOfCallsAgreeForFileChannel}, for the asynchronous channel (futures and handlers). */
    @Test
    void randomSequencesOfCallsAgreeForAsynchronousFileChannel() throws Exception {
        for (int part = 0; part < 5; part++) {
            int first = part * 100;
            agree("random-async-" + first, (kind, d, out) -> {
                for (int seed = first; seed < first + 100; seed++) {
                    java.util.Random r = new java.util.Random(seed);
                    Set<OpenOption> options = randomOptions(r);
                    Path p = d.resolve("f" + seed);
                    Files.write(p, pattern(r.nextInt(3) == 0 ? 0 : r.nextInt(30_000), seed));
                    out.add("seed " + seed + " " + options);
                    AsynchronousFileChannel ch;
                    try {
                        ch = kind.openAsync(p, options, null);
                    } catch (Exception e) {
                        out.add("open: ! " + e.getClass().getName());
                        continue;
                    }
                    try (ch) {
                        for (int calls = 1 + r.nextInt(12); calls > 0; calls--) {
                            out.add(randomAsyncCall(r, ch));
                        }
                    }
                    out.add("then " + state(p));
                }
            });
        }
    }

    // ================================================================================= asynchronous channel

    /**
     * The executor named at open, shut down before a call: the JDK's channel hands each operation to it and so throws
     * its {@code RejectedExecutionException} from the call (a closed channel's handler call: the JDK's
     * {@code ShutdownChannelGroupException}); what already runs on it still completes.
     */
    @Test
    void aShutDownExecutorIsSaidAsTheJdkSaysIt() throws Exception {
        agree("async-shut-down-executor", (kind, d, out) -> {
            Path p = d.resolve("f");
            Files.write(p, pattern(100, 17));
            java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newFixedThreadPool(2);
            try (AsynchronousFileChannel ch = kind.openAsync(p, Set.of(READ, WRITE), ex)) {
                out.add("before: " + outcome(() -> get(ch.read(ByteBuffer.allocate(5), 0))));
                ex.shutdown();
                out.add("read future: " + outcome(() -> get(ch.read(ByteBuffer.allocate(5), 0))));
                out.add("read handler: " + outcome(() -> handled(h -> ch.read(ByteBuffer.allocate(5), 0, "r", h))));
                out.add("write future: " + outcome(() -> get(ch.write(ByteBuffer.wrap(pattern(5, 18)), 0))));
                out.add("write handler: " + outcome(() -> handled(h -> ch.write(ByteBuffer.wrap(pattern(5, 18)), 0, "w", h))));
                out.add("read(empty) future: " + outcome(() -> get(ch.read(ByteBuffer.allocate(0), 0))));
                out.add("read(empty) handler: " + outcome(() -> handled(h -> ch.read(ByteBuffer.allocate(0), 0, "r", h))));
                out.add("read(-1): " + outcome(() -> ch.read(ByteBuffer.allocate(5), -1)));
                out.add("read(read-only): " + outcome(() -> ch.read(ByteBuffer.allocate(5).asReadOnlyBuffer(), 0)));
                out.add("lock future: " + outcome(() -> get(ch.lock())));
                out.add("lock handler: " + outcome(() -> {
                    CompletableFuture<String> f = new CompletableFuture<>();
                    ch.lock("l", new java.nio.channels.CompletionHandler<java.nio.channels.FileLock, String>() {
                        @Override
                        public void completed(java.nio.channels.FileLock l, String a) {
                            f.complete("locked");
                        }

                        @Override
                        public void failed(Throwable t, String a) {
                            f.complete("failed " + t.getClass().getName());
                        }
                    });
                    return f.get(Conform.WAIT_SECONDS, TimeUnit.SECONDS);
                }));
                out.add("tryLock: " + outcome(() -> {
                    java.nio.channels.FileLock l = ch.tryLock();
                    l.release();
                    return "released";
                }));
                out.add("size: " + outcome(ch::size));
                ch.close();
                out.add("closed, read future: " + outcome(() -> get(ch.read(ByteBuffer.allocate(5), 0))));
                out.add("closed, read handler: " + outcome(() -> handled(h -> ch.read(ByteBuffer.allocate(5), 0, "r", h))));
            } finally {
                ex.shutdownNow();
            }
            out.add("then " + state(p));
        });
    }

    /** An action on an asynchronous channel; what returns a future is waited for. */
    @FunctionalInterface
    interface AsyncAction {
        Object run(AsynchronousFileChannel ch) throws Throwable;
    }

    record AsyncAct(String name, AsyncAction action) {
    }

    static List<AsyncAct> asyncActions() {
        List<AsyncAct> a = new ArrayList<>();
        a.add(new AsyncAct("read(null)", ch -> ch.read(null, 0)));
        a.add(new AsyncAct("read(-1)", ch -> ch.read(ByteBuffer.allocate(5), -1)));
        a.add(new AsyncAct("read(read-only)", ch -> ch.read(ByteBuffer.allocate(5).asReadOnlyBuffer(), 0)));
        a.add(new AsyncAct("read(0)", ch -> get(ch.read(ByteBuffer.allocate(5), 0))));
        a.add(new AsyncAct("read(empty)", ch -> get(ch.read(ByteBuffer.allocate(0), 0))));
        a.add(new AsyncAct("read(size)", ch -> get(ch.read(ByteBuffer.allocate(5), 100))));
        a.add(new AsyncAct("read(past)", ch -> get(ch.read(ByteBuffer.allocateDirect(5), 1000))));
        a.add(new AsyncAct("write(null)", ch -> ch.write(null, 0)));
        a.add(new AsyncAct("write(-1)", ch -> ch.write(ByteBuffer.allocate(5), -1)));
        a.add(new AsyncAct("write(0)", ch -> get(ch.write(ByteBuffer.wrap(pattern(5, 14)), 0))));
        a.add(new AsyncAct("write(past)", ch -> get(ch.write(ByteBuffer.wrap(pattern(5, 15)).asReadOnlyBuffer(),
                1000))));
        a.add(new AsyncAct("write(empty)", ch -> get(ch.write(ByteBuffer.allocate(0), 0))));
        a.add(new AsyncAct("size()", AsynchronousFileChannel::size));
        a.add(new AsyncAct("truncate(-1)", ch -> ch.truncate(-1)));
        a.add(new AsyncAct("truncate(50)", ch -> ch.truncate(50).size()));
        a.add(new AsyncAct("truncate(past)", ch -> ch.truncate(1000).size()));
        a.add(new AsyncAct("force(true)", ch -> {
            ch.force(true);
            return null;
        }));
        a.add(new AsyncAct("lock()", ch -> get(ch.lock())));
        a.add(new AsyncAct("lock(shared)", ch -> get(ch.lock(0, 10, true))));
        a.add(new AsyncAct("lock(-1)", ch -> ch.lock(-1, 10, true)));
        a.add(new AsyncAct("lock(overflow)", ch -> ch.lock(Long.MAX_VALUE, 10, false)));
        a.add(new AsyncAct("lock(twice)", ch -> {
            get(ch.lock(0, 10, true));
            return get(ch.lock(5, 10, true));
        }));
        a.add(new AsyncAct("tryLock()", AsynchronousFileChannel::tryLock));
        a.add(new AsyncAct("tryLock(shared)", ch -> ch.tryLock(0, 10, true)));
        a.add(new AsyncAct("tryLock(5, 0)", ch -> ch.tryLock(5, 0, false)));
        a.add(new AsyncAct("read(handler null)", ch -> {
            ch.read(ByteBuffer.allocate(5), 0, null, null);
            return null;
        }));
        a.add(new AsyncAct("write(handler null)", ch -> {
            ch.write(ByteBuffer.allocate(5), 0, null, null);
            return null;
        }));
        a.add(new AsyncAct("lock(handler null)", ch -> {
            ch.lock(0, 10, true, null, null);
            return null;
        }));
        return a;
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"READ_ONLY", "WRITE_ONLY", "READ_WRITE", "CLOSED"})
    void everyArgumentEdgeAgreesForAsynchronousFileChannel(Mode mode) throws Exception {
        agree("async-edges-" + mode, (kind, d, out) -> {
            int i = 0;
            for (AsyncAct act : asyncActions()) {
                Path p = d.resolve(String.valueOf(i++));
                Files.write(p, pattern(100, 16));
                String line;
                AsynchronousFileChannel ch = kind.openAsync(p, mode.options, null);
                try {
                    if (mode == Mode.CLOSED) {
                        ch.close();
                    }
                    line = act.name() + ": " + outcome(() -> act.action().run(ch));
                    line += ch.isOpen() ? " size " + outcome(ch::size) : " closed";
                } finally {
                    ch.close();
                }
                out.add(line + " then " + state(p));
            }
        });
    }
}
