package io.github.uring4j.nio;

import static io.github.uring4j.nio.Conform.await;
import static io.github.uring4j.nio.Conform.join;
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
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.uring4j.engine.KernelCopy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileChannel.MapMode;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the JDK documents for {@link FileChannel}, as tests that any channel with its contract must pass.
 * {@link JdkFileChannelTest} runs them on the JDK's channel (the reference: where it does something the
 * documentation leaves open, these tests say what it does and expect that) and {@link UringFileChannelTest} on
 * uring4j's. Numbers in names are the project's reliability cases.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class FileChannelContract {
    @TempDir
    Path dir;

    /** Where the channels under test come from. */
    abstract Kind kind();

    FileChannel open(Path p, OpenOption... o) throws IOException {
        return kind().open(p, o);
    }

    FileChannel open(Path p, Set<? extends OpenOption> o, FileAttribute<?>... a) throws IOException {
        return kind().open(p, o, a);
    }

    Path file(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    static byte[] read(FileChannel ch, long position, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b, position + b.position()) < 0) {
                break;
            }
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    static byte[] range(byte[] b, int from, int n) {
        return Arrays.copyOfRange(b, from, from + n);
    }

    @AfterEach
    void nothingLeftOpen() throws IOException {
        assertEquals(List.of(), Conform.fdsUnder(dir), "descriptors left open under the test's directory");
    }

    // ============================================================================================ opening

    @Test
    void noOptionsOpensForReadingOnly() throws Exception {
        Path p = file("f", pattern(100, 1));
        try (FileChannel ch = open(p)) {
            assertEquals(100, ch.read(ByteBuffer.allocate(200)));
            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1)));
        }
        try (FileChannel ch = open(p, Set.of())) {
            assertEquals(100, ch.size());
            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1), 0));
        }
    }

    @Test
    void missingFileIsNoSuchFileNamingThePath() {
        Path p = dir.resolve("missing");
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> open(p, READ));
        assertEquals(p.toString(), e.getFile());
        assertThrows(NoSuchFileException.class, () -> open(p, WRITE));
        assertThrows(NoSuchFileException.class, () -> open(dir.resolve("no/such/parent"), WRITE, CREATE));
        assertFalse(Files.exists(p));
    }

    /** CREATE is ignored unless the channel is opened for writing (the JDK's javadoc of StandardOpenOption). */
    @Test
    void createWithoutWriteDoesNotCreate() {
        Path p = dir.resolve("missing");
        assertThrows(NoSuchFileException.class, () -> open(p, READ, CREATE));
        assertThrows(NoSuchFileException.class, () -> open(p, READ, CREATE_NEW));
        assertFalse(Files.exists(p));
    }

    @Test
    void createMakesAMissingFileAndKeepsAnExistingOne() throws Exception {
        Path p = dir.resolve("new");
        try (FileChannel ch = open(p, WRITE, CREATE)) {
            assertEquals(0, ch.size());
            ch.write(ByteBuffer.wrap(pattern(10, 2)));
        }
        try (FileChannel ch = open(p, WRITE, CREATE)) {
            assertEquals(10, ch.size());
            assertEquals(0, ch.position());
        }
        assertArrayEquals(pattern(10, 2), Files.readAllBytes(p));
    }

    @Test
    void createNewFailsOnAnExistingFileOrLink() throws Exception {
        Path p = file("f", pattern(10, 3));
        FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class,
                () -> open(p, WRITE, CREATE_NEW));
        assertEquals(p.toString(), e.getFile());
        assertThrows(FileAlreadyExistsException.class, () -> open(p, WRITE, CREATE, CREATE_NEW));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        assertThrows(FileAlreadyExistsException.class, () -> open(dangling, WRITE, CREATE_NEW));
        assertFalse(Files.exists(dir.resolve("nowhere")));
        assertArrayEquals(pattern(10, 3), Files.readAllBytes(p));
        try (FileChannel ch = open(dir.resolve("fresh"), WRITE, CREATE_NEW, SPARSE)) {
            assertEquals(0, ch.size());
        }
    }

    @Test
    void truncateExistingEmptiesOnlyAFileOpenedForWriting() throws Exception {
        Path p = file("f", pattern(100, 4));
        try (FileChannel ch = open(p, READ, TRUNCATE_EXISTING)) {
            assertEquals(100, ch.size());
        }
        try (FileChannel ch = open(p, WRITE, TRUNCATE_EXISTING)) {
            assertEquals(0, ch.size());
        }
        assertEquals(0, Files.size(p));
    }

    @Test
    void appendWithReadOrTruncateExistingIsRejected() throws Exception {
        Path p = file("f", pattern(100, 5));
        assertThrows(IllegalArgumentException.class, () -> open(p, READ, APPEND));
        assertThrows(IllegalArgumentException.class, () -> open(p, READ, WRITE, APPEND));
        assertThrows(IllegalArgumentException.class, () -> open(p, WRITE, APPEND, TRUNCATE_EXISTING));
        assertEquals(100, Files.size(p));
    }

    @Test
    void deleteOnCloseRemovesTheFileWhenTheChannelCloses() throws Exception {
        Path p = file("f", pattern(100, 6));
        FileChannel ch = open(p, READ, WRITE, DELETE_ON_CLOSE);
        ch.write(ByteBuffer.wrap(pattern(10, 7)), 200);
        assertEquals(210, ch.size());
        ch.close();
        assertFalse(Files.exists(p));
        ch.close();
    }

    /**
     * SYNC, DSYNC, APPEND and DIRECT become the kernel's open flags. (The JDK does not open files close-on-exec: it
     * closes every descriptor in the child when it starts a process.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"SYNC", "DSYNC", "APPEND", "DIRECT", "NONE"})
    void optionsReachTheKernelAsOpenFlags(String option) throws Exception {
        Path p = file("f", new byte[8192]);
        Set<OpenOption> o = new HashSet<>(Set.of(WRITE));
        int want = switch (option) {
            case "SYNC" -> {
                o.add(SYNC);
                yield 04010000;
            }
            case "DSYNC" -> {
                o.add(DSYNC);
                yield 010000;
            }
            case "APPEND" -> {
                o.add(APPEND);
                yield 02000;
            }
            case "DIRECT" -> {
                o.add(Conform.DIRECT);
                yield 040000;
            }
            default -> 0;
        };
        try (FileChannel ch = open(p, o)) {
            Set<Integer> fds = Conform.fdsOf(p);
            assertEquals(1, fds.size(), "descriptors of the file while one channel is open: " + fds);
            int flags = Conform.openFlags(fds.iterator().next());
            assertEquals(want, flags & want, "flags " + Integer.toOctalString(flags));
            assertEquals(01, flags & 03, "O_WRONLY in " + Integer.toOctalString(flags));
            if (!option.equals("DIRECT")) {
                ch.write(ByteBuffer.wrap(pattern(10, 8)));
                ch.force(false);
            }
        }
        assertEquals(Set.of(), Conform.fdsOf(p));
    }

    /**
     * A file that says it is empty but has bytes to read (/proc): {@code transferFrom} between two channels of the
     * kind copies what a read gives (before: two channels of ours copied nothing, the JDK's every byte).
     */
    @Test
    void aTransferFromAFileThatSaysItIsEmptyCopiesWhatItReads() throws Exception {
        Path proc = Path.of("/proc/filesystems");
        byte[] expect = Files.readAllBytes(proc);
        Path copy = dir.resolve("proc-copy");
        try (FileChannel src = open(proc, READ); FileChannel dst = open(copy, CREATE, WRITE)) {
            assertEquals(0, src.size(), "/proc says its files are empty");
            assertEquals(expect.length, dst.transferFrom(src, 0, 1 << 20));
            assertEquals(expect.length, src.position());
        }
        assertArrayEquals(expect, Files.readAllBytes(copy));
    }

    /**
     * A block device has the device's size (its {@code statx} says 0), and transfers from any position in it move its
     * bytes (before: ours said 0, and a transfer from past 0 moved nothing). Skipped where no loop device can be
     * attached.
     */
    @Test
    void aBlockDeviceHasItsSizeAndTransfersFromAnywhereInIt() throws Exception {
        byte[] content = pattern(3 * 4096 + 17, 44);
        int bytes = 8 << 20;
        Path dev = io.github.uring4j.file.TestFiles.loopDevice(dir, bytes, content);
        try (FileChannel ch = open(dev, READ); FileChannel out = open(dir.resolve("from-device"), CREATE, WRITE, READ)) {
            assertEquals(bytes, ch.size());
            long at = 5 * 4096 + 3;
            assertEquals(1 << 20, ch.transferTo(at, 1 << 20, out));
            assertEquals(100, ch.transferTo(bytes - 100, 1 << 20, out));
            ByteBuffer got = ByteBuffer.allocate((1 << 20) + 100);
            while (got.hasRemaining() && out.read(got, got.position()) > 0) {
                // until all of it is read
            }
            for (int i = 0; i < got.capacity(); i++) {
                long from = i < (1 << 20) ? at + i : bytes - 100 + (i - (1 << 20));
                assertEquals(content[(int) (from % content.length)], got.get(i), "byte " + i);
            }
        } finally {
            io.github.uring4j.file.TestFiles.detach(dev);
        }
    }

    /** The JDK throws a plain IOException here, not a FileSystemException: what ELOOP becomes with NOFOLLOW. */
    @Test
    void noFollowLinksRefusesASymbolicLinkAndOpensAFile() throws Exception {
        Path target = file("target", pattern(10, 9));
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        IOException e = assertThrows(IOException.class, () -> open(link, READ, LinkOption.NOFOLLOW_LINKS));
        assertEquals(IOException.class, e.getClass());
        try (FileChannel ch = open(target, READ, LinkOption.NOFOLLOW_LINKS)) {
            assertEquals(10, ch.size());
        }
        try (FileChannel ch = open(link, READ)) {
            assertEquals(10, ch.size());
        }
    }

    @Test
    void posixPermissionsApplyToANewFileOnly() throws Exception {
        Set<PosixFilePermission> perms = PosixFilePermissions.fromString("rw-r-----");
        FileAttribute<Set<PosixFilePermission>> attr = PosixFilePermissions.asFileAttribute(perms);
        Path ours = dir.resolve("ours");
        Path jdks = dir.resolve("jdks");
        open(ours, Set.of(WRITE, CREATE_NEW), attr).close();
        FileChannel.open(jdks, Set.of(WRITE, CREATE_NEW), attr).close();
        assertEquals(Files.getPosixFilePermissions(jdks), Files.getPosixFilePermissions(ours));
        assertTrue(perms.containsAll(Files.getPosixFilePermissions(ours)), "umask only takes away");
        Path existing = file("existing", new byte[1]);
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rw-rw-rw-"));
        open(existing, Set.of(WRITE, CREATE), attr).close();
        assertEquals(PosixFilePermissions.fromString("rw-rw-rw-"), Files.getPosixFilePermissions(existing));
    }

    @Test
    void unsupportedAttributeOrOptionIsRejectedBeforeCreating() {
        Path p = dir.resolve("never");
        FileAttribute<String> acl = new FileAttribute<>() {
            @Override
            public String name() {
                return "acl:acl";
            }

            @Override
            public String value() {
                return "none";
            }
        };
        assertThrows(UnsupportedOperationException.class, () -> open(p, Set.of(WRITE, CREATE), acl));
        OpenOption custom = new OpenOption() {
        };
        assertThrows(UnsupportedOperationException.class, () -> open(p, WRITE, CREATE, custom));
        assertFalse(Files.exists(p));
        assertThrows(NullPointerException.class, () -> open(null, READ));
        assertThrows(NullPointerException.class, () -> open(p, (OpenOption) null));
        // a null array of attributes: uring4j's channel took it for none and made the file
        assertThrows(NullPointerException.class, () -> open(p, Set.of(WRITE, CREATE_NEW), (FileAttribute<?>[]) null));
        assertFalse(Files.exists(p));
    }

    /** FileChannel.open(Path, OpenOption...) collects the options into a set: a repeated option is harmless. */
    @Test
    void repeatedOptionsAreAccepted() throws Exception {
        Path p = file("f", pattern(10, 10));
        try (FileChannel ch = open(p, READ, READ, WRITE, WRITE)) {
            assertEquals(10, ch.size());
        }
    }

    /** Databases fsync a directory after creating a file in it: open it for reading, force, close. */
    @Test
    void directoryOpensForReadingAndForcesButDoesNotRead() throws Exception {
        try (FileChannel ch = open(dir, READ)) {
            ch.force(true);
            ch.force(false);
            IOException e = assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(10)));
            assertEquals(IOException.class, e.getClass(), "the JDK's class for EISDIR on read");
        }
        assertThrows(FileSystemException.class, () -> open(dir, WRITE));
    }

    /**
     * Root ignores file modes, so when the tests run as root the opening happens in a second JVM without the
     * capabilities that allow that (setpriv); otherwise here.
     */
    @Test
    void accessDeniedIsAccessDeniedException() throws Exception {
        Path unreadable = file("unreadable", pattern(10, 11));
        Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("-w-------"));
        Path readOnly = file("readonly", pattern(10, 12));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r--r--r--"));
        String denied = "! " + AccessDeniedException.class.getName();
        if (!isRoot()) {
            assertEquals(denied, Conform.outcomeOfStep(() -> open(unreadable, READ).close()));
            assertEquals(denied, Conform.outcomeOfStep(() -> open(readOnly, WRITE).close()));
            return;
        }
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "running as root and no setpriv to drop the capabilities that ignore file modes");
        try (SecondProcess p = SecondProcess.start(List.of("/usr/bin/setpriv", "--inh-caps=-all",
                "--bounding-set=-all", "--"))) {
            assertEquals(denied, p.ask("open " + kind() + " SYNC " + unreadable + " READ"));
            assertEquals(denied, p.ask("open " + kind() + " SYNC " + readOnly + " WRITE"));
            assertEquals("= 10", p.ask("open " + kind() + " SYNC " + readOnly + " READ"));
        }
    }

    static boolean isRoot() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("Uid:")) {
                return l.split("\\s+")[2].equals("0");
            }
        }
        return false;
    }

    // ================================================================================ buffers, read and write

    /** Every kind of buffer a caller may hand over, with {@code n} bytes remaining. */
    enum BufferKind {
        HEAP, HEAP_SLICE, DIRECT, DIRECT_ODD_ADDRESS, DUPLICATE, GLOBAL_SEGMENT, SHARED_SEGMENT, CONFINED_SEGMENT;

        ByteBuffer make(int n, Arena shared, Arena confined) {
            return switch (this) {
                case HEAP -> ByteBuffer.allocate(n);
                case HEAP_SLICE -> ByteBuffer.allocate(n + 20).position(7).limit(n + 7).slice();
                case DIRECT -> ByteBuffer.allocateDirect(n);
                case DIRECT_ODD_ADDRESS -> ByteBuffer.allocateDirect(n + 20).position(3).limit(n + 3).slice();
                case DUPLICATE -> ByteBuffer.allocateDirect(n + 10).position(5).limit(n + 5).duplicate();
                case GLOBAL_SEGMENT -> Arena.global().allocate(n).asByteBuffer();
                case SHARED_SEGMENT -> shared.allocate(n).asByteBuffer();
                case CONFINED_SEGMENT -> confined.allocate(n).asByteBuffer();
            };
        }
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void readAndWriteEveryKindOfBuffer(BufferKind kind) throws Exception {
        byte[] data = pattern(10_000, 13);
        Path p = dir.resolve("f");
        try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined();
                FileChannel ch = open(p, READ, WRITE, CREATE)) {
            ByteBuffer src = kind.make(data.length, shared, confined);
            int start = src.position();
            src.put(data).position(start);
            assertEquals(data.length, ch.write(src, 3));
            assertEquals(start + data.length, src.position());
            assertEquals(0, ch.position(), "a positional write leaves the position");
            src.position(start);
            ByteBuffer src2 = src.asReadOnlyBuffer();
            ch.position(10_003);
            assertEquals(data.length, ch.write(src2));
            assertEquals(20_003, ch.position());

            ByteBuffer dst = kind.make(data.length, shared, confined);
            start = dst.position();
            assertEquals(data.length, ch.read(dst, 3));
            assertEquals(start + data.length, dst.position());
            byte[] back = new byte[data.length];
            dst.position(start).get(back);
            assertArrayEquals(data, back);
            dst.position(start);
            ch.position(10_003);
            assertEquals(data.length, ch.read(dst));
            assertEquals(20_003, ch.position());
            dst.position(start).get(back);
            assertArrayEquals(data, back);
        }
        byte[] disk = Files.readAllBytes(p);
        assertEquals(20_003, disk.length);
        assertArrayEquals(new byte[3], range(disk, 0, 3));
        assertArrayEquals(data, range(disk, 3, data.length));
        assertArrayEquals(data, range(disk, 10_003, data.length));
    }

    @Test
    void readIntoAReadOnlyBufferIsIllegalArgumentEvenWhenEmpty() throws Exception {
        Path p = file("f", pattern(10, 14));
        try (FileChannel ch = open(p, READ)) {
            assertThrows(IllegalArgumentException.class, () -> ch.read(ByteBuffer.allocate(5).asReadOnlyBuffer()));
            assertThrows(IllegalArgumentException.class, () -> ch.read(ByteBuffer.allocate(0).asReadOnlyBuffer()));
            assertThrows(IllegalArgumentException.class,
                    () -> ch.read(ByteBuffer.allocateDirect(5).asReadOnlyBuffer(), 0));
            assertThrows(IllegalArgumentException.class,
                    () -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(5), ByteBuffer.allocate(5).asReadOnlyBuffer()}));
            assertEquals(0, ch.position());
        }
    }

    @Test
    void readsAtAndPastEndOfFile() throws Exception {
        byte[] data = pattern(1024, 15);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ)) {
            ByteBuffer b = ByteBuffer.allocate(4096);
            assertEquals(1024, ch.read(b), "case 1: what is there");
            assertEquals(1024, ch.position());
            assertEquals(-1, ch.read(b.clear()), "case 2: -1 at the end");
            assertEquals(-1, ch.read(b.clear(), 1024));
            assertEquals(-1, ch.read(b.clear(), 1_000_000));
            assertEquals(-1, ch.read(new ByteBuffer[] {b.clear()}));
            assertEquals(100, ch.read(b.clear(), 924));
            assertArrayEquals(range(data, 924, 100), Arrays.copyOf(b.array(), 100));
            // A buffer with no room reads nothing, even where there is nothing to read.
            assertEquals(0, ch.read(ByteBuffer.allocate(0)));
            assertEquals(0, ch.read(ByteBuffer.allocate(0), 1024));
            assertEquals(0, ch.read(ByteBuffer.allocate(0), 1_000_000));
            assertEquals(0, ch.read(new ByteBuffer[] {ByteBuffer.allocate(0)}));
            ch.position(0);
            assertEquals(0, ch.read(ByteBuffer.allocate(0)));
            assertEquals(0, ch.position());
        }
    }

    @Test
    void positionBeyondSizeReadsEndAndWritesAfterAHoleOfZeros() throws Exception {
        byte[] data = pattern(100, 16);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            assertSame(ch, ch.position(10_000));
            assertEquals(10_000, ch.position());
            assertEquals(100, ch.size(), "moving the position does not grow the file");
            assertEquals(-1, ch.read(ByteBuffer.allocate(10)));
            assertEquals(10_000, ch.position());
            assertEquals(5, ch.write(ByteBuffer.wrap(pattern(5, 17))));
            assertEquals(10_005, ch.position());
            assertEquals(10_005, ch.size());
            assertEquals(3, ch.write(ByteBuffer.wrap(pattern(3, 18)), 20_000));
            assertEquals(10_005, ch.position());
            assertEquals(20_003, ch.size());
            assertArrayEquals(new byte[9_900], read(ch, 100, 9_900));
            assertArrayEquals(new byte[9_995], read(ch, 10_005, 9_995));
            assertArrayEquals(pattern(3, 18), read(ch, 20_000, 10));
        }
    }

    @Test
    void positionalReadsAndWritesLeaveThePosition() throws Exception {
        byte[] data = pattern(1000, 19);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            ch.position(17);
            ByteBuffer b = ByteBuffer.allocate(100);
            assertEquals(100, ch.read(b, 500));
            assertArrayEquals(range(data, 500, 100), b.array());
            assertEquals(10, ch.write(ByteBuffer.wrap(pattern(10, 20)), 990));
            assertEquals(17, ch.position());
            assertEquals(1000, ch.size());
        }
    }

    @Test
    void negativePositionsAreIllegalArgumentsAndBadArrayRangesAreOutOfBounds() throws Exception {
        Path p = file("f", pattern(100, 21));
        try (FileChannel ch = open(p, READ, WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(10);
            ByteBuffer[] two = {ByteBuffer.allocate(5), ByteBuffer.allocate(5)};
            assertThrows(IllegalArgumentException.class, () -> ch.read(b, -1));
            assertThrows(IllegalArgumentException.class, () -> ch.write(b, -1));
            assertThrows(IllegalArgumentException.class, () -> ch.position(-1));
            assertThrows(IllegalArgumentException.class, () -> ch.truncate(-1));
            assertThrows(IllegalArgumentException.class, () -> ch.transferTo(-1, 1, Channels.newChannel(
                    new ByteArrayOutputStream())));
            assertThrows(IllegalArgumentException.class, () -> ch.transferTo(0, -1, Channels.newChannel(
                    new ByteArrayOutputStream())));
            assertThrows(IllegalArgumentException.class, () -> ch.transferFrom(Channels.newChannel(
                    new ByteArrayInputStream(new byte[1])), -1, 1));
            assertThrows(IllegalArgumentException.class, () -> ch.transferFrom(Channels.newChannel(
                    new ByteArrayInputStream(new byte[1])), 0, -1));
            assertThrows(IllegalArgumentException.class, () -> ch.map(MapMode.READ_ONLY, -1, 1));
            assertThrows(IllegalArgumentException.class, () -> ch.map(MapMode.READ_ONLY, 0, -1));
            assertThrows(IllegalArgumentException.class, () -> ch.lock(-1, 1, false));
            assertThrows(IllegalArgumentException.class, () -> ch.tryLock(0, -1, false));
            assertThrows(IllegalArgumentException.class, () -> ch.lock(Long.MAX_VALUE, 10, false));
            for (int[] r : new int[][] {{-1, 1}, {0, -1}, {1, 2}, {3, 0}, {0, 3}}) {
                assertThrows(IndexOutOfBoundsException.class, () -> ch.read(two, r[0], r[1]), Arrays.toString(r));
                assertThrows(IndexOutOfBoundsException.class, () -> ch.write(two, r[0], r[1]), Arrays.toString(r));
            }
            assertEquals(0, ch.read(two, 2, 0), "an empty range at the end is in bounds");
            assertEquals(0, ch.write(two, 0, 0));
            assertEquals(0, ch.position());
            assertEquals(100, ch.size());
        }
    }

    @Test
    void nullBuffersAreNullPointers() throws Exception {
        Path p = file("f", pattern(100, 22));
        try (FileChannel ch = open(p, READ, WRITE)) {
            assertThrows(NullPointerException.class, () -> ch.read((ByteBuffer) null));
            assertThrows(NullPointerException.class, () -> ch.read(null, 0));
            assertThrows(NullPointerException.class, () -> ch.write((ByteBuffer) null));
            assertThrows(NullPointerException.class, () -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(1), null}));
            assertThrows(NullPointerException.class, () -> ch.write(new ByteBuffer[] {null}));
            assertThrows(NullPointerException.class, () -> ch.read((ByteBuffer[]) null));
            assertThrows(NullPointerException.class, () -> ch.transferTo(0, 1, null));
            assertThrows(NullPointerException.class, () -> ch.transferFrom(null, 0, 1));
            assertThrows(NullPointerException.class, () -> ch.map(null, 0, 1));
            assertEquals(100, ch.size());
        }
    }

    @Test
    void scatteringReadFillsTheChosenBuffersInOrder() throws Exception {
        byte[] data = pattern(1000, 23);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ)) {
            ByteBuffer skip = ByteBuffer.allocate(50);
            ByteBuffer a = ByteBuffer.allocate(100);
            ByteBuffer full = ByteBuffer.allocate(10).position(10);
            ByteBuffer b = ByteBuffer.allocateDirect(200);
            ByteBuffer c = ByteBuffer.allocate(300).position(100).limit(250);
            ByteBuffer after = ByteBuffer.allocate(50);
            ch.position(10);
            assertEquals(450L, ch.read(new ByteBuffer[] {skip, a, full, b, c, after}, 1, 4));
            assertEquals(460, ch.position());
            assertEquals(0, skip.position());
            assertEquals(0, after.position());
            assertArrayEquals(range(data, 10, 100), a.array());
            byte[] bb = new byte[200];
            b.flip().get(bb);
            assertArrayEquals(range(data, 110, 200), bb);
            assertArrayEquals(range(data, 310, 150), Arrays.copyOfRange(c.array(), 100, 250));
            // Past the end: what is left, then -1.
            ByteBuffer big1 = ByteBuffer.allocate(400);
            ByteBuffer big2 = ByteBuffer.allocate(400);
            assertEquals(540L, ch.read(new ByteBuffer[] {big1, big2}));
            assertEquals(400, big1.position());
            assertEquals(140, big2.position());
            assertEquals(-1L, ch.read(new ByteBuffer[] {big1.clear(), big2.clear()}));
            assertEquals(-1L, ch.read(new ByteBuffer[] {big1.clear()}, 0, 1));
            assertEquals(0L, ch.read(new ByteBuffer[] {ByteBuffer.allocate(0), full}));
            assertEquals(0L, ch.read(new ByteBuffer[0]));
        }
    }

    @Test
    void gatheringWriteWritesTheChosenBuffersInOrder() throws Exception {
        Path p = dir.resolve("f");
        byte[] x = pattern(100, 24);
        byte[] y = pattern(200, 25);
        byte[] z = pattern(300, 26);
        try (FileChannel ch = open(p, WRITE, CREATE)) {
            ByteBuffer direct = ByteBuffer.allocateDirect(200).put(y).flip();
            ByteBuffer[] srcs = {ByteBuffer.wrap(pattern(7, 27)), ByteBuffer.wrap(x).asReadOnlyBuffer(),
                ByteBuffer.allocate(0), direct, ByteBuffer.wrap(z, 50, 200), ByteBuffer.wrap(pattern(7, 28))};
            ch.position(5);
            assertEquals(500L, ch.write(srcs, 1, 4));
            assertEquals(505, ch.position());
            assertEquals(0, srcs[0].position());
            assertEquals(0, srcs[5].position());
            assertFalse(srcs[1].hasRemaining() || srcs[3].hasRemaining() || srcs[4].hasRemaining());
            assertEquals(0L, ch.write(srcs, 1, 4), "nothing left to write");
            assertEquals(14L, ch.write(new ByteBuffer[] {srcs[0], srcs[5]}));
        }
        byte[] disk = Files.readAllBytes(p);
        assertEquals(519, disk.length);
        assertArrayEquals(x, range(disk, 5, 100));
        assertArrayEquals(y, range(disk, 105, 200));
        assertArrayEquals(range(z, 50, 200), range(disk, 305, 200));
        assertArrayEquals(pattern(7, 27), range(disk, 505, 7));
    }

    /** A regular file's read or write is never short while there is data or room: the channel finishes it. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void largeReadsAndWritesAreWhole(boolean direct) throws Exception {
        int n = 16 << 20;
        byte[] data = pattern(n, 29);
        Path p = dir.resolve("f");
        try (FileChannel ch = open(p, READ, WRITE, CREATE)) {
            ByteBuffer src = direct ? ByteBuffer.allocateDirect(n).put(data).flip() : ByteBuffer.wrap(data);
            assertEquals(n, ch.write(src));
            ByteBuffer dst = direct ? ByteBuffer.allocateDirect(n + 10) : ByteBuffer.allocate(n + 10);
            assertEquals(n, ch.read(dst, 0));
            byte[] back = new byte[n];
            dst.flip().get(back);
            assertArrayEquals(data, back);
        }
    }

    @Test
    void readingAChannelNotOpenForReadingIsNonReadable() throws Exception {
        Path p = file("f", pattern(100, 30));
        for (Set<OpenOption> o : List.of(Set.<OpenOption>of(WRITE), Set.<OpenOption>of(WRITE, APPEND))) {
            try (FileChannel ch = open(p, o)) {
                assertThrows(NonReadableChannelException.class, () -> ch.read(ByteBuffer.allocate(1)));
                assertThrows(NonReadableChannelException.class, () -> ch.read(ByteBuffer.allocate(1), 0));
                assertThrows(NonReadableChannelException.class, () -> ch.read(new ByteBuffer[] {
                    ByteBuffer.allocate(1)}));
                assertThrows(NonReadableChannelException.class, () -> ch.read(new ByteBuffer[] {
                    ByteBuffer.allocate(1)}, 0, 1));
                assertThrows(NonReadableChannelException.class, () -> ch.transferTo(0, 1, Channels.newChannel(
                        new ByteArrayOutputStream())));
            }
        }
    }

    @Test
    void writingAChannelNotOpenForWritingIsNonWritable() throws Exception {
        Path p = file("f", pattern(100, 31));
        try (FileChannel ch = open(p, READ)) {
            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1)));
            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1), 0));
            assertThrows(NonWritableChannelException.class, () -> ch.write(new ByteBuffer[] {
                ByteBuffer.allocate(1)}));
            assertThrows(NonWritableChannelException.class, () -> ch.truncate(1));
            assertThrows(NonWritableChannelException.class, () -> ch.transferFrom(Channels.newChannel(
                    new ByteArrayInputStream(new byte[1])), 0, 1));
        }
        assertArrayEquals(pattern(100, 31), Files.readAllBytes(p));
    }

    // ====================================================================================== size, truncate

    @Test
    void truncateToLessShrinksAndClampsThePosition() throws Exception {
        byte[] data = pattern(1000, 32);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            ch.position(800);
            assertSame(ch, ch.truncate(500));
            assertEquals(500, ch.size());
            assertEquals(500, ch.position(), "a position past the new size moves to it");
            ch.position(100);
            ch.truncate(300);
            assertEquals(100, ch.position(), "a position within the new size stays");
            ch.truncate(300);
            assertEquals(300, ch.size());
            ch.truncate(0);
            assertEquals(0, ch.position());
        }
        assertEquals(0, Files.size(p));
    }

    /**
     * A truncate to a size at or past the file's size leaves the file alone, yet the JDK still brings a position
     * past the given size back to it.
     */
    @Test
    void truncateToMoreLeavesTheFileButStillClampsThePosition() throws Exception {
        byte[] data = pattern(1000, 33);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            ch.position(50);
            ch.truncate(5000);
            assertEquals(1000, ch.size());
            assertEquals(50, ch.position());
            ch.position(9000);
            ch.truncate(5000);
            assertEquals(1000, ch.size());
            assertEquals(5000, ch.position());
        }
        assertArrayEquals(data, Files.readAllBytes(p));
    }

    @Test
    void sizeSeesWhatOtherChannelsWrite() throws Exception {
        Path p = file("f", pattern(10, 34));
        try (FileChannel ch = open(p, READ); FileChannel jdk = FileChannel.open(p, WRITE)) {
            assertEquals(10, ch.size());
            jdk.write(ByteBuffer.wrap(pattern(5, 35)), 1000);
            assertEquals(1005, ch.size());
            assertArrayEquals(pattern(5, 35), read(ch, 1000, 5));
            jdk.truncate(3);
            assertEquals(3, ch.size());
        }
    }

    @Test
    void forceWorksOnAnyOpenChannel() throws Exception {
        Path p = file("f", pattern(10, 36));
        try (FileChannel w = open(p, WRITE); FileChannel r = open(p, READ)) {
            w.write(ByteBuffer.wrap(pattern(4096, 37)), 10);
            w.force(true);
            w.force(false);
            r.force(true);
            r.force(false);
        }
        assertEquals(4106, Files.size(p));
    }

    // ============================================================================================== append

    /** In append mode position() is the size; setting it is allowed and has no visible effect. */
    @Test
    void appendWritesAtTheEndAndThePositionIsTheSize() throws Exception {
        Path p = file("f", pattern(100, 38));
        try (FileChannel ch = open(p, WRITE, APPEND); FileChannel other = FileChannel.open(p, WRITE)) {
            assertEquals(100, ch.position());
            ch.position(5);
            assertEquals(100, ch.position());
            assertEquals(10, ch.write(ByteBuffer.wrap(pattern(10, 39))));
            assertEquals(110, ch.position());
            other.write(ByteBuffer.wrap(pattern(50, 40)), 200);
            assertEquals(250, ch.position(), "another writer moved the end");
            assertEquals(20L, ch.write(new ByteBuffer[] {ByteBuffer.wrap(pattern(10, 41)),
                ByteBuffer.wrap(pattern(10, 42))}));
            assertEquals(270, ch.size());
            ch.truncate(260);
            assertEquals(260, ch.position());
        }
        byte[] disk = Files.readAllBytes(p);
        assertArrayEquals(pattern(10, 39), range(disk, 100, 10));
        assertArrayEquals(pattern(10, 41), range(disk, 250, 10));
    }

    /**
     * The javadoc leaves a positional write in append mode unspecified; on Linux the kernel appends it whatever the
     * position (pwrite(2), BUGS), and the JDK lets it.
     */
    @Test
    void positionalWriteInAppendModeAppends() throws Exception {
        Path p = file("f", pattern(100, 43));
        try (FileChannel ch = open(p, WRITE, APPEND)) {
            assertEquals(5, ch.write(ByteBuffer.wrap(pattern(5, 44)), 0));
            assertEquals(105, ch.size());
        }
        byte[] disk = Files.readAllBytes(p);
        assertArrayEquals(pattern(100, 43), range(disk, 0, 100));
        assertArrayEquals(pattern(5, 44), range(disk, 100, 5));
    }

    /** How the appending threads share channels. */
    enum Sharing {
        ONE_CHANNEL, CHANNEL_EACH, HALF_JDK
    }

    /**
     * Many threads append records of many sizes, whole and gathered, heap and direct: every record lands once,
     * whole and not interleaved with another, each thread's in its order.
     */
    @ParameterizedTest
    @EnumSource(Sharing.class)
    void concurrentAppendsLandWholeAndNotInterleaved(Sharing sharing) throws Exception {
        int threads = 8;
        int records = 150;
        Path p = dir.resolve("log");
        Files.write(p, new byte[0]);
        List<FileChannel> channels = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                if (sharing == Sharing.ONE_CHANNEL && t > 0) {
                    channels.add(channels.get(0));
                } else if (sharing == Sharing.HALF_JDK && t % 2 == 1) {
                    channels.add(FileChannel.open(p, WRITE, APPEND));
                } else {
                    channels.add(open(p, WRITE, APPEND));
                }
            }
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                FileChannel ch = channels.get(t);
                CompletableFuture<Void> f = new CompletableFuture<>();
                done.add(f);
                Thread.ofPlatform().name("appender-" + t).start(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < records; i++) {
                            appendRecord(ch, id, i);
                        }
                        f.complete(null);
                    } catch (Throwable e) {
                        f.completeExceptionally(e);
                    }
                });
            }
            go.countDown();
            for (CompletableFuture<Void> f : done) {
                await(f);
            }
        } finally {
            for (FileChannel ch : new HashSet<>(channels)) {
                ch.close();
            }
        }
        ByteBuffer log = ByteBuffer.wrap(Files.readAllBytes(p));
        int[] next = new int[threads];
        int count = 0;
        while (log.hasRemaining()) {
            int start = log.position();
            int id = log.getInt();
            int seq = log.getInt();
            int len = log.getInt();
            assertTrue(id >= 0 && id < threads && len >= 0 && len <= log.remaining() - 8,
                    "a record header at " + start + " is torn: id " + id + " len " + len);
            assertEquals(next[id], seq, "thread " + id + "'s records out of order at " + start);
            byte[] body = new byte[len];
            log.get(body);
            CRC32C crc = new CRC32C();
            crc.update(body);
            assertEquals(crc.getValue(), log.getLong(), "record " + id + "/" + seq + " at " + start + " mixed");
            assertArrayEquals(pattern(len, id * 1000 + seq), body);
            next[id]++;
            count++;
        }
        assertEquals(threads * records, count);
    }

    private static void appendRecord(FileChannel ch, int id, int seq) throws IOException {
        int len = 10 + (seq * 977 + id * 131) % 9000;
        byte[] body = pattern(len, id * 1000 + seq);
        CRC32C crc = new CRC32C();
        crc.update(body);
        ByteBuffer head = ByteBuffer.allocate(12).putInt(id).putInt(seq).putInt(len).flip();
        ByteBuffer tail = ByteBuffer.allocate(8).putLong(crc.getValue()).flip();
        long want = 12 + len + 8;
        switch (seq % 3) {
            case 0 -> {
                ByteBuffer all = ByteBuffer.allocate((int) want).put(head).put(body).put(tail).flip();
                assertEquals(want, ch.write(all));
            }
            case 1 -> {
                ByteBuffer all = ByteBuffer.allocateDirect((int) want).put(head).put(body).put(tail).flip();
                assertEquals(want, ch.write(all));
            }
            default -> assertEquals(want, ch.write(new ByteBuffer[] {head, ByteBuffer.wrap(body), tail}));
        }
    }

    // ================================================================================ closed, close, interrupt

    /** Every operation, each with arguments it would accept on an open channel. */
    static List<Conform.Action> everyOperation(FileChannel ch) {
        WritableByteChannel sink = Channels.newChannel(new ByteArrayOutputStream());
        ReadableByteChannel source = Channels.newChannel(new ByteArrayInputStream(new byte[10]));
        ByteBuffer[] bufs = {ByteBuffer.allocate(1)};
        return List.of(
                () -> ch.read(ByteBuffer.allocate(1)),
                () -> ch.read(ByteBuffer.allocate(1), 0),
                () -> ch.read(bufs),
                () -> ch.read(bufs, 0, 1),
                () -> ch.write(ByteBuffer.allocate(1)),
                () -> ch.write(ByteBuffer.allocate(1), 0),
                () -> ch.write(bufs),
                () -> ch.write(bufs, 0, 1),
                ch::position,
                () -> ch.position(1),
                ch::size,
                () -> ch.truncate(1),
                () -> {
                    ch.force(true);
                    return null;
                },
                () -> {
                    ch.force(false);
                    return null;
                },
                () -> ch.transferTo(0, 1, sink),
                () -> ch.transferFrom(source, 0, 1),
                () -> ch.map(MapMode.READ_ONLY, 0, 1),
                () -> ch.map(MapMode.READ_WRITE, 0, 1, Arena.ofAuto()),
                ch::lock,
                () -> ch.lock(0, 1, true),
                ch::tryLock,
                () -> ch.tryLock(0, 1, true));
    }

    @Test
    void everyOperationOnAClosedChannelIsClosedChannelException() throws Exception {
        Path p = file("f", pattern(10, 45));
        FileChannel ch = open(p, READ, WRITE);
        ch.close();
        assertFalse(ch.isOpen());
        List<Conform.Action> ops = everyOperation(ch);
        for (int i = 0; i < ops.size(); i++) {
            assertEquals("! " + ClosedChannelException.class.getName(), Conform.outcome(ops.get(i)),
                    "operation " + i);
        }
        ch.close();
        assertFalse(ch.isOpen());
        assertArrayEquals(pattern(10, 45), Files.readAllBytes(p));
        assertEquals(Set.of(), Conform.fdsOf(p));
    }

    /**
     * A thread interrupted before it reads or writes closes the channel for everyone and gets
     * ClosedByInterruptException, with its interrupt status still set; other threads then get ClosedChannelException.
     */
    @ParameterizedTest
    @ValueSource(strings = {"read", "positional read", "write", "positional write", "gathering write"})
    void interruptedCallerGetsClosedByInterruptAndTheChannelCloses(String op) throws Exception {
        Path p = file("f", pattern(100, 46));
        for (boolean virtual : new boolean[] {false, true}) {
            try (FileChannel ch = open(p, READ, WRITE)) {
                CompletableFuture<String> got = new CompletableFuture<>();
                (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                    Thread.currentThread().interrupt();
                    String o = Conform.outcome(() -> switch (op) {
                        case "read" -> ch.read(ByteBuffer.allocate(10));
                        case "positional read" -> ch.read(ByteBuffer.allocate(10), 5);
                        case "write" -> ch.write(ByteBuffer.wrap(pattern(10, 47)));
                        case "positional write" -> ch.write(ByteBuffer.wrap(pattern(10, 47)), 5);
                        default -> ch.write(new ByteBuffer[] {ByteBuffer.wrap(pattern(10, 47))});
                    });
                    got.complete(o + " interrupted=" + Thread.currentThread().isInterrupted());
                });
                assertEquals("! " + ClosedByInterruptException.class.getName() + " interrupted=true", await(got),
                        (virtual ? "virtual" : "platform") + " thread");
                assertFalse(ch.isOpen());
                assertThrows(ClosedChannelException.class, () -> ch.read(ByteBuffer.allocate(1), 0));
                assertEquals(ClosedChannelException.class,
                        assertThrows(ClosedChannelException.class, ch::size).getClass());
            }
            assertArrayEquals(pattern(100, 46), Files.readAllBytes(p), "nothing was written");
            assertEquals(Set.of(), Conform.fdsOf(p));
        }
    }

    /**
     * A write to a FIFO whose reader left fails with "Broken pipe" whose stack shows the caller, as the JDK's does
     * (before: ours, made through the ring, carried the event loop's stack alone; found by a hostile probe).
     */
    @Test
    void aFailedWriteSaysWhoMadeIt() throws Exception {
        Path fifo = Conform.fifo(dir, "brokenFifo");
        FileChannel reader = FileChannel.open(fifo, READ, WRITE);
        try (FileChannel writer = open(fifo, WRITE)) {
            reader.close();
            IOException e = assertThrows(IOException.class, () -> writer.write(ByteBuffer.wrap(pattern(10, 51))));
            assertEquals("Broken pipe", e.getMessage());
            assertTrue(java.util.Arrays.stream(e.getStackTrace())
                    .anyMatch(f -> f.getMethodName().equals("aFailedWriteSaysWhoMadeIt")),
                    java.util.Arrays.toString(e.getStackTrace()));
        }
    }

    /**
     * {@code transferFrom} of a channel from itself onto a range that overlaps the source a little further on (2,737
     * bytes), further than a step (9,000) and further back: each byte is written after the bytes before it, as the
     * JDK's copy writes them, so the range repeats the first bytes (before: ours left other bytes 2,737 bytes on;
     * found by a hostile probe). The count and the position agree too.
     */
    @Test
    void aTransferFromItselfOntoAnOverlappingRangeWritesByteAfterByte() throws Exception {
        long[][] cases = {{51_490, 0, 2737, 90_889}, {40_000, 0, 9000, 100_000}, {40_000, 5000, 7000, 100_000},
            {40_000, 7000, 5000, 100_000}};
        for (long[] c : cases) {
            byte[] data = pattern((int) c[0], 50);
            Path p = file("self-" + c[1] + "-" + c[2], data);
            long max = Math.min(c[3], c[0] - c[1]);
            try (FileChannel ch = open(p, READ, WRITE)) {
                ch.position(c[1]);
                assertEquals(max, ch.transferFrom(ch, c[2], c[3]), java.util.Arrays.toString(c));
                assertEquals(c[1] + max, ch.position(), java.util.Arrays.toString(c));
            }
            byte[] expect = java.util.Arrays.copyOf(data, (int) Math.max(c[0], c[2] + max));
            for (int i = 0; i < max; i++) {
                expect[(int) c[2] + i] = expect[(int) c[1] + i];
            }
            assertArrayEquals(expect, Files.readAllBytes(p), java.util.Arrays.toString(c));
        }
    }

    /**
     * A scattering read of a FIFO that holds more than the first buffer takes what it holds into the next buffers too,
     * as the JDK's {@code readv} does (before: ours filled the first buffer only; found by a hostile probe); one that
     * holds exactly the first buffer's worth returns it without waiting for more.
     */
    @Test
    void aScatteringReadOfAFifoTakesWhatItHoldsIntoEveryBuffer() throws Exception {
        Path fifo = Conform.fifo(dir, "scatterFifo");
        byte[] data = pattern(1731, 49);
        try (FileChannel ch = open(fifo, READ, WRITE)) {
            ch.write(ByteBuffer.wrap(data));
            ByteBuffer first = ByteBuffer.allocate(100);
            ByteBuffer second = ByteBuffer.allocateDirect(2000);
            assertEquals(1731, ch.read(new ByteBuffer[] {first, second}));
            byte[] got = new byte[1731];
            first.flip().get(got, 0, 100);
            second.flip().get(got, 100, 1631);
            assertArrayEquals(data, got);
            ch.write(ByteBuffer.wrap(data, 0, 100));
            assertEquals(100, ch.read(new ByteBuffer[] {ByteBuffer.allocate(100), ByteBuffer.allocate(100)}),
                    "exactly the first buffer's worth, without waiting for more");
        }
    }

    /**
     * {@code truncate} of a FIFO fails with "Illegal seek", in append mode too (before: ours returned as if it had
     * truncated, in append mode; found by a hostile probe).
     */
    @Test
    void truncatingAFifoIsAnIllegalSeekInAppendModeToo() throws Exception {
        Path fifo = Conform.fifo(dir, "truncFifo");
        try (FileChannel reader = FileChannel.open(fifo, READ, WRITE)) { // a reader, so that writers open at once
            for (Set<OpenOption> options : List.<Set<OpenOption>>of(Set.of(WRITE), Set.of(WRITE, APPEND))) {
                try (FileChannel ch = open(fifo, options)) {
                    IOException e = assertThrows(IOException.class, () -> ch.truncate(0), options.toString());
                    assertEquals("Illegal seek", e.getMessage(), options.toString());
                }
            }
        }
    }

    /**
     * A thread interrupted while its {@code force} is in the kernel (its {@code fsync} seen in
     * {@code /proc/self/task/<tid>/syscall}, after 64 MiB written) gets ClosedByInterruptException from that call and
     * the channel closes, as the JDK's channel ends a call it began (before: uring4j's returned as if nothing had
     * happened, the channel open and the flag set; found by a hostile probe). Skipped where the sync is too quick to
     * be caught in it (a file system in memory).
     */
    @Test
    void aThreadInterruptedInsideItsSyncGetsClosedByInterrupt() throws Exception {
        Path p = dir.resolve("synced-while-interrupted");
        byte[] mib = pattern(1 << 20, 48);
        for (int attempt = 0; attempt < 5; attempt++) {
            try (FileChannel ch = open(p, CREATE, WRITE, TRUNCATE_EXISTING)) {
                for (int i = 0; i < 64; i++) {
                    ch.write(ByteBuffer.wrap(mib), (long) i << 20);
                }
                CompletableFuture<String> got = new CompletableFuture<>();
                String name = "sync-intr-" + attempt;
                Thread t = Thread.ofPlatform().name(name).start(() -> {
                    String o = Conform.outcome(() -> {
                        ch.force(true);
                        return "synced";
                    });
                    got.complete(o + " interrupted=" + Thread.currentThread().isInterrupted());
                });
                if (!awaitSyscall(name, got, 74, 75, 82, 83)) { // fsync, fdatasync: x86-64, aarch64
                    await(got);
                    continue; // the sync ended before it was seen: again, with new dirty pages
                }
                t.interrupt();
                assertEquals("! " + ClosedByInterruptException.class.getName() + " interrupted=true", await(got));
                assertFalse(ch.isOpen());
                return;
            }
        }
        org.junit.jupiter.api.Assumptions.abort("no sync here lasted long enough to be seen in the kernel");
    }

    /**
     * Waits until the platform thread named {@code name} is inside one of the system calls {@code numbers}
     * ({@code /proc/self/task/<tid>/syscall}); false once {@code ended} completes first.
     */
    private static boolean awaitSyscall(String name, CompletableFuture<?> ended, int... numbers) throws Exception {
        while (!ended.isDone()) {
            try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        if (!Files.readString(task.resolve("comm")).strip().equals(name)) {
                            continue;
                        }
                        String[] call = Files.readString(task.resolve("syscall")).strip().split(" ");
                        for (int n : numbers) {
                            if (call[0].equals(Integer.toString(n))) {
                                return true;
                            }
                        }
                    } catch (IOException e) {
                        // the thread ended meanwhile
                    }
                }
            }
        }
        return false;
    }

    /** A reader that will block: a FIFO opened for reading and writing has no data until someone writes. */
    private record Blocked(FileChannel channel, Thread reader, CompletableFuture<String> outcome) {
    }

    private Blocked blockedReader(Path fifo, boolean virtual) throws Exception {
        FileChannel ch = open(fifo, READ, WRITE);
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread reader = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).name("reader").start(() -> {
            String o = Conform.outcome(() -> ch.read(ByteBuffer.allocate(10)));
            outcome.complete(o + " interrupted=" + Thread.currentThread().isInterrupted());
        });
        Conform.awaitBlockedReading(reader, fifo);
        return new Blocked(ch, reader, outcome);
    }

    /**
     * Whether the JDK's behaviour, not ours, is expected of a virtual thread blocked in a read: the JDK does not
     * signal virtual threads in file I/O (JDK-8321594), so closing or interrupting waits until the read returns by
     * itself. uring4j's channels park the virtual thread and are expected to wake it.
     */
    abstract boolean virtualReadersWaitForTheirRead(FileChannel ch);

    /** Ends the read of {@code b} the way it would end by itself: data arrives. */
    private static void feed(Path fifo) throws IOException {
        try (FileChannel w = FileChannel.open(fifo, WRITE)) {
            w.write(ByteBuffer.wrap(new byte[] {1}));
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void closeWakesAReaderBlockedInAnotherThreadWithAsynchronousClose(boolean virtual) throws Exception {
        Path fifo = Conform.fifo(dir, "fifo");
        Blocked b = blockedReader(fifo, virtual);
        boolean waits = virtual && virtualReadersWaitForTheirRead(b.channel());
        Thread closer = Thread.ofPlatform().name("closer").start(() -> {
            try {
                b.channel().close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        if (waits) {
            // The JDK's close waits for the virtual reader; the read then returns what arrives, as if never closed.
            Conform.until(() -> !b.channel().isOpen(), "the close beginning");
            feed(fifo);
            assertEquals("= 1 interrupted=false", await(b.outcome()));
        } else {
            assertEquals("! " + AsynchronousCloseException.class.getName() + " interrupted=false",
                    await(b.outcome()));
        }
        join(closer, "close");
        join(b.reader(), "the reader");
        assertFalse(b.channel().isOpen());
        assertEquals(Set.of(), Conform.fdsOf(fifo));
    }

    /**
     * A platform thread writing into a FIFO nobody reads, whose write waits for room once the pipe is full: closing
     * the channel from another thread ends that write with {@code AsynchronousCloseException}, after the bytes the
     * pipe took were reported written. (uring4j's channel made such a write with a plain blocking call when the FIFO
     * refused {@code RWF_NOWAIT}, and its close then waited for the write for ever.)
     */
    @Test
    void closeEndsAWriteWaitingForRoomInAFifo() throws Exception {
        Path fifo = Conform.fifo(dir, "fifo");
        FileChannel ch = open(fifo, READ, WRITE);
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread writer = Thread.ofPlatform().name("writer").start(() -> outcome.complete(Conform.outcome(() -> {
            ByteBuffer b = ByteBuffer.allocate(16384);
            while (true) {
                b.clear();
                written.addAndGet(ch.write(b));
            }
        })));
        Conform.until(() -> written.get() >= 65536, "the pipe filling up");
        Thread.sleep(100); // the writer's next write waits for room
        assertFalse(outcome.isDone(), "a write waits for room");
        Thread closer = Thread.ofPlatform().name("closer").start(() -> {
            try {
                ch.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertEquals("! " + AsynchronousCloseException.class.getName(), await(outcome));
        assertEquals(65536, written.get(), "what the pipe took");
        join(closer, "close");
        join(writer, "the writer");
        assertEquals(Set.of(), Conform.fdsOf(fifo));
    }

    /**
     * Case 18: a thread blocked in a read and interrupted gets ClosedByInterruptException, keeps its interrupt status,
     * and the channel is closed; other channels of the same kind still work.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void case18InterruptWakesABlockedReaderWithClosedByInterrupt(boolean virtual) throws Exception {
        Path fifo = Conform.fifo(dir, "fifo");
        Blocked b = blockedReader(fifo, virtual);
        boolean waits = virtual && virtualReadersWaitForTheirRead(b.channel());
        // Interrupting from another thread: the JDK's interrupt of a virtual reader waits as its close does.
        Thread interrupter = Thread.ofPlatform().name("interrupter").start(b.reader()::interrupt);
        if (waits) {
            // The channel reads as closed once the interrupt has begun closing it; only then may the read end.
            Conform.until(() -> !b.channel().isOpen(), "the interrupt closing the channel");
            feed(fifo);
        }
        assertEquals("! " + ClosedByInterruptException.class.getName() + " interrupted=true", await(b.outcome()));
        join(interrupter, "interrupt");
        join(b.reader(), "the reader");
        assertFalse(b.channel().isOpen());
        assertEquals(Set.of(), Conform.fdsOf(fifo));
        byte[] data = pattern(5000, 48);
        try (FileChannel again = open(file("after", data), READ)) {
            assertArrayEquals(data, read(again, 0, 5000), "the channels still work after an interrupt");
        }
    }

    // ============================================================================================ transfers

    /** The other end of a transfer. */
    enum Peer {
        SAME_KIND, JDK_FILE, STREAM, PIPE, SOCKET
    }

    /** A target for transferTo; {@code received} closes it and returns all it got. */
    interface Sink extends AutoCloseable {
        WritableByteChannel channel();

        byte[] received() throws Exception;

        @Override
        void close() throws IOException;
    }

    /** A source for transferFrom holding {@code data}. */
    interface Source extends AutoCloseable {
        ReadableByteChannel channel();

        @Override
        void close() throws IOException;
    }

    private Sink sink(Peer peer) throws Exception {
        return switch (peer) {
            case SAME_KIND, JDK_FILE -> {
                Path p = dir.resolve("sink");
                FileChannel ch = peer == Peer.SAME_KIND ? open(p, READ, WRITE, CREATE) : FileChannel.open(p, READ,
                        WRITE, CREATE);
                ch.position(3);
                yield new Sink() {
                    @Override
                    public WritableByteChannel channel() {
                        return ch;
                    }

                    @Override
                    public byte[] received() throws Exception {
                        long end = ch.position();
                        byte[] all = read(ch, 3, (int) (end - 3));
                        ch.close();
                        return all;
                    }

                    @Override
                    public void close() throws IOException {
                        ch.close();
                    }
                };
            }
            case STREAM -> {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                WritableByteChannel ch = Channels.newChannel(out);
                yield new Sink() {
                    @Override
                    public WritableByteChannel channel() {
                        return ch;
                    }

                    @Override
                    public byte[] received() {
                        return out.toByteArray();
                    }

                    @Override
                    public void close() throws IOException {
                        ch.close();
                    }
                };
            }
            case PIPE -> {
                Pipe pipe = Pipe.open();
                yield drained(pipe.sink(), pipe.source(), pipe.source());
            }
            case SOCKET -> {
                UnixDomainSocketAddress a = UnixDomainSocketAddress.of(dir.resolve("socket"));
                try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                    server.bind(a);
                    SocketChannel client = SocketChannel.open(a);
                    SocketChannel accepted = server.accept();
                    yield drained(client, accepted, accepted);
                } finally {
                    Files.deleteIfExists(a.getPath());
                }
            }
        };
    }

    /** A sink whose far end a thread reads to the end while the test writes. */
    private static Sink drained(WritableByteChannel near, ReadableByteChannel far, java.io.Closeable farEnd) {
        CompletableFuture<byte[]> got = new CompletableFuture<>();
        Thread.ofPlatform().name("drain").daemon().start(() -> {
            try {
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                ByteBuffer b = ByteBuffer.allocate(8192);
                while (far.read(b.clear()) >= 0) {
                    all.write(b.array(), 0, b.position());
                }
                got.complete(all.toByteArray());
            } catch (Throwable e) {
                got.completeExceptionally(e);
            }
        });
        return new Sink() {
            @Override
            public WritableByteChannel channel() {
                return near;
            }

            @Override
            public byte[] received() throws Exception {
                near.close();
                byte[] b = await(got);
                farEnd.close();
                return b;
            }

            @Override
            public void close() throws IOException {
                near.close();
                farEnd.close();
            }
        };
    }

    private Source source(Peer peer, byte[] data) throws Exception {
        return switch (peer) {
            case SAME_KIND, JDK_FILE -> {
                Path p = file("source", data);
                FileChannel ch = peer == Peer.SAME_KIND ? open(p, READ) : FileChannel.open(p, READ);
                yield new Source() {
                    @Override
                    public ReadableByteChannel channel() {
                        return ch;
                    }

                    @Override
                    public void close() throws IOException {
                        ch.close();
                    }
                };
            }
            case STREAM -> {
                ReadableByteChannel ch = Channels.newChannel(new ByteArrayInputStream(data));
                yield new Source() {
                    @Override
                    public ReadableByteChannel channel() {
                        return ch;
                    }

                    @Override
                    public void close() throws IOException {
                        ch.close();
                    }
                };
            }
            case PIPE -> {
                Pipe pipe = Pipe.open();
                yield fed(pipe.source(), pipe.sink(), data);
            }
            case SOCKET -> {
                UnixDomainSocketAddress a = UnixDomainSocketAddress.of(dir.resolve("socket"));
                try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                    server.bind(a);
                    SocketChannel client = SocketChannel.open(a);
                    SocketChannel accepted = server.accept();
                    yield fed(accepted, client, data);
                } finally {
                    Files.deleteIfExists(a.getPath());
                }
            }
        };
    }

    /** A source whose far end a thread writes {@code data} into, then closes (or gives up when the near end closes). */
    private static Source fed(ReadableByteChannel near, WritableByteChannel far, byte[] data) {
        Thread.ofPlatform().name("feed").daemon().start(() -> {
            try (far) {
                ByteBuffer b = ByteBuffer.wrap(data);
                while (b.hasRemaining()) {
                    far.write(b);
                }
            } catch (IOException e) {
                // the test ended without reading everything; closing the far end was all that mattered
            }
        });
        return new Source() {
            @Override
            public ReadableByteChannel channel() {
                return near;
            }

            @Override
            public void close() throws IOException {
                near.close();
            }
        };
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void transferToEveryKindOfChannelLeavesOurPosition(Peer peer) throws Exception {
        byte[] data = pattern(300_000, 49);
        try (FileChannel ch = open(file("f", data), READ); Sink sink = sink(peer)) {
            ch.position(77);
            assertEquals(250_000, ch.transferTo(1000, 250_000, sink.channel()));
            assertEquals(77, ch.position(), "transferTo does not move this channel's position");
            if (sink.channel() instanceof FileChannel target) {
                assertEquals(250_003, target.position(), "the target's position moves by what it got");
            }
            assertEquals(30_000, ch.transferTo(270_000, 50_000, sink.channel()), "only what is there");
            assertEquals(0, ch.transferTo(300_000, 10, sink.channel()), "nothing at the end");
            assertEquals(0, ch.transferTo(400_000, 10, sink.channel()), "nothing past the end");
            assertEquals(0, ch.transferTo(5, 0, sink.channel()));
            assertEquals(77, ch.position());
            byte[] got = sink.received();
            assertEquals(280_000, got.length);
            assertArrayEquals(range(data, 1000, 250_000), range(got, 0, 250_000));
            assertArrayEquals(range(data, 270_000, 30_000), range(got, 250_000, 30_000));
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void transferFromEveryKindOfChannelLeavesOurPosition(Peer peer) throws Exception {
        byte[] data = pattern(300_000, 50);
        Path p = file("f", pattern(100_000, 51));
        try (FileChannel ch = open(p, READ, WRITE); Source src = source(peer, data)) {
            ch.position(33);
            if (src.channel() instanceof FileChannel f) {
                f.position(5);
            }
            int from = src.channel() instanceof FileChannel ? 5 : 0;
            assertEquals(200_000, ch.transferFrom(src.channel(), 50_000, 200_000));
            assertEquals(33, ch.position(), "transferFrom does not move this channel's position");
            assertEquals(250_000, ch.size());
            if (src.channel() instanceof FileChannel f) {
                assertEquals(200_005, f.position(), "the source's position moves by what it gave");
            }
            long rest = 300_000 - from - 200_000;
            assertEquals(rest, ch.transferFrom(src.channel(), 250_000, 1_000_000), "only what the source has");
            assertEquals(0, ch.transferFrom(src.channel(), 250_000 + rest, 10), "the source is exhausted");
            assertArrayEquals(range(pattern(100_000, 51), 0, 50_000), read(ch, 0, 50_000));
            assertArrayEquals(range(data, from, 200_000 + (int) rest), read(ch, 50_000, 200_000 + (int) rest));
        }
    }

    /** Since JDK 21 (JDK-8303260) a transfer to a position past the end grows the file, as a positional write does. */
    @Test
    void transferFromPastTheEndGrowsTheFileWithAHole() throws Exception {
        Path p = file("f", pattern(100, 52));
        Path q = file("g", pattern(1000, 53));
        try (FileChannel ch = open(p, READ, WRITE); FileChannel src = open(q, READ)) {
            assertEquals(10, ch.transferFrom(src, 200, 10));
            assertEquals(10, src.position());
            assertEquals(210, ch.size());
            assertEquals(0, ch.position());
            assertArrayEquals(new byte[100], read(ch, 100, 100));
            assertArrayEquals(range(pattern(1000, 53), 0, 10), read(ch, 200, 10));
            assertEquals(0, ch.transferFrom(src, 0, 0));
            assertEquals(10, src.position());
            src.position(1000);
            assertEquals(0, ch.transferFrom(src, 5000, 10), "a source at its end gives nothing");
            assertEquals(210, ch.size(), "and the file does not grow");
        }
    }

    /** The JDK's own channel on the other side: it sees ours only as a ReadableByteChannel or WritableByteChannel. */
    @Test
    void theJdksChannelTransfersToAndFromOurs() throws Exception {
        byte[] data = pattern(200_000, 75);
        Path p = file("f", data);
        Path q = dir.resolve("g");
        try (FileChannel jdk = FileChannel.open(p, READ); FileChannel ours = open(q, READ, WRITE, CREATE)) {
            ours.position(10);
            assertEquals(150_000, jdk.transferTo(1000, 150_000, ours));
            assertEquals(150_010, ours.position());
            assertEquals(0, jdk.position());
            assertArrayEquals(range(data, 1000, 150_000), read(ours, 10, 150_000));
        }
        Path r = dir.resolve("h");
        try (FileChannel jdk = FileChannel.open(r, READ, WRITE, CREATE); FileChannel ours = open(p, READ)) {
            ours.position(500);
            assertEquals(199_500, jdk.transferFrom(ours, 7, 1_000_000));
            assertEquals(200_000, ours.position());
            assertEquals(0, jdk.position());
            assertEquals(199_507, jdk.size());
            assertArrayEquals(range(data, 500, 199_500), read(jdk, 7, 199_500));
        }
    }

    @Test
    void transferBetweenChannelsOfTheWrongModesIsNonReadableOrNonWritable() throws Exception {
        Path p = file("f", pattern(100, 54));
        Path q = file("g", pattern(100, 55));
        try (FileChannel rw = open(p, READ, WRITE); FileChannel readOnly = open(q, READ);
                FileChannel writeOnly = open(q, WRITE); FileChannel jdkReadOnly = FileChannel.open(q, READ)) {
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(0, 10, readOnly));
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(0, 10, jdkReadOnly));
            assertThrows(NonReadableChannelException.class, () -> writeOnly.transferTo(0, 10, rw));
            assertThrows(NonReadableChannelException.class, () -> rw.transferFrom(writeOnly, 0, 10));
            assertThrows(NonWritableChannelException.class, () -> readOnly.transferFrom(rw, 0, 10));
        }
        assertArrayEquals(pattern(100, 55), Files.readAllBytes(q));
    }

    /**
     * The JDK's own channel on the other side (from {@code FileInputStream.getChannel()}, say) that cannot write or
     * read: said before the arguments are looked at and before finding nothing to move, as between two of the JDK's.
     */
    @Test
    void aJdkChannelOfTheWrongModeIsSaidBeforeTheArgumentsAndBeforeNothingToMove() throws Exception {
        Path p = file("f", pattern(100, 56));
        Path q = file("g", pattern(100, 57));
        try (FileChannel rw = open(p, READ, WRITE); FileChannel jdkReadOnly = FileChannel.open(q, READ);
                FileChannel jdkWriteOnly = FileChannel.open(q, WRITE)) {
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(-1, 10, jdkReadOnly));
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(0, -1, jdkReadOnly));
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(1000, 10, jdkReadOnly), "past the end");
            assertThrows(NonWritableChannelException.class, () -> rw.transferTo(0, 0, jdkReadOnly), "nothing asked");
            assertThrows(NonReadableChannelException.class, () -> rw.transferFrom(jdkWriteOnly, -1, 10));
            assertThrows(NonReadableChannelException.class, () -> rw.transferFrom(jdkWriteOnly, 0, 0), "nothing asked");
            assertEquals(0, jdkReadOnly.position());
            assertEquals(0, jdkWriteOnly.position());
        }
        assertArrayEquals(pattern(100, 57), Files.readAllBytes(q));
        assertArrayEquals(pattern(100, 56), Files.readAllBytes(p));
    }

    @Test
    void largeTransfersBetweenFilesCopyEveryByteAndMoveOnlyThePositionsTheyShould() throws Exception {
        // large enough for uring4j to split over several threads (KernelCopy)
        int n = (int) (2 * KernelCopy.PIECE) + 12_345;
        byte[] data = pattern(n, 90);
        Path big = file("big", data);
        io.github.uring4j.file.TestFiles.evict(big); // a copy from the device is the one that is split
        try (FileChannel in = open(big, READ); FileChannel out = open(file("big-copy", new byte[0]), READ, WRITE)) {
            in.position(3);
            out.position(100);
            assertEquals(n - 10, in.transferTo(10, Long.MAX_VALUE / 2, out), "up to the end of the source");
            assertEquals(3, in.position(), "transferTo leaves the source's position");
            assertEquals(100 + n - 10, out.position(), "the target's position moves by what it got");
            assertEquals(n - 3, out.transferFrom(in, 7, Long.MAX_VALUE / 2), "from the source's position to its end");
            assertEquals(n, in.position(), "the source's position moves by what it gave");
            assertEquals(100 + n - 10, out.position(), "transferFrom leaves the target's position");
            assertEquals(n + 90, out.size());
            byte[] got = read(out, 0, n + 90);
            assertArrayEquals(new byte[7], range(got, 0, 7));
            assertArrayEquals(range(data, 3, n - 3), range(got, 7, n - 3));
            assertArrayEquals(range(data, n - 86, 86), range(got, n + 4, 86), "the first copy's end, not overwritten");
        }
    }

    /**
     * An interrupted thread's {@code transferFrom} of a channel that is not interruptible and gives nothing (at its
     * end), or of no bytes: 0, and the channel stays open, the interrupt status set; the JDK's reads the source first
     * and writes nothing (the drop-in closed the channel with {@code ClosedByInterruptException} before reading).
     */
    @Test
    void anInterruptedTransferFromOfNothingLeavesTheChannelOpen() throws Exception {
        Path p = file("interrupted-from", pattern(100, 99));
        ReadableByteChannel ended = new ReadableByteChannel() {
            @Override
            public int read(ByteBuffer dst) {
                return -1;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        try (FileChannel ch = open(p, READ, WRITE)) {
            Thread.currentThread().interrupt();
            try {
                assertEquals(0, ch.transferFrom(ended, 0, 10));
                assertEquals(0, ch.transferFrom(ended, 0, 0));
                assertTrue(Thread.currentThread().isInterrupted());
                assertTrue(ch.isOpen());
            } finally {
                Thread.interrupted();
            }
        }
    }

    /**
     * A thread mapping the file again and again, interrupted (a hostile probe's case, twenty times): the map that
     * meets the interrupt throws {@code ClosedByInterruptException} and the channel is closed, its lock gone, the
     * interrupt status set. The drop-in maps through the JDK's channel of the file, whose own interrupt handling
     * closed only that one: this channel stayed open, its maps and locks failing, its lock silently released.
     */
    @Test
    void anInterruptedMapClosesTheChannel() throws Exception {
        Path p = file("map-interrupted", pattern(1 << 20, 97));
        for (int trial = 0; trial < 20; trial++) {
            FileChannel ch = open(p, READ, WRITE);
            try {
                FileLock held = ch.lock(0, 10, false);
                java.util.concurrent.atomic.AtomicReference<Throwable> ended = new java.util.concurrent.atomic.AtomicReference<>();
                java.util.concurrent.atomic.AtomicBoolean flag = new java.util.concurrent.atomic.AtomicBoolean();
                java.util.concurrent.CountDownLatch mapping = new java.util.concurrent.CountDownLatch(1);
                Thread t = Thread.ofPlatform().start(() -> {
                    try {
                        while (true) {
                            ch.map(FileChannel.MapMode.READ_ONLY, 0, 1 << 20);
                            mapping.countDown();
                        }
                    } catch (Throwable e) {
                        ended.set(e);
                        flag.set(Thread.currentThread().isInterrupted());
                    }
                });
                assertTrue(mapping.await(30, TimeUnit.SECONDS));
                t.interrupt();
                t.join(30_000);
                assertInstanceOf(ClosedByInterruptException.class, ended.get());
                assertTrue(flag.get(), "the interrupt status is kept");
                assertFalse(ch.isOpen(), "trial " + trial + ": the channel is still open after the interrupted map");
                assertFalse(held.isValid(), "the lock of a closed channel");
            } finally {
                ch.close();
            }
        }
    }

    /**
     * A transfer into a pipe nobody reads, interrupted while it waits for room: it fails with
     * {@code ClosedByInterruptException}, this channel is closed and the interrupt status set (the drop-in returned
     * the 64 KiB that fitted and left this channel open).
     */
    @Test
    void aTransferIntoAFullPipeInterruptedClosesTheChannel() throws Exception {
        Path p = file("into-pipe", pattern(8 << 20, 98));
        Pipe pipe = Pipe.open();
        try (FileChannel ch = open(p, READ)) {
            java.util.concurrent.atomic.AtomicReference<Object> ended = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean flag = new java.util.concurrent.atomic.AtomicBoolean();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    ended.set(ch.transferTo(0, 8 << 20, pipe.sink()));
                } catch (Throwable e) {
                    ended.set(e);
                }
                flag.set(Thread.currentThread().isInterrupted());
            });
            Thread.sleep(200); // the pipe is full by now, and the transfer waits (an earlier interrupt ends the same)
            t.interrupt();
            t.join(30_000);
            assertInstanceOf(ClosedByInterruptException.class, ended.get());
            assertTrue(flag.get(), "the interrupt status is kept");
            assertFalse(ch.isOpen(), "the source channel is still open after the interrupted transfer");
        } finally {
            pipe.sink().close();
            pipe.source().close();
        }
    }

    /**
     * A large copy from the device whose source is closed by another thread once the target grows: the transfer ends
     * with the bytes copied so far (the JDK's close cuts its one call short with a signal), the target holds them and
     * nothing past them. uring4j copied on to the end (256 MiB here) before the close could return; it now copies in
     * calls and pieces of at most 64 MiB and takes none after the close.
     */
    @Test
    void aCloseDuringALargeTransferEndsItWithTheBytesCopied() throws Exception {
        int n = (int) (8 * KernelCopy.PIECE);
        byte[] data = pattern(n, 96);
        Path big = file("big-closed", data);
        io.github.uring4j.file.TestFiles.evict(big);
        FileChannel in = open(big, READ);
        try (FileChannel out = open(file("big-closed-copy", new byte[0]), READ, WRITE)) {
            java.util.concurrent.CompletableFuture<Object> copy = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return in.transferTo(0, n, out);
                } catch (IOException e) {
                    return e;
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (out.size() == 0 && !copy.isDone() && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // until the copy is under way
            }
            in.close();
            Object r = copy.get(60, TimeUnit.SECONDS);
            if (r instanceof Throwable t) {
                assertInstanceOf(java.nio.channels.AsynchronousCloseException.class, t);
            } else {
                long got = (Long) r;
                assertTrue(got > 0 && got < n, "copied " + got + " of " + n + " bytes after a close");
                assertEquals(got, out.size(), "nothing past what was copied");
                assertArrayEquals(range(data, 0, (int) got), read(out, 0, (int) got));
            }
        } finally {
            in.close();
        }
    }

    /**
     * A copy onto a full disk (a file system of its own, where the test may make one) stops where the disk is full:
     * the count says how much was copied, the target is no longer than that, and what it holds is right. uring4j
     * splits this copy (from the device, two pieces or more); the pieces after the one that met the full disk are
     * undone.
     */
    @Test
    void aCopyOntoAFullDiskSaysWhatItCopiedAndLeavesNothingPastIt() throws Exception {
        Path fs = io.github.uring4j.file.TestFiles.smallFileSystem(dir, 100L << 20);
        try {
            int n = (int) (2 * KernelCopy.PIECE) + (6 << 20);
            byte[] data = pattern(n, 93);
            Path src = Files.write(fs.resolve("src"), data);
            io.github.uring4j.file.TestFiles.evict(src);
            Path dst = Files.write(fs.resolve("dst"), new byte[0]);
            try (FileChannel in = open(src, READ); FileChannel out = open(dst, READ, WRITE)) {
                long got = in.transferTo(0, n, out);
                assertTrue(got > 0 && got < n, "copied " + got + " of " + n + " onto 100 MiB holding the source");
                assertEquals(got, out.position());
                assertEquals(got, out.size(), "nothing past what was copied");
                assertArrayEquals(range(data, 0, (int) got), read(out, 0, (int) got));
            }
        } finally {
            io.github.uring4j.file.TestFiles.unmount(fs);
        }
    }

    /**
     * Writes onto a full disk (a 32 MiB file system of the test's own, skipped where none can be mounted): relative
     * writes of heap and direct buffers until one fails, then positional and gathering writes and an {@code APPEND}
     * channel's. Each fails with the JDK's {@code IOException("No space left on device")}, consuming nothing of its
     * buffer and leaving the position where it was; the file holds what the writes said they wrote; once there is
     * room again the same channel writes.
     */
    @Test
    void writesOntoAFullDiskFailAsTheJdksDoAndTheChannelWritesOnceThereIsRoomAgain() throws Exception {
        Path fs = io.github.uring4j.file.TestFiles.smallFileSystem(dir, 32L << 20);
        try {
            Path room = Files.write(fs.resolve("room"), new byte[4 << 20]);
            byte[] chunk = pattern(1 << 20, 95);
            Path p = fs.resolve("f");
            try (FileChannel ch = open(p, CREATE, READ, WRITE); FileChannel app = open(p, WRITE, APPEND)) {
                long written = 0;
                IOException full = null;
                for (int i = 0; i < 64 && full == null; i++) {
                    try {
                        written += ch.write(i % 2 == 0 ? ByteBuffer.wrap(chunk) : directOf(chunk));
                    } catch (IOException e) {
                        full = e;
                    }
                }
                assertNotNull(full, "64 MiB on 32 MiB");
                assertEquals(IOException.class, full.getClass());
                assertEquals("No space left on device", full.getMessage());
                assertEquals(written, ch.position());
                assertEquals(written, ch.size());
                ByteBuffer heap = ByteBuffer.wrap(chunk);
                ByteBuffer direct = directOf(chunk);
                long at = written;
                List<Conform.Action> more = List.of(() -> ch.write(heap, at), () -> ch.write(direct, at),
                        () -> ch.write(new ByteBuffer[] {heap, direct}), () -> app.write(direct));
                for (Conform.Action a : more) {
                    IOException e = assertThrows(IOException.class, a::run);
                    assertEquals(IOException.class, e.getClass());
                    assertEquals("No space left on device", e.getMessage());
                    assertEquals(0, heap.position(), "nothing of the buffer consumed");
                    assertEquals(0, direct.position(), "nothing of the buffer consumed");
                }
                assertEquals(written, ch.position());
                assertEquals(written, app.position());
                int tail = (int) Math.min(written, 1000);
                assertArrayEquals(range(chunk, (int) ((written - tail) % chunk.length), tail),
                        read(ch, written - tail, tail), "the last bytes written are on the disk");
                Files.delete(room);
                ByteBuffer b = ByteBuffer.wrap(chunk);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                assertEquals(written + chunk.length, ch.size());
                assertArrayEquals(chunk, read(ch, written, chunk.length));
            }
        } finally {
            io.github.uring4j.file.TestFiles.unmount(fs);
        }
    }

    private static ByteBuffer directOf(byte[] b) {
        return ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    /**
     * A copy between two files of XFS (a file system of the test's own, skipped where none can be made): XFS clones
     * the whole blocks of the range and says so, and {@code transferTo} returns that count, as the JDK's channel
     * does; the next transfer copies the rest.
     */
    @Test
    void aTransferOnXfsReturnsWhatOneKernelCopyMade() throws Exception {
        Path fs = io.github.uring4j.file.TestFiles.smallFileSystem(dir, 512L << 20, "xfs");
        try {
            // a range that ends inside a block, short of the end of the file: its last piece cannot be cloned
            byte[] data = pattern(5 * 4096, 97);
            int n = 2 * 4096 + 3673;
            Path src = Files.write(fs.resolve("src"), data);
            Path dst = Files.write(fs.resolve("dst"), new byte[0]);
            try (FileChannel in = open(src, READ); FileChannel out = open(dst, READ, WRITE)) {
                long first = in.transferTo(0, n, out);
                assertEquals(2 * 4096, first, "the range's whole blocks, cloned");
                assertEquals(n - first, in.transferTo(first, n - first, out));
                assertEquals(n, out.position());
                assertArrayEquals(range(data, 0, n), read(out, 0, n));
            }
        } finally {
            io.github.uring4j.file.TestFiles.unmount(fs);
        }
    }

    /** A transfer by a thread already interrupted closes both channels, whatever the other is, as the JDK's does. */
    @ParameterizedTest
    @EnumSource(Peer.class)
    void aTransferByAnInterruptedThreadClosesBothChannels(Peer peer) throws Exception {
        byte[] data = pattern(10_000, 92);
        for (boolean to : new boolean[] {true, false}) {
            Path p = file("f", data);
            try (FileChannel ch = open(p, READ, WRITE); Sink sink = to ? sink(peer) : null;
                    Source src = to ? null : source(peer, data)) {
                java.nio.channels.Channel other = to ? sink.channel() : src.channel();
                CompletableFuture<String> got = new CompletableFuture<>();
                Thread.ofPlatform().start(() -> {
                    Thread.currentThread().interrupt();
                    String o = Conform.outcome(() -> to ? ch.transferTo(0, 100, sink.channel())
                            : ch.transferFrom(src.channel(), 0, 100));
                    got.complete(o + " interrupted=" + Thread.currentThread().isInterrupted());
                });
                String what = (to ? "transferTo " : "transferFrom ") + peer;
                assertEquals("! " + ClosedByInterruptException.class.getName() + " interrupted=true", await(got), what);
                assertFalse(ch.isOpen(), what);
                assertFalse(other.isOpen(), what + ": the other channel");
            }
            assertArrayEquals(data, Files.readAllBytes(p), "nothing was written");
        }
    }

    /**
     * A thread interrupted while it copies (here: once the target has begun to grow) closes the channel whose method
     * it called, and the other one, and gets ClosedByInterruptException when the copy has ended, its interrupt status
     * kept. The copy is one from the device of two pieces or more, which uring4j splits over helper threads: they
     * are done before the call returns.
     */
    @Test
    void aThreadInterruptedWhileItCopiesGetsClosedByInterruptAndItsChannelCloses() throws Exception {
        int n = (int) (2 * KernelCopy.PIECE);
        Path big = file("big", pattern(n, 91));
        Path copy = file("big-copy", new byte[0]);
        io.github.uring4j.file.TestFiles.evict(big);
        try (FileChannel in = open(big, READ); FileChannel out = open(copy, READ, WRITE)) {
            CompletableFuture<String> got = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().start(() -> {
                String o = Conform.outcome(() -> in.transferTo(0, n, out));
                got.complete(o + " interrupted=" + Thread.currentThread().isInterrupted());
            });
            Conform.until(() -> sizeOf(copy) > 0 || got.isDone(), "the copy to begin");
            if (got.isDone()) {
                join(t, "the copier");
                org.junit.jupiter.api.Assumptions.abort("the copy was over before the interrupt (" + got.join()
                        + "): " + Files.getFileStore(copy).type() + " clones a file's blocks at once");
            }
            t.interrupt();
            assertEquals("! " + ClosedByInterruptException.class.getName() + " interrupted=true", await(got));
            join(t, "the copier");
            assertFalse(in.isOpen(), "the channel whose method was interrupted closes");
            assertFalse(out.isOpen(), "and so does the other");
        }
        assertEquals(Set.of(), Conform.fdsOf(big));
        assertEquals(Set.of(), Conform.fdsOf(copy));
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    /** A file that says it is empty (/proc) is read until its end, as the JDK's channel reads it. */
    @Test
    void transferToFromAFileThatSaysItIsEmptyCopiesWhatItHolds() throws Exception {
        Path out = dir.resolve("status");
        try (FileChannel in = open(Path.of("/proc/self/status"), READ); FileChannel o = open(out, WRITE, CREATE)) {
            assertEquals(0, in.size());
            long n = in.transferTo(0, 1 << 20, o);
            assertTrue(n > 0, "bytes copied: " + n);
            assertEquals(n, o.size());
        }
        assertTrue(Files.readString(out).startsWith("Name:"), Files.readString(out));
    }

    /**
     * From an {@code O_DIRECT} file at an unaligned position: what the kernel does not copy goes through a mapping of
     * the source, as the JDK's channel takes it, so no alignment is asked of the caller.
     */
    @Test
    void aTransferFromAnODirectFileAtAnUnalignedPositionCopiesAsTheJdksDoes() throws Exception {
        byte[] data = pattern(40_000, 61);
        Path p = file("direct-source", data);
        Path q = dir.resolve("target");
        FileChannel src;
        try {
            src = open(p, READ, Conform.DIRECT);
        } catch (IOException e) {
            Assumptions.abort("O_DIRECT refused here: " + e);
            return;
        }
        try (src; FileChannel dst = open(q, READ, WRITE, CREATE)) {
            assertEquals(40_000 - 5073, src.transferTo(5073, Long.MAX_VALUE, dst));
            assertEquals(40_000 - 5073, dst.position());
            assertArrayEquals(range(data, 5073, 40_000 - 5073), read(dst, 0, 40_000 - 5073));
        }
    }

    @Test
    void transferToItselfCopiesWithinTheFile() throws Exception {
        byte[] data = pattern(10_000, 56);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            ch.position(20_000);
            assertEquals(5000, ch.transferTo(0, 5000, ch));
            assertEquals(25_000, ch.position(), "as the target, it moves by what it got");
            ch.position(1000);
            assertEquals(3000, ch.transferFrom(ch, 30_000, 3000));
            assertEquals(4000, ch.position(), "as the source, it moves by what it gave");
            assertEquals(33_000, ch.size());
            assertArrayEquals(range(data, 0, 5000), read(ch, 20_000, 5000));
            assertArrayEquals(range(data, 1000, 3000), read(ch, 30_000, 3000));
        }
    }

    // ================================================================================================ maps

    @Test
    void mapReadOnlySeesTheFileAndRefusesWrites() throws Exception {
        byte[] data = pattern(10_000, 57);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ)) {
            MappedByteBuffer m = ch.map(MapMode.READ_ONLY, 100, 5000);
            assertTrue(m.isReadOnly());
            assertEquals(5000, m.capacity());
            byte[] got = new byte[5000];
            m.get(got);
            assertArrayEquals(range(data, 100, 5000), got);
            assertThrows(ReadOnlyBufferException.class, () -> m.put(0, (byte) 1));
            assertEquals(0, ch.map(MapMode.READ_ONLY, 10_000, 0).capacity());
            assertEquals(0, ch.position(), "mapping leaves the position");
        }
    }

    @Test
    void mapReadWriteIsTheFileItselfAndGrowsItWhenNeeded() throws Exception {
        byte[] data = pattern(10_000, 58);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE); FileChannel jdk = FileChannel.open(p, READ)) {
            MappedByteBuffer m = ch.map(MapMode.READ_WRITE, 8000, 4000);
            assertEquals(12_000, ch.size(), "a read-write map past the end grows the file");
            m.put(0, pattern(3000, 59));
            m.force();
            assertArrayEquals(pattern(3000, 59), read(ch, 8000, 3000), "writes through the map are the file's");
            assertArrayEquals(pattern(3000, 59), read(jdk, 8000, 3000));
            ch.write(ByteBuffer.wrap(pattern(10, 60)), 11_000);
            byte[] back = new byte[10];
            m.get(3000, back);
            assertArrayEquals(pattern(10, 60), back, "writes through the channel are the map's");
        }
    }

    @Test
    void mapPrivateKeepsItsWritesToItself() throws Exception {
        byte[] data = pattern(10_000, 61);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            MappedByteBuffer m = ch.map(MapMode.PRIVATE, 0, 10_000);
            assertFalse(m.isReadOnly());
            m.put(5, (byte) 99);
            assertEquals(99, m.get(5));
            assertArrayEquals(data, read(ch, 0, 10_000));
        }
        assertArrayEquals(data, Files.readAllBytes(p));
    }

    @Test
    void mapErrorsFollowTheModeAndTheSize() throws Exception {
        Path p = file("f", pattern(100, 62));
        try (FileChannel ro = open(p, READ); FileChannel wo = open(p, WRITE); FileChannel ap = open(p, WRITE, APPEND);
                FileChannel rw = open(p, READ, WRITE)) {
            assertThrows(NonWritableChannelException.class, () -> ro.map(MapMode.READ_WRITE, 0, 10));
            assertThrows(NonWritableChannelException.class, () -> ro.map(MapMode.PRIVATE, 0, 10));
            assertThrows(NonReadableChannelException.class, () -> wo.map(MapMode.READ_ONLY, 0, 10));
            assertThrows(NonReadableChannelException.class, () -> wo.map(MapMode.READ_WRITE, 0, 10));
            assertThrows(NonReadableChannelException.class, () -> ap.map(MapMode.READ_WRITE, 0, 10));
            // The JDK: a read-only channel cannot grow the file to what was asked for, with a plain IOException.
            IOException e = assertThrows(IOException.class, () -> ro.map(MapMode.READ_ONLY, 0, 1000));
            assertEquals(IOException.class, e.getClass());
            assertThrows(IllegalArgumentException.class,
                    () -> rw.map(MapMode.READ_ONLY, 0, (long) Integer.MAX_VALUE + 1));
            assertThrows(IllegalArgumentException.class, () -> rw.map(MapMode.READ_ONLY, Long.MAX_VALUE, 10));
            assertThrows(IllegalArgumentException.class, () -> rw.map(MapMode.READ_ONLY, -1, 10));
            assertThrows(IllegalArgumentException.class, () -> rw.map(MapMode.READ_ONLY, 0, -1));
            assertThrows(IllegalArgumentException.class,
                    () -> rw.map(MapMode.READ_ONLY, -1, 10, Arena.ofAuto()));
            assertEquals(100, rw.size());
        }
    }

    /** FileChannel.map with an Arena gives a segment; closing the arena unmaps it (Lucene maps files this way). */
    @Test
    void mapIntoAnArenaUnmapsWhenTheArenaCloses() throws Exception {
        byte[] data = pattern(100_000, 63);
        Path p = file("f", data);
        try (FileChannel ch = open(p, READ, WRITE)) {
            long before = Conform.mappingsOf(p);
            MemorySegment rw;
            MemorySegment ro;
            try (Arena arena = Arena.ofShared()) {
                rw = ch.map(MapMode.READ_WRITE, 4096, 50_000, arena);
                ro = ch.map(MapMode.READ_ONLY, 0, 100_000, arena);
                assertEquals(50_000, rw.byteSize());
                assertFalse(rw.isReadOnly());
                assertTrue(ro.isReadOnly());
                assertEquals(data[4096 + 7], rw.get(ValueLayout.JAVA_BYTE, 7));
                rw.set(ValueLayout.JAVA_BYTE, 10, (byte) 77);
                assertEquals(77, read(ch, 4106, 1)[0], "the segment is the file");
                assertEquals(77, ro.get(ValueLayout.JAVA_BYTE, 4106));
                assertTrue(Conform.mappingsOf(p) > before);
            }
            assertFalse(rw.scope().isAlive());
            assertThrows(IllegalStateException.class, () -> rw.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(before, Conform.mappingsOf(p), "closing the arena unmapped both");
            Arena closed = Arena.ofConfined();
            closed.close();
            assertThrows(IllegalStateException.class, () -> ch.map(MapMode.READ_ONLY, 0, 10, closed));
            try (Arena confined = Arena.ofConfined()) {
                MemorySegment priv = ch.map(MapMode.PRIVATE, 0, 100, confined);
                priv.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                assertEquals(data[0], read(ch, 0, 1)[0]);
            }
        }
    }

    /** Segments have no 2 GiB limit; case 28: offsets past 2^32 land where asked. */
    @Test
    void case28OffsetsPast4GiBAndMapsLargerThan2GiB() throws Exception {
        Path p = dir.resolve("sparse");
        long five = 5L << 30;
        try (FileChannel ch = open(p, READ, WRITE, CREATE_NEW, SPARSE)) {
            assertEquals(8, ch.write(ByteBuffer.wrap(pattern(8, 64)), five - 8));
            assertEquals(8, ch.write(ByteBuffer.wrap(pattern(8, 65)), (1L << 32) + 4));
            assertEquals(five, ch.size());
            assertArrayEquals(pattern(8, 65), read(ch, (1L << 32) + 4, 8));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment m = ch.map(MapMode.READ_ONLY, 2L << 30, 3L << 30, arena);
                assertEquals(3L << 30, m.byteSize());
                assertEquals(pattern(8, 65)[3], m.get(ValueLayout.JAVA_BYTE, (2L << 30) + 4 + 3));
                assertEquals(pattern(8, 64)[7], m.get(ValueLayout.JAVA_BYTE, m.byteSize() - 1));
            }
            ch.position(five - 8);
            ByteBuffer b = ByteBuffer.allocate(100);
            assertEquals(8, ch.read(b));
            assertEquals(five, ch.position());
            assertEquals(five, ch.size(), "the map covered the file exactly and did not grow it");
        }
    }

    // =============================================================================================== locks

    @Test
    void lockDescribesWhatItHoldsAndWhoHoldsIt() throws Exception {
        Path p = file("f", pattern(10, 66));
        try (FileChannel ch = open(p, READ, WRITE)) {
            FileLock all = ch.lock();
            assertSame(ch, all.channel(), "the channel the caller holds, not one inside it");
            assertSame(ch, all.acquiredBy());
            assertEquals(0, all.position());
            assertEquals(Long.MAX_VALUE, all.size());
            assertFalse(all.isShared());
            assertTrue(all.isValid());
            assertTrue(all.overlaps(5, 1));
            all.release();
            assertFalse(all.isValid());
            all.release();
            FileLock part = ch.tryLock(100, 50, true);
            assertNotNull(part);
            assertSame(ch, part.channel());
            assertTrue(part.isShared());
            assertEquals(100, part.position());
            assertEquals(50, part.size());
            part.close();
            assertFalse(part.isValid());
            // The JDK takes a size of 0 for "to the end, however far the file grows".
            FileLock zero = ch.tryLock(10, 0, false);
            assertNotNull(zero);
            assertEquals(Long.MAX_VALUE - 10, zero.size());
            assertTrue(zero.overlaps(Long.MAX_VALUE - 11, 1));
            zero.release();
        }
    }

    @Test
    void lockModeMustMatchTheChannelMode() throws Exception {
        Path p = file("f", pattern(10, 67));
        try (FileChannel ro = open(p, READ); FileChannel wo = open(p, WRITE)) {
            assertThrows(NonWritableChannelException.class, ro::lock);
            assertThrows(NonWritableChannelException.class, ro::tryLock);
            assertThrows(NonReadableChannelException.class, () -> wo.lock(0, 10, true));
            assertThrows(NonReadableChannelException.class, () -> wo.tryLock(0, 10, true));
            ro.lock(0, 5, true).release();
            wo.lock(5, 5, false).release();
        }
    }

    /** Record locks belong to the process: the JVM keeps its channels from overlapping, across implementations. */
    @Test
    void overlappingLocksInOneJvmAreRefusedWhateverTheChannel() throws Exception {
        Path p = file("f", pattern(10, 68));
        try (FileChannel a = open(p, READ, WRITE); FileChannel b = open(p, READ, WRITE);
                FileChannel jdk = FileChannel.open(p, READ, WRITE)) {
            FileLock held = a.lock(0, 100, false);
            assertThrows(OverlappingFileLockException.class, () -> a.lock(50, 100, true));
            assertThrows(OverlappingFileLockException.class, () -> a.tryLock(99, 1, false));
            assertThrows(OverlappingFileLockException.class, () -> b.tryLock(10, 10, true));
            assertThrows(OverlappingFileLockException.class, () -> b.lock());
            assertThrows(OverlappingFileLockException.class, () -> jdk.tryLock(0, 1, false));
            FileLock next = jdk.tryLock(100, 10, false);
            assertNotNull(next, "an adjacent range does not overlap");
            assertThrows(OverlappingFileLockException.class, () -> a.tryLock(105, 1, true));
            held.release();
            b.lock(0, 100, true).release();
            next.release();
            FileLock jdkHeld = jdk.lock(0, 10, true);
            assertThrows(OverlappingFileLockException.class, () -> a.tryLock(5, 1, true));
            jdkHeld.release();
        }
    }

    /** The JDK invalidates a channel's locks when it closes, and a release after that is ClosedChannelException. */
    @Test
    void closingTheChannelInvalidatesItsLocks() throws Exception {
        Path p = file("f", pattern(10, 69));
        FileChannel ch = open(p, READ, WRITE);
        FileLock a = ch.lock(0, 5, false);
        FileLock b = ch.lock(5, 5, true);
        ch.close();
        assertFalse(a.isValid());
        assertFalse(b.isValid());
        assertThrows(ClosedChannelException.class, a::release);
        assertThrows(ClosedChannelException.class, b::close);
        try (FileChannel again = open(p, READ, WRITE)) {
            again.lock(0, 10, false).release();
        }
    }

    @Test
    void anotherProcessSeesOurLocksUntilTheChannelCloses() throws Exception {
        Path p = file("f", pattern(10, 70));
        try (SecondProcess other = SecondProcess.start()) {
            FileChannel ch = open(p, READ, WRITE);
            FileLock l = ch.lock(0, 100, false);
            assertEquals("BUSY", other.ask("try " + p + " 50 10 true"));
            assertEquals("ACQUIRED", other.ask("try " + p + " 100 10 false"));
            l.release();
            assertEquals("ACQUIRED", other.ask("try " + p + " 50 10 false"));
            FileLock shared = ch.lock(0, 100, true);
            assertEquals("ACQUIRED", other.ask("try " + p + " 0 100 true"), "shared locks share");
            assertEquals("BUSY", other.ask("try " + p + " 0 100 false"));
            assertTrue(shared.isValid());
            ch.lock(200, 10, false);
            ch.close();
            assertEquals("ACQUIRED", other.ask("try " + p + " 0 1000 false"), "closing released them all");
        }
    }

    /**
     * An interrupt of a thread waiting in {@code lock()} for another process: {@code FileLockInterruptionException},
     * and the channel is closed (uring4j's waits in the JDK's channel of a second descriptor, whose own interrupt
     * handling closed only that one, and this channel stayed open with its locks and maps refused for good). A
     * platform thread: the JDK's {@code interrupt()} of a virtual thread waiting there itself waits until the other
     * process lets go (its carrier's {@code fcntl} is not signalled), on both channels.
     */
    @Test
    void anInterruptWhileLockWaitsClosesTheChannel() throws Exception {
        Path p = file("f", pattern(10, 72));
        try (SecondProcess other = SecondProcess.start(); FileChannel ch = open(p, READ, WRITE)) {
            assertEquals("HOLDING", other.ask("hold " + p));
            CompletableFuture<FileLock> waiting = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().name("locker").start(() -> {
                try {
                    waiting.complete(ch.lock());
                } catch (Throwable e) {
                    waiting.completeExceptionally(e);
                }
            });
            Conform.awaitLockWait();
            t.interrupt();
            Throwable e = Conform.failure(waiting);
            assertInstanceOf(java.nio.channels.FileLockInterruptionException.class, e);
            join(t, "the locker");
            assertFalse(ch.isOpen(), "the interrupt closed the channel");
            assertThrows(ClosedChannelException.class, () -> ch.read(ByteBuffer.allocate(1), 0));
            assertEquals("RELEASED", other.ask("release"));
        }
    }

    /**
     * A channel that is its own source: {@code transferFrom(self, past the end, far more than it holds)} copies what the file
     * held past the position when it began and stops (uring4j's took every self-transfer for an overlapping one and read
     * back the bytes it had just written until the disk was full), and a bounded one past the end copies what was left.
     */
    @Test
    void aChannelThatIsItsOwnSourceCopiesWhatItHeldAndStops() throws Exception {
        Path p = file("self", pattern(50_000, 75));
        try (FileChannel ch = open(p, READ, WRITE)) {
            ch.position(7);
            // a count far past what the file holds, but bounded: a regression copies 10 MB, not the disk full
            assertEquals(49_993, ch.transferFrom(ch, 49_000, 10_000_000));
            assertEquals(98_993, ch.size());
            ch.position(40_000);
            assertEquals(8_192, ch.transferFrom(ch, 98_993, 8_192));
            assertEquals(98_993 + 8_192, ch.size());
        }
        // the source bytes before the target's start were never overwritten before they were read
        byte[] got = Files.readAllBytes(p);
        assertArrayEquals(java.util.Arrays.copyOfRange(pattern(50_000, 75), 7, 49_000),
                java.util.Arrays.copyOfRange(got, 49_000, 49_000 + 48_993));
    }

    /**
     * A FIFO holding 10 bytes, read by a scattering read into two buffers of 10: 10 at once, as one {@code readv}
     * (uring4j's read each buffer in turn, and waited for ever on the second). A write at a position: refused with
     * {@code ESPIPE} ("Illegal seek"), as {@code pwrite(2)} refuses it (uring4j's went through the ring, which wrote
     * it at the FIFO's end); an empty one returns 0.
     */
    @Test
    void fifosAreReadAsOneReadvAndRefuseWritesAtAPosition() throws Exception {
        Path fifo = Conform.fifo(dir, "scatter");
        try (FileChannel ch = open(fifo, READ, WRITE); FileChannel w = FileChannel.open(fifo, WRITE)) {
            w.write(ByteBuffer.wrap(pattern(10, 76)));
            ByteBuffer[] bufs = {ByteBuffer.allocate(10), ByteBuffer.allocateDirect(10)};
            assertEquals(10, ch.read(bufs));
            assertArrayEquals(pattern(10, 76), bufs[0].array());
            IOException e = assertThrows(IOException.class, () -> ch.write(ByteBuffer.wrap(new byte[5]), 0));
            assertTrue(String.valueOf(e.getMessage()).contains("Illegal seek"), String.valueOf(e));
            assertEquals(0, ch.write(ByteBuffer.allocate(0), 0));
        }
    }

    /** An {@code O_DIRECT} source at or past its end gives a transfer nothing (uring4j's read it and failed on alignment). */
    @Test
    void aTransferFromADirectSourceAtItsEndMovesNothing() throws Exception {
        Path p = file("dsrc", pattern(10_000, 77));
        Path q = file("dst", new byte[0]);
        try (FileChannel src = open(p, READ, Conform.DIRECT); FileChannel dst = open(q, READ, WRITE)) {
            for (long at : new long[] {10_000, 12_288, 20_000}) {
                src.position(at);
                assertEquals(0, dst.transferFrom(src, 0, 10), "source at " + at);
            }
        }
    }

    /**
     * A blocking write to a FIFO writes all of its bytes, as {@code write(2)} of a blocking pipe does, however little
     * the reader takes at a time: heap, direct and gathering writes of 1 MiB (uring4j's went through the ring, which
     * ended each write with the 64 KiB the pipe held, and a caller that did not look at the count lost the rest).
     */
    @Test
    void aBlockingWriteToAFifoWritesAllOfIt() throws Exception {
        Path fifo = Conform.fifo(dir, "pipe");
        byte[] data = pattern(1 << 20, 73);
        for (int way = 0; way < 3; way++) {
            CompletableFuture<byte[]> got = new CompletableFuture<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                try (FileChannel r = FileChannel.open(fifo, READ)) {
                    ByteArrayOutputStream all = new ByteArrayOutputStream();
                    ByteBuffer b = ByteBuffer.allocate(4096);
                    while (r.read(b.clear()) > 0) {
                        all.write(b.array(), 0, b.position());
                    }
                    got.complete(all.toByteArray());
                } catch (Throwable e) {
                    got.completeExceptionally(e);
                }
            });
            try (FileChannel w = open(fifo, WRITE)) {
                long n = switch (way) {
                    case 0 -> w.write(ByteBuffer.wrap(data));
                    case 1 -> w.write(ByteBuffer.allocateDirect(data.length).put(data).flip());
                    default -> w.write(new ByteBuffer[] {ByteBuffer.wrap(data, 0, data.length / 2),
                            ByteBuffer.allocateDirect(data.length / 2).put(0, data, data.length / 2, data.length / 2)});
                };
                assertEquals(data.length, n, "way " + way);
            }
            assertArrayEquals(data, await(got), "way " + way);
            join(reader, "the reader");
        }
    }

    /**
     * A file whose name is not valid UTF-8 (the platform's encoding here), as a directory listing gives it: the
     * channel opens that file, and a truncating write replaces its bytes (uring4j encoded the path's string, whose
     * invalid byte reads U+FFFD, and so opened, or created, another file).
     */
    @Test
    void aFileWhoseNameIsNotValidInThePlatformEncodingIsTheOneOpened() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("names"));
        Process mk = new ProcessBuilder("/bin/sh", "-c", "printf original > \"$(printf 'lat\\351')\"")
                .directory(sub.toFile()).inheritIO().start();
        assertEquals(0, mk.waitFor());
        List<Path> listed;
        try (var l = Files.list(sub)) {
            listed = l.toList();
        }
        assertEquals(1, listed.size());
        Path p = listed.get(0);
        assertTrue(p.toString().contains("\uFFFD"), p.toString());
        try (FileChannel ch = open(p, READ)) {
            assertEquals("original", new String(read(ch, 0, 8), java.nio.charset.StandardCharsets.US_ASCII));
        }
        try (FileChannel ch = open(p, WRITE, TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap("changed".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        }
        try (var l = Files.list(sub)) {
            assertEquals(1, l.count(), "no second file");
        }
        try (FileChannel jdk = FileChannel.open(p, READ)) {
            assertEquals("changed", new String(read(jdk, 0, 7), java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(7, jdk.size());
        }
    }

    /**
     * Direct buffers a channel read into and wrote from are not kept once the caller drops them (uring4j's cache of
     * buffers' addresses held every {@code allocateDirect} buffer it saw, through its segment's scope).
     */
    @Test
    void directBuffersAChannelUsedAreNotKept() throws Exception {
        Path p = file("f", pattern(4096, 74));
        List<java.lang.ref.WeakReference<ByteBuffer>> used = new ArrayList<>();
        try (FileChannel ch = open(p, READ, WRITE)) {
            for (int i = 0; i < 64; i++) {
                ByteBuffer b = ByteBuffer.allocateDirect(4096);
                assertEquals(4096, ch.read(b, 0));
                assertEquals(4096, ch.write(b.flip(), 0));
                used.add(new java.lang.ref.WeakReference<>(b));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (used.stream().anyMatch(w -> w.get() != null) && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, used.stream().filter(w -> w.get() != null).count(), "buffers still reachable");
    }

    @Test
    void aLockHeldByAnotherProcessIsWaitedFor() throws Exception {
        aLockHeldByAnotherProcessIsWaitedFor(Thread.ofPlatform());
    }

    /** uring4j's channel tries first on a virtual thread (see VirtualThreadLocksTest): the wait must still come. */
    @Test
    void aLockHeldByAnotherProcessIsWaitedForByAVirtualThread() throws Exception {
        aLockHeldByAnotherProcessIsWaitedFor(Thread.ofVirtual());
    }

    private void aLockHeldByAnotherProcessIsWaitedFor(Thread.Builder threads) throws Exception {
        Path p = file("f", pattern(10, 71));
        try (SecondProcess other = SecondProcess.start(); FileChannel ch = open(p, READ, WRITE)) {
            assertEquals("HOLDING", other.ask("hold " + p));
            assertNull(ch.tryLock(), "tryLock does not wait");
            assertNull(ch.tryLock(5, 5, true));
            CompletableFuture<FileLock> waiting = new CompletableFuture<>();
            Thread t = threads.name("locker").start(() -> {
                try {
                    waiting.complete(ch.lock());
                } catch (Throwable e) {
                    waiting.completeExceptionally(e);
                }
            });
            assertFalse(waiting.isDone(), "lock() waits while the other process holds the file");
            assertEquals("RELEASED", other.ask("release"));
            FileLock got = await(waiting);
            join(t, "the locker");
            assertTrue(got.isValid());
            assertEquals("BUSY", other.ask("try " + p + " 0 1 true"));
            got.release();
        }
    }

    /**
     * Channels dropped without {@code close()}: ones that read, wrote, mapped their file (uring4j's maps through the
     * JDK's channel of a second descriptor), and {@code O_DIRECT} ones read from virtual threads (uring4j's reads go
     * to a ring, on a descriptor of its own). Once they are unreachable every descriptor comes back, as the JDK's
     * channels give theirs back, and the file reads right from a new channel.
     */
    @Test
    void channelsDroppedWithoutCloseGiveEveryDescriptorBackOnceUnreachable() throws Exception {
        Path p = file("f", pattern(8192, 98));
        int align = (int) Files.getFileStore(p).getBlockSize();
        for (int i = 0; i < 400; i++) {
            int kind = i % 4;
            if (kind == 3) {
                CompletableFuture<Integer> read = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> {
                    try {
                        FileChannel ch = open(p, READ, Conform.DIRECT);
                        read.complete(ch.read(ByteBuffer.allocateDirect(2 * align).alignedSlice(align).limit(align), 0));
                    } catch (Throwable t) {
                        read.completeExceptionally(t);
                    }
                });
                assertEquals(align, await(read));
                continue;
            }
            FileChannel ch = open(p, READ, WRITE);
            switch (kind) {
                case 0 -> assertEquals(100, ch.read(ByteBuffer.allocate(100), 0));
                case 1 -> assertEquals(1, ch.write(ByteBuffer.wrap(new byte[] {pattern(8192, 98)[i]}), i));
                default -> assertEquals(8192, ch.map(MapMode.READ_ONLY, 0, 8192).capacity());
            }
        }
        List<String> open = Conform.fdsUnderAfterCollection(dir);
        assertEquals(0, open.size(), "descriptors of dropped channels a minute after they were dropped: " + open);
        try (FileChannel ch = open(p, READ)) {
            assertArrayEquals(pattern(8192, 98), read(ch, 0, 8192));
        }
    }

    // ============================================================================================= O_DIRECT

    @Test
    void directIoWithAlignedBuffersPositionsAndLengthsWorks() throws Exception {
        Path p = file("f", new byte[0]);
        int align = (int) Files.getFileStore(p).getBlockSize();
        byte[] data = pattern(3 * align, 72);
        try (FileChannel ch = open(p, READ, WRITE, Conform.DIRECT)) {
            ByteBuffer b = ByteBuffer.allocateDirect(4 * align + align).alignedSlice(align);
            b.put(data).flip();
            assertEquals(3 * align, ch.write(b, align));
            assertEquals(4L * align, ch.size());
            b.clear();
            assertEquals(3 * align, ch.read(b, align));
            byte[] back = new byte[3 * align];
            b.flip().get(back);
            assertArrayEquals(data, back);
            ch.position(2L * align);
            assertEquals(2 * align, ch.read(b.clear()), "the end of the file cuts a direct read short");
            assertEquals(-1, ch.read(b.clear()));
            assertEquals(0, ch.read(b.clear().limit(0)));
            ch.truncate(align + 100);
            assertEquals(100, ch.read(b.clear().limit(2 * align), align), "a partial last block");
            try (Arena arena = Arena.ofConfined()) {
                ByteBuffer s = arena.allocate(align, align).asByteBuffer();
                assertEquals(align, ch.read(s, 0));
            }
            // The JDK stages a heap buffer through aligned memory of its own.
            ByteBuffer heap = ByteBuffer.allocate(align);
            assertEquals(align, ch.read(heap, 0));
            assertEquals(0, ch.map(MapMode.READ_ONLY, 0, 10).get(0), "maps do not care");
        }
    }

    /**
     * With DIRECT the position, the bytes remaining and the buffer's address must be multiples of the block size;
     * the JDK checks before the kernel sees the call and throws a plain IOException that names the block size.
     */
    @Test
    void directIoRefusesUnalignedPositionsLengthsAndAddresses() throws Exception {
        Path p = file("f", new byte[16384]);
        int align = (int) Files.getFileStore(p).getBlockSize();
        try (FileChannel ch = open(p, READ, WRITE, Conform.DIRECT)) {
            ByteBuffer b = ByteBuffer.allocateDirect(3 * align).alignedSlice(align);
            List<Conform.Action> wrong = List.of(
                    () -> ch.read(b.clear().limit(align), 1),
                    () -> ch.write(b.clear().limit(align), align / 2),
                    () -> ch.read(b.clear().limit(100), 0),
                    () -> ch.write(b.clear().limit(align + 1), 0),
                    () -> ch.read(b.clear().position(1).limit(align + 1), 0),
                    () -> ch.write(b.clear().position(512).limit(align + 512), 0),
                    () -> ch.read(b.clear().position(1).limit(1), 0),
                    () -> ch.read(ByteBuffer.allocate(100), 0),
                    () -> ch.read(new ByteBuffer[] {b.clear().limit(100)}),
                    () -> ch.position(3).read(b.clear().limit(align)),
                    () -> ch.position(0).transferTo(0, 100, Channels.newChannel(new ByteArrayOutputStream())));
            for (int i = 0; i < wrong.size(); i++) {
                IOException e = assertThrows(IOException.class, wrong.get(i)::run, "case " + i);
                assertEquals(IOException.class, e.getClass(), "case " + i);
                assertTrue(e.getMessage().contains(String.valueOf(align)), "case " + i + ": " + e.getMessage());
            }
            assertTrue(ch.isOpen());
            assertEquals(align, ch.read(b.clear().limit(align), 0));
        }
        assertArrayEquals(new byte[16384], Files.readAllBytes(p));
    }

    /**
     * A buffer of a closed arena on an {@code O_DIRECT} channel: the JDK looks at where its position lies and how many
     * bytes it has before it asks for the memory, so an unaligned one is an {@code IOException}, an aligned one
     * {@code IllegalStateException}; one with nothing to move is read and written as nothing. (uring4j's asked for the
     * memory first: {@code IllegalStateException} for all.)
     */
    @Test
    void directIoChecksAlignmentBeforeItFindsAClosedArena() throws Exception {
        Path p = file("f", new byte[16384]);
        int align = (int) Files.getFileStore(p).getBlockSize();
        Arena arena = Arena.ofShared();
        MemorySegment s = arena.allocate(3L * align, align);
        ByteBuffer aligned = s.asSlice(0, align).asByteBuffer();
        ByteBuffer offBlock = s.asSlice(1, align).asByteBuffer();
        ByteBuffer shortOne = s.asSlice(0, 100).asByteBuffer();
        ByteBuffer empty = s.asSlice(0, 0).asByteBuffer();
        arena.close();
        try (FileChannel ch = open(p, READ, WRITE, Conform.DIRECT)) {
            for (Conform.Action a : List.<Conform.Action>of(() -> ch.read(offBlock, 0), () -> ch.write(offBlock, 0),
                    () -> ch.read(offBlock), () -> ch.read(shortOne, 0), () -> ch.write(shortOne))) {
                IOException e = assertThrows(IOException.class, a::run);
                assertTrue(e.getMessage().contains("block size (" + align + ")"), e.getMessage());
            }
            assertTrue(assertThrows(IOException.class, () -> ch.read(offBlock, 0)).getMessage()
                    .startsWith("Current position of the bytebuffer (0)"));
            assertThrows(IllegalStateException.class, () -> ch.read(aligned, 0));
            assertThrows(IllegalStateException.class, () -> ch.write(aligned));
            assertEquals(0, ch.read(empty, 0));
            assertEquals(0, ch.write(empty));
            assertEquals(0, ch.position());
            assertTrue(ch.isOpen());
        }
    }

    /**
     * A scattering read or gathering write whose array holds a buffer of a closed arena fails with
     * {@code IllegalStateException} before anything moves (another thread's confined one with
     * {@code WrongThreadException}), as the JDK's (which holds every buffer's memory before the
     * call): uring4j's read the buffers before it into the file's next bytes, moved the position past them, then
     * threw, and those bytes were lost. On an {@code O_DIRECT} channel that comes before the sizes are checked.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aClosedArenasBufferInAVectorFailsItBeforeAnythingMoves(boolean direct) throws Exception {
        Path p = file("f", pattern(16384, 81));
        int align = (int) Files.getFileStore(p).getBlockSize();
        Arena arena = Arena.ofShared();
        ByteBuffer freed = arena.allocate(align, align).asByteBuffer();
        arena.close();
        Set<OpenOption> o = direct ? Set.of(READ, WRITE, Conform.DIRECT) : Set.of(READ, WRITE);
        try (FileChannel ch = open(p, o)) {
            ByteBuffer good = ByteBuffer.allocateDirect(2 * align).alignedSlice(align).limit(align);
            assertThrows(IllegalStateException.class, () -> ch.read(new ByteBuffer[] {good, freed}));
            assertEquals(0, good.position(), "nothing read into the buffer before the freed one");
            assertEquals(0, ch.position());
            assertThrows(IllegalStateException.class, () -> ch.write(new ByteBuffer[] {good, freed}));
            assertEquals(0, good.position());
            assertEquals(0, ch.position());
            ByteBuffer shortOne = ByteBuffer.allocateDirect(100);
            assertThrows(IllegalStateException.class, () -> ch.read(new ByteBuffer[] {freed, shortOne}),
                    "a buffer's memory is asked for before its size is checked");
            if (direct) {
                assertThrows(IOException.class, () -> ch.read(new ByteBuffer[] {shortOne, freed}),
                        "the buffers are checked in turn");
            }
            ByteBuffer[] others = new ByteBuffer[1];
            Thread owner = new Thread(() -> others[0] = Arena.ofConfined().allocate(align, align).asByteBuffer());
            owner.start();
            owner.join();
            assertThrows(WrongThreadException.class, () -> ch.read(new ByteBuffer[] {good, others[0]}));
            assertEquals(0, good.position(), "nothing read before another thread's confined buffer");
            assertEquals(0, ch.position());
            assertThrows(WrongThreadException.class, () -> ch.write(new ByteBuffer[] {good, others[0]}));
            assertEquals(0, ch.position());
        }
        assertArrayEquals(pattern(16384, 81), Files.readAllBytes(p));
    }

    /** A buffer's bytes up to its position, the buffer flipped (ready to write them). */
    private static byte[] flipped(ByteBuffer b) {
        b.flip();
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /**
     * One buffer given three times to a scattering read. The JDK's channel reads three buffers' worth from the file
     * (its position moves by all of them): into a direct buffer three times over, so it holds the last third, and a
     * heap buffer's copy back overflows ({@code BufferOverflowException}, the bytes lost). uring4j's reads a buffer
     * until it is full and passes over it after that, so it reads what the buffer holds and no more. Gathering writes
     * agree: the buffer's bytes are written three times.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void oneBufferThreeTimesInAVector(boolean heap) throws Exception {
        Path p = file("f", pattern(100, 82));
        try (FileChannel ch = open(p, READ, WRITE)) {
            ByteBuffer b = heap ? ByteBuffer.allocate(10) : ByteBuffer.allocateDirect(10);
            ByteBuffer[] three = {b, b, b};
            if (kind() == Kind.JDK) {
                if (heap) {
                    assertThrows(java.nio.BufferOverflowException.class, () -> ch.read(three));
                } else {
                    assertEquals(30, ch.read(three));
                    assertArrayEquals(range(pattern(100, 82), 20, 10), flipped(b));
                }
                assertEquals(30, ch.position());
            } else {
                assertEquals(10, ch.read(three));
                assertArrayEquals(range(pattern(100, 82), 0, 10), flipped(b));
                assertEquals(10, ch.position());
            }
            ch.position(0);
            byte[] ten = pattern(10, 83);
            b.clear().put(ten).flip();
            assertEquals(30, ch.write(three));
            assertEquals(30, ch.position());
        }
        byte[] disk = Files.readAllBytes(p);
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(pattern(10, 83), range(disk, 10 * i, 10), "copy " + i);
        }
    }

    // ===================================================================================== virtual threads

    /**
     * 10,000 virtual threads each read their own block through one channel. Every read must be right; the number of
     * carrier threads they ran on is printed, not judged here (the JDK's pin a carrier per read, uring4j's are meant
     * to leave it).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tenThousandVirtualThreadsReadCorrectlyAndTheirCarriersAreCounted(boolean direct) throws Exception {
        int threads = 10_000;
        int block = 4096;
        Path p = dir.resolve("blocks");
        try (FileChannel w = FileChannel.open(p, WRITE, CREATE_NEW)) {
            ByteBuffer b = ByteBuffer.allocate(block * 256);
            for (int i = 0; i < threads; i++) {
                b.putInt(i).put(pattern(block - 4, i));
                if (!b.hasRemaining()) {
                    w.write(b.flip());
                    b.clear();
                }
            }
            w.write(b.flip());
        }
        Set<OpenOption> o = direct ? Set.of(READ, Conform.DIRECT) : Set.of(READ);
        Set<String> carriers = ConcurrentHashMap.newKeySet();
        AtomicInteger wrong = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Throwable> firstFailure = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> all = new ArrayList<>(threads);
        try (FileChannel ch = open(p, o)) {
            for (int i = 0; i < threads; i++) {
                int id = i;
                all.add(Thread.ofVirtual().start(() -> {
                    carriers.add(carrier());
                    ByteBuffer b = ByteBuffer.allocateDirect(2 * block).alignedSlice(block).limit(block);
                    try {
                        int n = ch.read(b, (long) id * block);
                        carriers.add(carrier());
                        b.flip();
                        byte[] rest = new byte[block - 4];
                        boolean right = n == block && b.getInt() == id;
                        b.get(rest);
                        if (!right || !Arrays.equals(rest, pattern(block - 4, id))) {
                            wrong.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        wrong.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : all) {
                join(t, "a reader");
            }
        }
        if (firstFailure.get() != null) {
            throw new AssertionError(wrong.get() + " reads failed", firstFailure.get());
        }
        assertEquals(0, wrong.get(), "reads that returned the wrong bytes");
        System.out.printf("%s %s: %d virtual threads read through %d carrier threads (%d processors)%n",
                getClass().getSimpleName(), direct ? "O_DIRECT" : "buffered", threads, carriers.size(),
                Runtime.getRuntime().availableProcessors());
        checkCarriers(carriers.size(), direct);
    }

    /**
     * Judges how many carrier threads 10,000 virtual readers needed. Nothing is asserted here: the JDK's channel pins
     * a carrier for each O_DIRECT read and its scheduler adds carriers to make up (up to 256), so the number is only
     * recorded; a channel that parks its readers can assert a bound by overriding this.
     */
    void checkCarriers(int carriers, boolean direct) {
    }

    /** The carrier a virtual thread runs on now, from its toString ("VirtualThread[#n]/runnable@carrier"). */
    static String carrier() {
        String s = Thread.currentThread().toString();
        int at = s.lastIndexOf('@');
        return at < 0 ? s : s.substring(at + 1);
    }

    /** Case 19: 100,000 virtual threads share one channel and all complete with the right bytes. */
    @Test
    void case19HundredThousandVirtualThreadsShareOneChannel() throws Exception {
        int threads = 100_000;
        byte[] data = pattern(1 << 20, 73);
        Path p = file("f", data);
        AtomicInteger wrong = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        try (FileChannel ch = open(p, READ); var exec = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < threads; i++) {
                int at = (i * 4099) % (data.length - 64);
                exec.execute(() -> {
                    ByteBuffer b = ByteBuffer.allocate(64);
                    try {
                        if (ch.read(b, at) != 64 || !Arrays.equals(b.array(), range(data, at, 64))) {
                            wrong.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        wrong.incrementAndGet();
                    }
                    done.incrementAndGet();
                });
            }
            exec.shutdown();
            assertTrue(exec.awaitTermination(Conform.WAIT_SECONDS, TimeUnit.SECONDS),
                    "only " + done.get() + " of " + threads + " reads finished");
        }
        assertEquals(threads, done.get());
        assertEquals(0, wrong.get());
    }

    /** Closing with nothing else going on gives the descriptor back. */
    @Test
    void closeGivesTheDescriptorBackAndIsIdempotent() throws Exception {
        Path p = file("f", pattern(10, 74));
        Set<Integer> before = Conform.fdsOf(p);
        FileChannel ch = open(p, READ);
        ch.close();
        ch.close();
        assertFalse(ch.isOpen());
        assertEquals(before, Conform.fdsOf(p));
    }

    /**
     * The empty path is the current directory, as the JDK's channel opens it: read-only it opens, says the
     * directory's size, and a read fails as a directory's does; with {@code CREATE_NEW} it exists already.
     */
    @Test
    void theEmptyPathOpensTheCurrentDirectory() throws Exception {
        Path empty = Path.of("");
        long want = Files.size(Path.of("."));
        try (FileChannel ch = open(empty, READ)) {
            assertEquals(want, ch.size());
            IOException e = assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(10)));
            assertEquals("Is a directory", e.getMessage());
        }
        assertThrows(java.nio.file.FileAlreadyExistsException.class,
                () -> open(empty, WRITE, CREATE_NEW));
    }
}
