package io.github.uring4j.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * The default file system with its file channels from {@link UringFiles}: installed as the default provider, it
 * gives an unchanged program uring4j's {@link FileChannel} and {@link AsynchronousFileChannel}.
 * <p>
 * Install it by naming it in a system property (the JDK calls {@link #UringFileSystemProvider(FileSystemProvider)}
 * with its own provider at the first use of the default file system):
 * <pre>
 * java --enable-native-access=ALL-UNNAMED \
 *      -Djava.nio.file.spi.DefaultFileSystemProvider=io.github.uring4j.nio.UringFileSystemProvider \
 *      -cp app.jar:uring4j-core-0.1.0-SNAPSHOT.jar app.Main
 * </pre>
 * On the module path the module must be resolved at start-up: add {@code --add-modules io.github.uring4j.core} and
 * grant {@code --enable-native-access=io.github.uring4j.core} (see the package documentation).
 * <p>
 * What goes to {@link UringFiles}: {@code FileChannel.open} ({@link #newFileChannel}), {@code Files.newByteChannel}
 * and with it {@code Files.readAllBytes} and {@code readString} ({@link #newByteChannel}), {@code Files.lines}
 * (through {@code FileChannel.open}), {@code AsynchronousFileChannel.open} ({@link #newAsynchronousFileChannel}),
 * and the streams (of any file but a directory): {@code Files.newInputStream}, {@code newOutputStream}, {@code newBufferedReader},
 * {@code newBufferedWriter}, {@code write}, {@code writeString}, {@code readAllLines} ({@link #newInputStream},
 * {@link #newOutputStream}). Everything else is the built-in provider's, unchanged: paths, attributes, directory
 * streams (a {@link java.nio.file.SecureDirectoryStream} as before), watch services, file stores, {@code copy},
 * {@code move}, {@code delete}. Its paths and file system are its own, standing for the built-in ones, so that the
 * JDK comes back to this provider for every file operation; built-in paths made before it was installed are taken
 * wherever a path is expected.
 * <p>
 * Where it differs from the JDK: {@code Files.copy} between two paths, and the input stream of a directory, are the
 * JDK's own (the streams of FIFOs and devices are this provider's, and never seek, as the JDK's do); the JDK keeps its channel behind
 * {@code Files.readAllBytes}, {@code readString} and the streams from being closed by an interrupt, which this
 * provider does for a channel that can be told to (see the package documentation), and otherwise only for an
 * interrupt made before the call; {@code java.net.UnixDomainSocketAddress} accepts only paths of the JDK's own
 * file system, so Unix domain sockets cannot be used while another provider is the default.
 */
public final class UringFileSystemProvider extends FileSystemProvider {
    /**
     * Made at its first use, not with the provider: the JDK installs the provider at the program's first path, and a
     * walker made there cost a fresh JVM 6 ms before that path (the method handles' first use).
     */
    private static final class Stack {
        static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    }

    /**
     * The provider's channels from {@link UringFiles#newFileChannel}: a class, not a method reference, for the same
     * reason (the first lambda of a fresh JVM took 5 ms).
     */
    private static final class OwnChannels implements Opener {
        @Override
        public FileChannel open(Path builtinPath, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
                throws IOException {
            return UringFiles.newFileChannel(builtinPath, options, attrs);
        }
    }
    /** As the built-in {@code newOutputStream} with no options. */
    private static final Set<OpenOption> DEFAULT_OUTPUT_OPTIONS = Set.of(StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);

    /** Opens the provider's file channels: {@link UringFiles}, or in tests a stand-in. */
    interface Opener {
        FileChannel open(Path builtinPath, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
                throws IOException;
    }

    private final FileSystemProvider builtin;
    private final FileSystem builtinFs;
    private final UringFileSystem fs;
    private final Opener opener;
    /** {@link #opener} is {@link UringFiles#newFileChannel}, whose channels say what their file is. */
    private final boolean ownChannels;

    /**
     * The provider over {@code builtin}, the JDK's provider of the default file system: the constructor the JDK
     * calls when the system property {@code java.nio.file.spi.DefaultFileSystemProvider} names this class. The
     * first one made in a JVM starts a daemon thread that links the native calls the first files need and starts
     * the default {@code IoExecutor}, so that the program's first open does not wait for them (the FFM linker's
     * first use takes a tenth of a second in a fresh JVM); until it is done, whole-file calls of {@code Files} are
     * the JDK's own (see the package documentation).
     *
     * @param builtin the built-in provider of the default file system (a {@code UringFileSystemProvider} is
     *                taken for the provider it wraps)
     */
    public UringFileSystemProvider(FileSystemProvider builtin) {
        this(builtin, new OwnChannels(), true);
        UringFiles.lookEarly();
    }

    /** The provider over {@code builtin} with its file channels from {@code opener}. */
    UringFileSystemProvider(FileSystemProvider builtin, Opener opener) {
        this(builtin, opener, false);
    }

    private UringFileSystemProvider(FileSystemProvider builtin, Opener opener, boolean ownChannels) {
        this.opener = opener;
        this.ownChannels = ownChannels;
        if (builtin instanceof UringFileSystemProvider u) {
            builtin = u.builtin;
        }
        if (!builtin.getScheme().equals("file")) {
            throw new IllegalArgumentException("not the provider of the default file system: " + builtin);
        }
        this.builtin = builtin;
        Builtin.installedOver(builtin);
        this.builtinFs = builtin.getFileSystem(URI.create("file:///"));
        this.fs = new UringFileSystem(this, builtinFs);
    }

    /**
     * The provider over the default file system's provider (when that is a {@code UringFileSystemProvider}, over
     * the provider it wraps): for a program that makes one itself instead of installing it.
     */
    public UringFileSystemProvider() {
        this(FileSystems.getDefault().provider());
    }

    /** The file system of this provider's paths: the default file system once installed. */
    FileSystem fileSystem() {
        return fs;
    }

    /**
     * The built-in path of a path given to a method that opens through {@link UringFiles}: as the built-in
     * provider checks, {@code NullPointerException} for {@code null}, then {@code ProviderMismatchException} for a
     * path of another provider.
     */
    private Path builtinPath(Path path) {
        if (path == null) {
            throw new NullPointerException();
        }
        Path p = Builtin.path(path);
        if (p.getFileSystem() != builtinFs) {
            throw new ProviderMismatchException();
        }
        return p;
    }

    private static Path unwrap(Path path) {
        return Builtin.path(path);
    }

    /**
     * Whether the file is a regular file, or there is none (then opening it through {@link UringFiles} creates
     * one or throws what the JDK throws); {@code false} for FIFOs, devices, sockets and directories.
     */
    private boolean regularOrAbsent(Path file) {
        try {
            BasicFileAttributes a = builtin.readAttributesIfExists(file, BasicFileAttributes.class);
            return a == null || a.isRegularFile();
        } catch (IOException e) {
            return true; // the open says why, as the JDK's would
        }
    }

    /**
     * Whether the caller is {@code Files.readAllBytes} (or {@code readString}, which calls it) opening or reading
     * this provider's channel: the JDK makes its own channel uninterruptible there, and so does this provider. Only
     * the JDK's own frames may lie between this provider's and that of {@code readAllBytes} ({@code Files}, the
     * stream it reads the channel with): another file system reading its file through this provider's channel
     * under a {@code readAllBytes} of its own (the zip file system's) keeps its channel interruptible, as the
     * JDK's.
     */
    static boolean calledByReadAllBytes() {
        // Classes compare by reference: only a frame of Files has its method name looked up (a name is a new
        // String each time). uring4j's own channels ask only when an interrupt meets them.
        return Stack.WALKER.walk(frames -> {
            java.util.Iterator<StackWalker.StackFrame> it = frames.limit(20).iterator();
            while (it.hasNext()) {
                StackWalker.StackFrame f = it.next();
                Class<?> c = f.getDeclaringClass();
                if (c == Files.class) {
                    if (f.getMethodName().equals("readAllBytes")) {
                        return true;
                    }
                } else if (!isOwnOrStreamFrame(c)) {
                    return false;
                }
            }
            return false;
        });
    }

    /** A class whose frames may lie between a channel's and {@code Files.readAllBytes}': this package, the JDK's stream. */
    private static boolean isOwnOrStreamFrame(Class<?> c) {
        if (c.getPackage() == UringFileSystemProvider.class.getPackage()) {
            return true;
        }
        String n = c.getName();
        return n.equals("sun.nio.ch.ChannelInputStream") || n.equals("java.io.InputStream")
                || n.startsWith("java.nio.channels.Channels");
    }

    /**
     * The methods of {@link Files} that open a file, move its bytes and close it again before they return: what they
     * open never reaches the program.
     */
    private static final Set<String> WHOLE_FILE = Set.of("readAllBytes", "readString", "readAllLines", "write",
            "writeString", "copy", "mismatch");

    /**
     * Whether the JDK's own channel or stream is to serve this open: while the provider's calls are still being
     * linked ({@link UringFiles#whileLinking}), for a whole-file call of {@link Files} ({@link #WHOLE_FILE}), which
     * then takes what it takes on the built-in provider instead of waiting for the links (a tenth of a second in a
     * fresh JVM). A channel a program keeps ({@code FileChannel.open}, the streams and readers it holds) waits and is
     * uring4j's. Counted in {@link DropInStatistics#jdkWhileLinking()}.
     */
    private boolean jdkWhileLinking() {
        if (!ownChannels || !UringFiles.whileLinking()) {
            return false;
        }
        // A Throwable's trace, not a StackWalker: this runs only in a JVM's first moments, where the walker's first
        // use took 9-14 ms (its classes and lambdas) and the trace 0.08 ms.
        boolean files = false;
        for (StackTraceElement f : new Throwable().getStackTrace()) {
            if (f.getClassName().equals("java.nio.file.Files")) {
                files = true;
                if (WHOLE_FILE.contains(f.getMethodName())) {
                    Counters.JDK_WHILE_LINKING.increment();
                    return true;
                }
            } else if (files || !f.getClassName().startsWith("io.github.uring4j.nio.")) {
                // the provider's frames, then those of Files that called it: a Files method further down the
                // stack (a program's Iterable that Files.write runs, opening a file it keeps) does not count
                return false;
            }
        }
        return false;
    }

    /** {@return {@code "file"}} */
    @Override
    public String getScheme() {
        return "file";
    }

    /** As the built-in provider's: the default file system exists already. */
    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) throws IOException {
        return builtin.newFileSystem(uri, env);
    }

    /** This provider's file system, for the URI the built-in provider takes ({@code file:///}). */
    @Override
    public FileSystem getFileSystem(URI uri) {
        builtin.getFileSystem(uri);
        return fs;
    }

    /** The built-in provider's path for the URI, as this provider's. */
    @Override
    public Path getPath(URI uri) {
        return fs.wrap(builtin.getPath(uri));
    }

    /** As the built-in provider's. */
    @Override
    public FileSystem newFileSystem(Path path, Map<String, ?> env) throws IOException {
        return builtin.newFileSystem(unwrap(path), env);
    }

    /**
     * A stream of a regular file over a channel from {@link UringFiles#newFileChannel}, with the JDK's stream's
     * semantics; the built-in provider's stream for anything else (a FIFO, a device, {@code /dev/stdin}).
     */
    @Override
    public InputStream newInputStream(Path path, OpenOption... options) throws IOException {
        for (OpenOption opt : options) {
            if (opt == StandardOpenOption.APPEND || opt == StandardOpenOption.WRITE) {
                throw new UnsupportedOperationException("'" + opt + "' not allowed");
            }
        }
        if (path != null && Builtin.path(path).getFileSystem() != builtinFs) {
            // the built-in provider opens another provider's path with that provider (Files.newByteChannel)
            return builtin.newInputStream(path, options);
        }
        Path file = builtinPath(path);
        if (jdkWhileLinking()) {
            return builtin.newInputStream(file, options);
        }
        Set<OpenOption> opts = new HashSet<>(options.length);
        for (OpenOption opt : options) {
            if (opt == null) {
                throw new NullPointerException();
            }
            opts.add(opt);
        }
        if (ownChannels && !UringFiles.jdkChannels()) {
            // Opened first, as the JDK's stream is (a FIFO's open waits for a writer there too); what the file is,
            // and how long, comes from the descriptor: a look at the path first walked it a second time: 14% of the
            // time of a stream of a small file read by its first line (async-profiler).
            FileChannel ch = opener.open(file, opts);
            if (ch instanceof UringFileChannel u) {
                u.setUninterruptible(); // the stream's channel, as the JDK's: a pending interrupt does not close it
                boolean directory;
                try {
                    directory = u.lookAtFile();
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw e;
                }
                if (directory) {
                    // the JDK's stream answers available() for it from the end lseek finds (ext4: Integer.MAX_VALUE)
                    try {
                        if (opts.contains(StandardOpenOption.DELETE_ON_CLOSE)) {
                            // the open above unlinked the name (a symbolic link to it, followed as the JDK follows it
                            // with CREATE_NEW): the JDK's stream over the same directory, through our descriptor
                            return builtin.newInputStream(file.getFileSystem().getPath("/proc/self/fd/" + u.fd));
                        }
                        return builtin.newInputStream(file, options);
                    } finally {
                        ch.close();
                    }
                }
                return new FileChannelInputStream(ch);
            }
            // io_uring turned out unusable meanwhile: the JDK's channel, and its own stream over it, which asks it
            // whether it may seek
            return Channels.newInputStream(ch);
        }
        if (!regularOrAbsent(file)) {
            return builtin.newInputStream(file, options);
        }
        return new FileChannelInputStream(opener.open(file, opts));
    }

    /**
     * A stream to a file (created if the options say so) over a channel from {@link UringFiles#newFileChannel},
     * with the JDK's stream's semantics: a regular file, a FIFO or a device such as {@code /dev/null} alike. With
     * another opener (or when io_uring turned out unusable), the built-in provider's stream for all but regular files.
     */
    @Override
    public OutputStream newOutputStream(Path path, OpenOption... options) throws IOException {
        Set<OpenOption> opts;
        if (options.length == 0) {
            opts = DEFAULT_OUTPUT_OPTIONS;
        } else {
            opts = new HashSet<>(options.length + 1);
            for (OpenOption opt : options) {
                if (opt == StandardOpenOption.READ) {
                    throw new IllegalArgumentException("READ not allowed");
                }
                opts.add(opt);
            }
            if (opts.contains(null)) {
                throw new NullPointerException(); // after READ, wherever it stands, as the JDK's order says
            }
            opts.add(StandardOpenOption.WRITE);
        }
        Path file = builtinPath(path);
        if (jdkWhileLinking()) {
            return builtin.newOutputStream(file, options);
        }
        if (ownChannels && !UringFiles.jdkChannels()) {
            // Opened at once, as the JDK's stream is: a uring4j channel writes a FIFO or a device as well (through
            // the ring when it would wait, where closing the stream ends the write), and the stream never seeks. A look
            // at the path first walked it a second time: Files.write of one line to a log opened, appended to and
            // closed each time took 2.2 µs against the JDK's 1.25 µs.
            return new FileChannelOutputStream(UringFiles.newOutputStreamChannel(file, opts));
        }
        if (!regularOrAbsent(file)) {
            return builtin.newOutputStream(file, options);
        }
        return new FileChannelOutputStream(opener.open(file, opts));
    }

    /** {@link UringFiles#newFileChannel(Path, Set, FileAttribute...)}. */
    @Override
    public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        Path file = builtinPath(path);
        if (openedByImageReader(file)) {
            return builtin.newFileChannel(file, options, attrs);
        }
        return opener.open(file, options, attrs);
    }

    /**
     * Whether the JDK's reader of module images ({@code jdk.internal.jimage.BasicImageReader}, loaded by the boot
     * loader: the {@code jimage} tool, and any of the JDK's own code that reads an image other than the running one)
     * opens {@code file}: it makes the channel uninterruptible by reflection on the JDK's channel class, and failed with
     * {@code IllegalArgumentException} on uring4j's ("not an instance of sun.nio.ch.FileChannelImpl"). Only files
     * named {@code modules}, as images are, have the stack looked at.
     */
    private static boolean openedByImageReader(Path file) {
        String s = file.toString(); // kept by the JDK's path: no new string per open
        if (!s.endsWith("modules") || s.length() > 7 && s.charAt(s.length() - 8) != '/') {
            return false;
        }
        return Stack.WALKER.walk(frames -> frames.limit(16)
                .anyMatch(f -> f.getClassName().equals("jdk.internal.jimage.BasicImageReader")));
    }

    /** {@link UringFiles#newAsynchronousFileChannel(Path, Set, ExecutorService, FileAttribute...)}. */
    @Override
    public AsynchronousFileChannel newAsynchronousFileChannel(Path path, Set<? extends OpenOption> options,
            ExecutorService executor, FileAttribute<?>... attrs) throws IOException {
        return UringFiles.newAsynchronousFileChannel(builtinPath(path), options, executor, attrs);
    }

    /**
     * The {@link FileChannel} of {@link UringFiles#newFileChannel(Path, Set, FileAttribute...)}; for
     * {@code Files.readAllBytes} and {@code readString} one that interrupts do not close, as the JDK's there.
     */
    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options,
            FileAttribute<?>... attrs) throws IOException {
        if (jdkWhileLinking()) {
            return builtin.newByteChannel(builtinPath(path), options, attrs);
        }
        FileChannel ch = opener.open(builtinPath(path), options, attrs);
        if (ch instanceof UringFileChannel u) {
            // uring4j's channel looks at the stack only when an interrupt meets it: a walk per open cost an eighth
            // of a small file's Files.readAllBytes
            u.askWhenInterrupted();
            return ch;
        }
        if (Builtin.isJdks(ch) || !calledByReadAllBytes()) {
            return ch; // Files.readAllBytes tells the JDK's own channel itself
        }
        if (ch instanceof Builtin.Uninterruptible u) {
            u.setUninterruptible();
            return ch;
        }
        return new ShieldedChannel(ch);
    }

    /** The built-in provider's directory stream, with this provider's paths as its entries. */
    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
            throws IOException {
        // a null filter stays null: the built-in provider checks the path first, then the filter
        return UringDirectoryStream.of(fs,
                builtin.newDirectoryStream(unwrap(dir), UringDirectoryStream.filter(fs, filter)));
    }

    /** As the built-in provider's. */
    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        builtin.createDirectory(unwrap(dir), attrs);
    }

    /** As the built-in provider's. */
    @Override
    public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs) throws IOException {
        builtin.createSymbolicLink(unwrap(link), unwrap(target), attrs);
    }

    /** As the built-in provider's. */
    @Override
    public void createLink(Path link, Path existing) throws IOException {
        builtin.createLink(unwrap(link), unwrap(existing));
    }

    /** As the built-in provider's. */
    @Override
    public void delete(Path path) throws IOException {
        builtin.delete(unwrap(path));
    }

    /** As the built-in provider's. */
    @Override
    public boolean deleteIfExists(Path path) throws IOException {
        return builtin.deleteIfExists(unwrap(path));
    }

    /** The built-in provider's target, as this provider's path. */
    @Override
    public Path readSymbolicLink(Path link) throws IOException {
        return fs.wrap(builtin.readSymbolicLink(unwrap(link)));
    }

    /** As the built-in provider's, which copies in the kernel where it can. */
    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        builtin.copy(unwrap(source), unwrap(target), options);
    }

    /** As the built-in provider's. */
    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        builtin.move(unwrap(source), unwrap(target), options);
    }

    /** As the built-in provider's. */
    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
        return builtin.isSameFile(unwrap(path), unwrap(path2));
    }

    /** As the built-in provider's. */
    @Override
    public boolean isHidden(Path path) throws IOException {
        return builtin.isHidden(unwrap(path));
    }

    /** As the built-in provider's. */
    @Override
    public FileStore getFileStore(Path path) throws IOException {
        return builtin.getFileStore(unwrap(path));
    }

    /** As the built-in provider's. */
    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        builtin.checkAccess(unwrap(path), modes);
    }

    /** As the built-in provider's. */
    @Override
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
        return builtin.getFileAttributeView(unwrap(path), type, options);
    }

    /** As the built-in provider's. */
    @Override
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        return builtin.readAttributes(unwrap(path), type, options);
    }

    /** As the built-in provider's. */
    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options)
            throws IOException {
        return builtin.readAttributes(unwrap(path), attributes, options);
    }

    /** As the built-in provider's. */
    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
        builtin.setAttribute(unwrap(path), attribute, value, options);
    }

    /** As the built-in provider's. */
    @Override
    public boolean exists(Path path, LinkOption... options) {
        return builtin.exists(unwrap(path), options);
    }

    /** As the built-in provider's. */
    @Override
    public <A extends BasicFileAttributes> A readAttributesIfExists(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        return builtin.readAttributesIfExists(unwrap(path), type, options);
    }
}
