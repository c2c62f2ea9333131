package io.github.uring4j.file;

import io.github.uring4j.engine.Jmx;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/** The programs the child-JVM tests run (JVM exit, memlock limit, kill -9); each prints what the parent checks. */
public final class ChildMain {
    private ChildMain() {
    }

    public static void main(String[] args) throws Throwable {
        switch (args[0]) {
            case "exit" -> exit(Path.of(args[1]));
            case "memlock" -> memlock(Path.of(args[1]));
            case "descriptors" -> descriptors(Path.of(args[1]));
            case "durable" -> durable(Path.of(args[1]), Backend.valueOf(args[2]));
            case "seccomp" -> seccomp(Path.of(args[1]));
            case "denied" -> nativeAccessDenied(Path.of(args[1]));
            case "provider" -> provider(Path.of(args[1]), args.length > 2 && args[2].equals("files"));
            case "blocked" -> blocked(Path.of(args[1]));
            case "poolsOnLoops" -> poolsOnLoops(Path.of(args[1]));
            case "threadsClosedByHandlers" -> threadsClosedByHandlers(Path.of(args[1]));
            case "exitNap" -> exitNap(Path.of(args[1]));
            case "exitInCompletion" -> exitInCompletion(Path.of(args[1]));
            case "jmxAtTheLimit" -> jmxAtTheLimit();
            case "jmxDeferred" -> jmxDeferred(Path.of(args[1]));
            case "writesBesideAWaitingJmxView" -> writesBesideAWaitingJmxView(Path.of(args[1]));
            case "virtualThreadAtTheLimit" -> virtualThreadAtTheLimit(Path.of(args[1]), args.length > 2);
            case "defaultExecutorClosed" -> defaultExecutorClosed(Path.of(args[1]));
            case "defaultLoops" -> defaultLoops(Path.of(args[1]));
            case "droppedPools" -> droppedPools();
            case "executorClosedRepeatedly" -> executorClosedRepeatedly(Path.of(args[1]));
            case "asyncChannelAtTheLimit" -> asyncChannelAtTheLimit(Path.of(args[1]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /**
     * An executor's loops idle in the kernel when the JVM exits: a shutdown hook of this program's watches their
     * threads, and prints {@code NAPPING n} once all n are parked in Java (a thread in {@code io_uring_enter} is in
     * native code, RUNNABLE to Java), or {@code IN-NATIVE} with their states after 5 s.
     */
    /** What {@link #exitNap} keeps reachable until the JVM ends. */
    static final java.util.List<Object> KEPT = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * {@code System.exit} called by a continuation on the loop, and a shutdown hook that writes to a file of that
     * loop: the hook's write fails at once (the loop waits inside the exit for the hooks) and the JVM exits.
     */
    static void exitInCompletion(Path dir) throws Exception {
        Path p = dir.resolve("exit-log");
        IoExecutor io = IoExecutor.builder().loops(1).name("exiter").build();
        AsyncFile log = AsyncFile.open(io, p, StandardOpenOption.CREATE, StandardOpenOption.WRITE).join();
        KEPT.add(io);
        KEPT.add(log);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                System.out.println("HOOK wrote " + log.write(ByteBuffer.wrap("bye".getBytes()), 0)
                        .get(30, java.util.concurrent.TimeUnit.SECONDS));
            } catch (Exception e) {
                Throwable c = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
                        ? e.getCause() : e;
                System.out.println("HOOK failed " + c);
            }
        }));
        AsyncFile reader = AsyncFile.open(io, p, StandardOpenOption.READ).join();
        KEPT.add(reader);
        // a handler: it runs on the loop whenever the read completes (a stage added to a future that had completed
        // already would run on this thread, and the loop would not be the one inside System.exit)
        reader.read(ByteBuffer.allocateDirect(1), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer n, Object a) {
                System.exit(3);
            }

            @Override
            public void failed(Throwable e, Object a) {
                System.exit(3);
            }
        });
        Thread.sleep(120_000); // the exit comes from the loop
    }

    static void exitNap(Path dir) throws Exception {
        Path p = dir.resolve("nap");
        java.nio.file.Files.write(p, new byte[4096]);
        IoExecutor io = IoExecutor.builder().loops(2).name("napper").callerReads(false).build();
        AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).join();
        KEPT.add(io); // reachable to the end: the executor's cleaner would close it otherwise, and end its loops
        KEPT.add(f);
        f.read(ByteBuffer.allocateDirect(4096), 0).join();
        java.util.List<Thread> loops = new java.util.ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("napper")) {
                loops.add(t);
            }
        }
        Thread.sleep(300); // past the loops' spin: asleep in the kernel
        StringBuilder before = new StringBuilder();
        for (Thread t : loops) {
            before.append(t.getName()).append('=').append(t.getState()).append(' ');
        }
        System.out.println("BEFORE " + before.toString().trim());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while (true) {
                StringBuilder states = new StringBuilder();
                int parked = 0;
                for (Thread t : loops) {
                    Thread.State st = t.getState();
                    parked += st == Thread.State.TIMED_WAITING || st == Thread.State.WAITING ? 1 : 0;
                    states.append(t.getName()).append('=').append(st).append(' ');
                }
                if (parked == loops.size()) {
                    System.out.println("NAPPING " + parked);
                    return;
                }
                if (System.nanoTime() > deadline) {
                    System.out.println("IN-NATIVE " + states.toString().trim());
                    return;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(200_000L);
            }
        }));
        // main returns with the executor and the file open
    }

    /**
     * For a JVM started with the provider installed: makes a path (the JDK installs the provider, which starts its
     * links on a thread of its own) and, with {@code files}, writes a file and reads it back through {@code Files};
     * without, returns at once, while that thread may still be at work.
     */
    static void provider(Path dir, boolean files) throws Exception {
        Path p = Path.of(dir.toString(), "provider.bin");
        System.out.println("PROVIDER " + p.getFileSystem().provider().getClass().getName());
        if (files) {
            byte[] data = new byte[70_000];
            new java.util.Random(7).nextBytes(data);
            java.nio.file.Files.write(p, data);
            byte[] back = java.nio.file.Files.readAllBytes(p);
            System.out.println("FILES " + (java.util.Arrays.equals(back, data) ? "OK" : "BAD"));
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p)) {
                ByteBuffer b = ByteBuffer.allocate(data.length);
                while (b.hasRemaining() && ch.read(b) >= 0) {
                    // to the end
                }
                System.out.println("CHANNEL " + ch.getClass().getName() + " "
                        + (java.util.Arrays.equals(b.array(), data) ? "OK" : "BAD"));
            }
            System.out.println("DROPIN-STATS " + io.github.uring4j.nio.UringFiles.statistics());
        }
    }

    /**
     * A loop kept from its work: an idle executor with a 300 ms {@code blockedLoopWarning} for 1.5 s, then a handler
     * that blocks its loop (in {@link #blockTheLoop}) until the parent has seen the warning in this JVM's output
     * (a line on stdin), while another read waits for that loop; then an executor with the warning off whose handler
     * sleeps 1.5 s. Prints markers between.
     */
    static void blocked(Path dir) throws Exception {
        Path p = dir.resolve("blocked");
        java.nio.file.Files.write(p, new byte[8192]);
        try (IoExecutor io = IoExecutor.builder().loops(1).name("watched").callerReads(false)
                .blockedLoopWarning(java.time.Duration.ofMillis(300)).build();
                AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).join()) {
            Thread.sleep(1500);
            System.out.println("IDLE-DONE");
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            f.read(ByteBuffer.allocateDirect(10), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object a) {
                    blockTheLoop(release);
                }

                @Override
                public void failed(Throwable e, Object a) {
                    release.countDown();
                }
            });
            java.util.concurrent.CompletableFuture<Integer> waiting = f.read(ByteBuffer.allocateDirect(10), 100);
            System.out.println("BLOCKED");
            System.out.flush();
            new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine(); // the parent saw it
            System.out.println("WAITING-DONE-BEFORE-RELEASE " + waiting.isDone());
            release.countDown();
            System.out.println("READ " + waiting.get(30, java.util.concurrent.TimeUnit.SECONDS));
            Thread.sleep(1000); // the watchdog sees the loop run again
        }
        System.out.println("UNWATCHED");
        try (IoExecutor io = IoExecutor.builder().loops(1).name("unwatched")
                .blockedLoopWarning(java.time.Duration.ZERO).build();
                AsyncFile f = AsyncFile.open(io, p, StandardOpenOption.READ).join()) {
            java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
            f.read(ByteBuffer.allocateDirect(10), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object a) {
                    try {
                        Thread.sleep(1500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    done.complete(null);
                }

                @Override
                public void failed(Throwable e, Object a) {
                    done.completeExceptionally(e);
                }
            });
            done.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        System.out.println("END");
    }

    static void blockTheLoop(java.util.concurrent.CountDownLatch release) {
        try {
            release.await(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Case 29: leaves executors open, a read pending on a pipe, and returns from main. */
    static void exit(Path dir) throws Exception {
        IoExecutor def = IoExecutor.defaultExecutor();
        IoExecutor own = IoExecutor.builder().loops(2).build();
        Path fifo = dir.resolve("fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        AsyncFile f = AsyncFile.open(own, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
        f.read(ByteBuffer.allocateDirect(8), 0);
        AsyncFile g = AsyncFile.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
        g.read(ByteBuffer.allocateDirect(8), 0);
        System.out.println("READY " + def.backend() + " " + own.backend());
        System.out.flush();
    }

    /**
     * A JVM that denies uring4j native access: the default executor runs on the JDK's channels and says why once;
     * an explicit io_uring executor is refused with the same reason.
     */
    static void nativeAccessDenied(Path dir) throws Exception {
        IoExecutor def = IoExecutor.defaultExecutor();
        System.out.println("BACKEND " + def.backend());
        System.out.println("REASON " + def.fallbackReason().orElse("none"));
        Path p = dir.resolve("denied");
        byte[] data = new byte[10_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        boolean ok;
        try (AsyncFile f = AsyncFile.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE).join()) {
            int w = f.writeFully(ByteBuffer.wrap(data), 100).join();
            ByteBuffer direct = ByteBuffer.allocateDirect(10_000);
            int r = f.readFully(direct, 100).join();
            MemorySegment seg = java.lang.foreign.Arena.ofAuto().allocate(10);
            int r2 = f.read(seg, 100).join();
            f.truncate(20_000).join();
            long size = f.size().join();
            f.force(true).join();
            ok = w == 10_000 && r == 10_000 && r2 == 10 && size == 20_000
                    && direct.flip().equals(ByteBuffer.wrap(data)) && seg.get(ValueLayout.JAVA_BYTE, 9) == data[9];
            // transferTo without native calls: chained reads and writes
            Path q = dir.resolve("denied-copy");
            try (AsyncFile to = AsyncFile.open(q, StandardOpenOption.CREATE, StandardOpenOption.WRITE).join()) {
                ok = ok && f.transferTo(100, 10_000, to, 0).join() == 10_000;
            }
            ok = ok && java.util.Arrays.equals(java.nio.file.Files.readAllBytes(q), data);
        }
        System.out.println("IO " + (ok ? "OK" : "BAD"));
        // a FIFO has no positions: its calls move bytes whatever position they name, as the kernel's do
        Path fifo = dir.resolve("denied-fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        try (AsyncFile f = AsyncFile.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join()) {
            int w = f.writeFully(ByteBuffer.wrap("through the fifo".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    4096).join();
            ByteBuffer got = ByteBuffer.allocate(16);
            int r = f.readFully(got, 12_345).join();
            String text = new String(got.array(), 0, got.position(), java.nio.charset.StandardCharsets.UTF_8);
            System.out.println("FIFO " + w + " " + r + " " + text);
            // a read waiting for bytes holds back no write of the same file (the JDK channel's relative read and
            // write share a lock: this write once waited for the read, which waited for it)
            java.util.concurrent.CompletableFuture<Integer> waiting = f.read(ByteBuffer.allocate(5), 0);
            Thread.sleep(200); // the read is waiting in the channel by now (the test holds either way)
            int w2 = f.write(ByteBuffer.wrap("again".getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0)
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            int r2 = waiting.get(20, java.util.concurrent.TimeUnit.SECONDS);
            System.out.println("FIFO WAITING " + w2 + " " + r2);
        } catch (java.util.concurrent.TimeoutException e) {
            System.out.println("FIFO timed out: " + e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CompletionException e) {
            System.out.println("FIFO failed: " + e.getCause());
        }
        try {
            IoExecutor.builder().backend(Backend.IO_URING).build().close();
            System.out.println("REFUSED no");
        } catch (java.io.IOException e) {
            System.out.println("REFUSED " + e.getMessage());
        }
        // the drop-ins serve the JDK's own channels, after one warning, and still work
        for (int i = 0; i < 2; i++) {
            try (java.nio.channels.FileChannel ch = io.github.uring4j.nio.UringFiles.newFileChannel(p,
                    StandardOpenOption.READ)) {
                ByteBuffer b = ByteBuffer.allocate(10);
                ch.read(b, 100);
                System.out.println("DROPIN " + ch.getClass().getName() + " " + (b.get(9) == data[9] ? "OK" : "BAD"));
            }
        }
        System.out.println("DROPIN-STATS " + io.github.uring4j.nio.UringFiles.statistics());
    }

    /**
     * Two threads-backend executors, each with a FIFO read pending, whose handlers close each other, an io_uring
     * loop's handler that closes a third, and a fourth closed by main: run with a close wait of an hour, every close
     * must still return (they waited for their pools, busy in the other's handler, for the whole wait, and the
     * fourth for its read, waiting for the FIFO's other end).
     */
    static void threadsClosedByHandlers(Path dir) throws Exception {
        IoExecutor t1 = IoExecutor.builder().backend(Backend.THREADS).threads(2).build();
        IoExecutor t2 = IoExecutor.builder().backend(Backend.THREADS).threads(2).build();
        IoExecutor t3 = IoExecutor.builder().backend(Backend.THREADS).threads(2).build();
        IoExecutor ring = IoExecutor.builder().backend(Backend.IO_URING).loops(1).build();
        Path p = dir.resolve("data");
        java.nio.file.Files.write(p, new byte[16]);
        for (IoExecutor e : new IoExecutor[] {t1, t2, t3}) {
            Path fifo = dir.resolve("fifo-" + System.identityHashCode(e));
            new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
            AsyncFile f = AsyncFile.open(e, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
            f.read(java.nio.ByteBuffer.allocateDirect(4), 0); // waits for ever
        }
        java.util.concurrent.CountDownLatch both = new java.util.concurrent.CountDownLatch(2);
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
        for (IoExecutor[] pair : new IoExecutor[][] {{t1, t2}, {t2, t1}}) {
            AsyncFile f = AsyncFile.open(pair[0], p, StandardOpenOption.READ).join();
            // a handler, not a future's stage: a stage added after the read completed runs on this thread, which
            // then waited at the barrier for a handler that could not start
            f.read(java.nio.ByteBuffer.allocateDirect(16), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                @Override
                public void completed(Integer n, Object a) {
                    try {
                        together.await(); // both at once, each on its executor's worker not held by the FIFO
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                    pair[1].close();
                    both.countDown();
                }

                @Override
                public void failed(Throwable e, Object a) {
                    e.printStackTrace();
                }
            });
        }
        both.await();
        System.out.println("MUTUAL CLOSED");
        AsyncFile r = AsyncFile.open(ring, p, StandardOpenOption.READ).join();
        java.util.concurrent.CompletableFuture<Thread> closedOn = new java.util.concurrent.CompletableFuture<>();
        // a handler runs on the loop (a future's stage could run on this thread, where a close may wait)
        r.read(java.nio.ByteBuffer.allocateDirect(16), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
            @Override
            public void completed(Integer n, Object a) {
                t3.close();
                closedOn.complete(Thread.currentThread());
            }

            @Override
            public void failed(Throwable e, Object a) {
                closedOn.completeExceptionally(e);
            }
        });
        System.out.println("LOOP CLOSED " + (closedOn.join() != Thread.currentThread()));
        // closed here, where a close waits for its calls: a read waiting for the FIFO's other end ends at once
        IoExecutor t4 = IoExecutor.builder().backend(Backend.THREADS).threads(2).build();
        Path fifo = dir.resolve("fifo-main");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        AsyncFile f4 = AsyncFile.open(t4, fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
        java.util.concurrent.CompletableFuture<Integer> waiting = f4.read(java.nio.ByteBuffer.allocateDirect(4), 0);
        while (t4.inFlight() == 0) {
            Thread.sleep(1);
        }
        t4.close();
        try {
            System.out.println("MAIN CLOSED " + waiting.join());
        } catch (java.util.concurrent.CompletionException e) {
            System.out.println("MAIN CLOSED " + e.getCause().getClass().getSimpleName() + " in flight " + t4.inFlight());
        }
        ring.close();
        System.out.println("END");
        System.exit(0); // the threads' workers are still in their FIFO reads, told when the hour is over
    }

    /**
     * Two completion handlers, on the two loops of one executor, close a registered pool each at the same moment:
     * each close is made on a loop, so neither waits for the other's loop (which would be waiting for it). Prints
     * what each handler saw, then whether a pool of the whole table registers afterwards (every slot emptied).
     */
    static void poolsOnLoops(Path dir) throws Exception {
        Path p = dir.resolve("pools-on-loops");
        java.nio.file.Files.write(p, new byte[8192]);
        try (IoExecutor io = IoExecutor.builder().loops(2).callerReads(false).build()) {
            BufferPool[] pools = new BufferPool[2];
            BufferPool[] built = new BufferPool[2];
            AsyncFile[] files = new AsyncFile[2];
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(2);
            java.util.Set<String> loops = java.util.concurrent.ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 2; i++) {
                pools[i] = BufferPool.builder().bufferSize(4096).count(2).register(io).build();
                files[i] = AsyncFile.open(io, p, StandardOpenOption.READ).join();
            }
            for (int i = 0; i < 2; i++) {
                BufferPool pool = pools[i];
                int k = i;
                files[i].read(ByteBuffer.allocateDirect(16), 0, null, new java.nio.channels.CompletionHandler<Integer, Object>() {
                    @Override
                    public void completed(Integer n, Object a) {
                        loops.add(Thread.currentThread().getName());
                        try {
                            together.await(30, java.util.concurrent.TimeUnit.SECONDS);
                            pool.close();
                            built[k] = BufferPool.builder().bufferSize(4096).count(2).register(io).build();
                        } catch (Exception e) {
                            System.out.println("HANDLER " + e);
                        }
                        done.countDown();
                    }

                    @Override
                    public void failed(Throwable e, Object a) {
                        System.out.println("FAILED " + e);
                        done.countDown();
                    }
                });
            }
            System.out.println("CLOSED " + done.await(60, java.util.concurrent.TimeUnit.SECONDS));
            System.out.println("LOOPS " + loops.size());
            System.out.println("BUILT " + built[0].isRegistered() + " " + built[1].isRegistered() + " "
                    + built[0].registrationFailure().orElse("") + built[1].registrationFailure().orElse(""));
            // Each built pool is registered on both loops (the other loop's part ran in its turn, before these reads,
            // which are queued after it): every read into them is a READ_FIXED, whichever loop makes it.
            javax.management.ObjectName on = new javax.management.ObjectName(io.jmxName().orElseThrow());
            javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
            Jmx.settle(); // registered off the caller's path
            long before = (Long) server.getAttribute(on, "FixedBufferOperations");
            int ok = 0;
            for (BufferPool pool : built) {
                for (AsyncFile f : files) {
                    ByteBuffer b = pool.acquireBuffer();
                    ok += f.read(b, 4096).join() == 4096 ? 1 : 0;
                    pool.release(b);
                }
                pool.close();
            }
            System.out.println("READS " + ok + " FIXED " + ((Long) server.getAttribute(on, "FixedBufferOperations")
                    - before));
            try (BufferPool whole = BufferPool.builder().bufferSize(512).alignment(512).count(16_384).register(io)
                    .build()) {
                System.out.println("WHOLE " + whole.isRegistered() + " " + whole.registrationFailure().orElse(""));
            }
            for (AsyncFile f : files) {
                f.close();
            }
        }
        System.out.println("END");
    }

    /**
     * Case 22: registering buffers over the memlock limit falls back to unregistered I/O; a pool that fits registers
     * after it.
     */
    static void memlock(Path file) throws Exception {
        try (IoExecutor io = IoExecutor.builder().backend(Backend.IO_URING).loops(1).entries(8).callerReads(false)
                        .inFlightLimit(8).build();
                BufferPool pool = BufferPool.builder().bufferSize(64 * 1024).count(16).register(io).build();
                AsyncFile f = AsyncFile.open(io, file, StandardOpenOption.READ, StandardOpenOption.WRITE).join()) {
            System.out.println("REGISTERED " + pool.isRegistered());
            System.out.println("FAILURE " + pool.registrationFailure().orElse("none"));
            MemorySegment m = pool.acquire();
            for (int i = 0; i < m.byteSize(); i++) {
                m.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            int w = f.writeFully(m, 0).join();
            m.fill((byte) 0);
            int r = f.readFully(m, 0).join();
            boolean same = true;
            for (int i = 0; i < m.byteSize(); i++) {
                same &= m.get(ValueLayout.JAVA_BYTE, i) == (byte) i;
            }
            System.out.println("IO " + (w == 65536 && r == 65536 && same ? "OK" : "BAD"));
            pool.release(m);
            // The refused pool left no slot and no locked memory behind: a small one fits under the limit.
            try (BufferPool small = BufferPool.builder().bufferSize(4096).count(2).register(io).build()) {
                System.out.println("SMALL REGISTERED " + small.isRegistered() + " "
                        + small.registrationFailure().orElse(""));
                ByteBuffer b = small.acquireBuffer();
                var u = (io.github.uring4j.engine.uring.UringBackend) io.backend;
                long fixed = u.fixedOps();
                int n = f.read(b, 100).join();
                System.out.println("SMALL IO " + (n == 4096 && u.fixedOps() == fixed + 1 && b.get(0) == (byte) 100 && b.get(4095) == (byte) (100 + 4095)
                        ? "OK" : "BAD " + n));
                small.release(b);
            }
        }
    }

    /**
     * Under a low descriptor limit: opens {@code AsyncFile}s, the drop-in's channels, and reads whole files with
     * {@code readFile} until the limit is reached, printing what each failure said; then, with all closed, each works
     * again, and no descriptor is left.
     */
    /** A bean of {@link #jmxAtTheLimit}. */
    public interface ProbeMXBean {
        int getValue();
    }

    /**
     * An executor whose view is asked for at once, in a program that has not asked for the platform MBean server:
     * one second later no MBean server runs ({@code SERVERS n}); once the program asks for it, the view is registered
     * within a few looks ({@code REGISTERED true after n ms}).
     */
    static void jmxDeferred(Path dir) throws Exception {
        try (IoExecutor io = IoExecutor.builder().loops(1).name("deferred-view").build();
                AsyncFile f = AsyncFile.open(io, dir.resolve("jmx-deferred"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE).join()) {
            f.write(java.nio.ByteBuffer.wrap(new byte[] {1}), 0).join();
            Thread.sleep(1000);
            System.out.println("SERVERS " + javax.management.MBeanServerFactory.findMBeanServer(null).size());
            javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
            javax.management.ObjectName name = new javax.management.ObjectName("io.github.uring4j:type=IoExecutor,*");
            long t0 = System.nanoTime();
            while (server.queryNames(name, null).isEmpty() && System.nanoTime() - t0 < 3_000_000_000L) {
                Thread.sleep(10);
            }
            System.out.println("REGISTERED " + !server.queryNames(name, null).isEmpty() + " after "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
    }

    /**
     * A JMX registration asked for while every descriptor is taken (it would start the platform MBean server, whose
     * class then fails for the JVM's life): after the program frees its descriptors, its own {@code ManagementFactory}
     * works, and the bean is registered. Prints {@code SERVER <beans>} and {@code REGISTERED <true|false>}.
     */
    static void jmxAtTheLimit() throws Exception {
        Jmx.settle(); // the classes the registration needs, loaded while class files can still be opened
        io.github.uring4j.engine.BackgroundWork.counted(() -> { }).run();
        Class<?> bean = ProbeMXBean.class;
        ProbeMXBean impl = () -> 7;
        java.util.List<java.io.FileInputStream> held = new java.util.ArrayList<>();
        try {
            while (true) {
                held.add(new java.io.FileInputStream("/dev/null"));
            }
        } catch (java.io.IOException full) {
            // every descriptor is taken
        }
        String name = Jmx.register("io.github.uring4j.test:type=Probe", "limit", impl, bean);
        Thread.sleep(1500); // the registration's thread looks meanwhile
        for (java.io.FileInputStream in : held) {
            in.close();
        }
        System.out.println("SERVER " + java.lang.management.ManagementFactory.getPlatformMBeanServer().getMBeanCount());
        boolean registered = false;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (!(registered = Jmx.registered(name)) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        System.out.println("REGISTERED " + registered);
    }

    /**
     * Run under a descriptor limit that leaves fewer free than a JMX registration waits for: the drop-in's first use
     * asks for its JMX view (it looks once a second for free descriptors), and the program writes small files through
     * the drop-in for four seconds, one open at a time. Prints {@code WRITES n FAILED f}.
     */
    static void writesBesideAWaitingJmxView(Path dir) throws Exception {
        long writes = 0;
        long failed = 0;
        String first = null;
        ByteBuffer b = ByteBuffer.allocate(100);
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(4);
        while (System.nanoTime() < end) {
            try (java.nio.channels.FileChannel c = io.github.uring4j.nio.UringFiles.newFileChannel(
                    dir.resolve("o" + writes % 20), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                c.write(b.clear());
            } catch (java.io.IOException e) {
                failed++;
                first = first == null ? e.toString() : first;
            }
            writes++;
        }
        System.out.println("WRITES " + writes + " FAILED " + failed + (first == null ? "" : " FIRST " + first)
                + " OPEN " + new java.io.File("/proc/self/fd").list().length);
    }

    /**
     * On a virtual thread, with every descriptor of the process taken after two drop-in channels were opened (one
     * {@code O_DIRECT}, where the file system has it): {@code force}, and the direct channel's read and write (calls
     * through the ring on a virtual thread, which once needed a descriptor for the ring's copy of the file's). With
     * {@code cold}, nothing of the drop-ins was made before the limit: their ring cannot be made. Prints
     * {@code op -> result} for each, then {@code DONE}.
     */
    static void virtualThreadAtTheLimit(Path dir, boolean cold) throws Exception {
        Path f = dir.resolve("limit");
        java.nio.file.Files.write(f, new byte[64 * 1024]);
        if (cold) {
            // every class loaded while class files (directories here) can still be opened, and nothing of the
            // drop-ins made, so that their ring is first needed at the limit
            preloadClassPathDirectories();
        }
        Thread t = Thread.ofVirtual().start(() -> {
            java.util.List<java.io.FileInputStream> held = new java.util.ArrayList<>();
            java.nio.channels.FileChannel plain = null;
            java.nio.channels.FileChannel direct = null;
            try {
                if (cold) {
                    takeEveryDescriptor(held);
                    held.remove(held.size() - 1).close(); // two for the channels: none for a ring
                    held.remove(held.size() - 1).close();
                }
                plain = io.github.uring4j.nio.UringFiles.newFileChannel(f, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                try {
                    direct = io.github.uring4j.nio.UringFiles.newFileChannel(f, StandardOpenOption.READ,
                            StandardOpenOption.WRITE, JdkOptions.DIRECT);
                } catch (java.io.IOException | UnsupportedOperationException e) {
                    System.out.println("NO DIRECT " + e);
                }
                if (!cold) {
                    // the classes each call needs, loaded while class files (directories here) can still be
                    // opened: the same calls on two other channels, through the ring
                    try (java.nio.channels.FileChannel warmPlain = io.github.uring4j.nio.UringFiles.newFileChannel(f,
                            StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                        warmPlain.force(true);
                    }
                    if (direct != null) {
                        try (java.nio.channels.FileChannel warm = io.github.uring4j.nio.UringFiles.newFileChannel(f,
                                StandardOpenOption.READ, StandardOpenOption.WRITE, JdkOptions.DIRECT)) {
                            warm.read(ByteBuffer.allocateDirect(8192).alignedSlice(4096).limit(4096), 0);
                            warm.write(ByteBuffer.allocateDirect(8192).alignedSlice(4096).limit(4096), 0);
                        }
                    }
                    for (Class<?> nested : io.github.uring4j.nio.UringFileChannel.class.getDeclaredClasses()) {
                        Class.forName(nested.getName()); // NoRing among them
                    }
                    Class.forName("io.github.uring4j.nio.JdkErrors");
                    takeEveryDescriptor(held);
                }
                for (String op : java.util.List.of("force", "direct read", "direct write")) {
                    try {
                        Object r = switch (op) {
                            case "force" -> {
                                plain.force(true);
                                yield "ok";
                            }
                            case "direct read" -> direct == null ? "skipped"
                                    : direct.read(ByteBuffer.allocateDirect(8192).alignedSlice(4096).limit(4096), 0);
                            default -> direct == null ? "skipped"
                                    : direct.write(ByteBuffer.allocateDirect(8192).alignedSlice(4096).limit(4096), 0);
                        };
                        System.out.println(op + " -> " + r);
                    } catch (Throwable e) {
                        System.out.println(op + " !! " + e);
                    }
                }
                for (java.io.FileInputStream in : held) {
                    in.close();
                }
                plain.close();
                if (direct != null) {
                    direct.close();
                }
            } catch (Throwable e) {
                System.out.println("FAILED " + e);
            }
        });
        t.join();
        System.out.println("DONE");
    }

    /** Opens {@code /dev/null} into {@code held} until the process has no descriptor left. */
    private static void takeEveryDescriptor(java.util.List<java.io.FileInputStream> held) {
        try {
            while (true) {
                held.add(new java.io.FileInputStream("/dev/null"));
            }
        } catch (java.io.IOException full) {
            // every descriptor is taken
        }
    }

    /**
     * Drop-in channels that used the ring (an {@code AsynchronousFileChannel}'s writes, a virtual thread's
     * {@code force}) while the program closes the default executor under them, with 16 writes of 1 MiB in flight and
     * a virtual thread's read of an empty FIFO waiting in the ring: prints {@code FIFO READ n text} (what the read got
     * once bytes were written after the close), {@code IN FLIGHT ok n} (writes that succeeded), {@code LATER WRITE n},
     * {@code LATER FORCE ok},
     * {@code CONTENT ok} when the file holds every write, each line {@code ... !! exception} instead when it failed,
     * and {@code DONE}.
     */
    static void defaultExecutorClosed(Path dir) throws Exception {
        Path f = dir.resolve("closed-under");
        int mib = 1 << 20;
        byte[] data = new byte[17 * mib];
        new java.util.Random(7).nextBytes(data);
        try (java.nio.channels.AsynchronousFileChannel afc = io.github.uring4j.nio.UringFiles
                .newAsynchronousFileChannel(f, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                java.nio.channels.FileChannel fc = io.github.uring4j.nio.UringFiles.newFileChannel(f,
                        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            afc.write(ByteBuffer.wrap(data, 0, 4096), 0).get();
            Thread.ofVirtual().start(() -> {
                try {
                    fc.force(false);
                } catch (java.io.IOException e) {
                    System.out.println("FIRST FORCE !! " + e);
                }
            }).join();
            // a virtual thread's read of an empty FIFO, waiting in the ring
            Path fifo = TestFiles.fifo(dir, "closed-under-fifo");
            java.nio.channels.FileChannel pipe = io.github.uring4j.nio.UringFiles.newFileChannel(fifo,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
            java.util.concurrent.CompletableFuture<String> waiting = new java.util.concurrent.CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    ByteBuffer b = ByteBuffer.allocate(16);
                    int n = pipe.read(b);
                    waiting.complete("FIFO READ " + n + " " + new String(b.array(), 0, Math.max(0, n),
                            java.nio.charset.StandardCharsets.US_ASCII));
                } catch (java.io.IOException e) {
                    waiting.complete("FIFO READ !! " + e);
                }
            });
            Thread.sleep(200);
            java.util.List<java.util.concurrent.Future<Integer>> writes = new java.util.ArrayList<>();
            for (int i = 0; i < 16; i++) {
                writes.add(afc.write(ByteBuffer.wrap(data, i * mib, mib), (long) i * mib));
            }
            IoExecutor.defaultExecutor().close();
            Thread.sleep(200); // the read, ended by the close, waits again on the executor the channel gets now
            try (java.nio.channels.FileChannel w = java.nio.channels.FileChannel.open(fifo, StandardOpenOption.WRITE)) {
                w.write(ByteBuffer.wrap("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            }
            System.out.println(waiting.get(30, java.util.concurrent.TimeUnit.SECONDS));
            pipe.close();
            int ok = 0;
            for (java.util.concurrent.Future<Integer> w : writes) {
                try {
                    ok += w.get(30, java.util.concurrent.TimeUnit.SECONDS) == mib ? 1 : 0;
                } catch (java.util.concurrent.ExecutionException e) {
                    System.out.println("IN FLIGHT !! " + e.getCause());
                }
            }
            System.out.println("IN FLIGHT ok " + ok);
            try {
                System.out.println("LATER WRITE " + afc.write(ByteBuffer.wrap(data, 16 * mib, mib), 16L * mib)
                        .get(30, java.util.concurrent.TimeUnit.SECONDS));
            } catch (java.util.concurrent.ExecutionException e) {
                System.out.println("LATER WRITE !! " + e.getCause());
            }
            Thread.ofVirtual().start(() -> {
                try {
                    fc.force(false);
                    System.out.println("LATER FORCE ok");
                } catch (java.io.IOException e) {
                    System.out.println("LATER FORCE !! " + e);
                }
            }).join();
            byte[] back = java.nio.file.Files.readAllBytes(f);
            System.out.println(java.util.Arrays.equals(back, data) ? "CONTENT ok" : "CONTENT differs: " + back.length);
        }
        System.out.println("DONE");
    }

    /**
     * An {@code AsynchronousFileChannel}'s first writes (a future's, a handler's) with every descriptor of the
     * process taken, before any ring was made: prints {@code future write -> n}, {@code handler write -> n} (or
     * {@code !! exception}), {@code CONTENT ok} when the file holds both, and {@code DONE}.
     */
    static void asyncChannelAtTheLimit(Path dir) throws Exception {
        Path f = dir.resolve("limit-async");
        java.nio.file.Files.write(f, new byte[16384]);
        byte[] a = new byte[4096];
        byte[] b = new byte[4096];
        java.util.Arrays.fill(a, (byte) 'a');
        java.util.Arrays.fill(b, (byte) 'b');
        // every class of the class path's directories loaded while their files can still be opened (a class first
        // loaded at the limit fails for good); nothing of the drop-ins made yet, so no ring is
        preloadClassPathDirectories();
        java.util.concurrent.CompletableFuture<String> handled = new java.util.concurrent.CompletableFuture<>();
        java.nio.channels.CompletionHandler<Integer, Object> handler = new java.nio.channels.CompletionHandler<>() {
            @Override
            public void completed(Integer n, Object x) {
                handled.complete("handler write -> " + n);
            }

            @Override
            public void failed(Throwable e, Object x) {
                handled.complete("handler write !! " + e);
            }
        };
        java.util.List<java.io.FileInputStream> held = new java.util.ArrayList<>();
        takeEveryDescriptor(held);
        held.remove(held.size() - 1).close(); // one for the channel: none for the ring the drop-ins start with it
        java.nio.channels.AsynchronousFileChannel afc = io.github.uring4j.nio.UringFiles.newAsynchronousFileChannel(f,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            System.out.println("future write -> " + afc.write(ByteBuffer.wrap(a), 0)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS));
        } catch (java.util.concurrent.ExecutionException e) {
            System.out.println("future write !! " + e.getCause());
        }
        afc.write(ByteBuffer.wrap(b), 4096, null, handler);
        String line = handled.get(10, java.util.concurrent.TimeUnit.SECONDS);
        for (java.io.FileInputStream in : held) {
            in.close();
        }
        System.out.println(line);
        afc.close();
        byte[] back = java.nio.file.Files.readAllBytes(f);
        boolean ok = java.util.Arrays.equals(java.util.Arrays.copyOfRange(back, 0, 4096), a)
                && java.util.Arrays.equals(java.util.Arrays.copyOfRange(back, 4096, 8192), b);
        System.out.println(ok ? "CONTENT ok" : "CONTENT differs");
        System.out.println("DONE");
    }

    /**
     * The default executor's event loops: prints {@code LOOPS n} (its loop threads, once a read went through each),
     * then {@code DONE}.
     */
    static void defaultLoops(Path dir) throws Exception {
        Path f = dir.resolve("loops");
        java.nio.file.Files.write(f, new byte[4096]);
        IoExecutor io = IoExecutor.defaultExecutor();
        for (int i = 0; i < 8; i++) {
            try (AsyncFile a = AsyncFile.open(io, f, StandardOpenOption.READ)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS)) {
                a.read(ByteBuffer.allocateDirect(4096), 0).get(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
        long loops = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().matches("uring4j-default-\\d+")).count();
        System.out.println("LOOPS " + loops);
        System.out.println("DONE");
    }

    /**
     * 2,000 pools of 512 KiB (1 GiB in all) built and dropped without {@code close()}, half with a buffer lent out,
     * with no collection asked for by this program: prints {@code MOST OPEN n} (the most bytes of pools not freed yet
     * seen after a build), then {@code DONE}.
     */
    static void droppedPools() {
        long most = 0;
        for (int i = 0; i < 2000; i++) {
            BufferPool pool = BufferPool.builder().bufferSize(64 * 1024).count(8).build();
            if (i % 2 == 0) {
                pool.acquire().set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            }
            most = Math.max(most, io.github.uring4j.engine.PinnedRegion.openBytes());
        }
        System.out.println("MOST OPEN " + most);
        System.out.println("DONE");
    }

    /**
     * Four virtual threads writing blocks of their own through a drop-in {@code AsynchronousFileChannel} (a future's
     * {@code get}) and forcing a drop-in {@code FileChannel}, for 3 s, while this thread closes the default
     * executor every 2 ms: prints {@code CLOSES n}, {@code WRITES n}, {@code FAILED n} with the first failures,
     * {@code BAD BLOCKS n} (blocks that do not hold their last write), then {@code DONE}.
     */
    static void executorClosedRepeatedly(Path dir) throws Exception {
        Path f = dir.resolve("closed-often");
        int blocks = 256;
        try (java.nio.channels.AsynchronousFileChannel afc = io.github.uring4j.nio.UringFiles
                .newAsynchronousFileChannel(f, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                java.nio.channels.FileChannel fc = io.github.uring4j.nio.UringFiles.newFileChannel(f,
                        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            int[] last = new int[blocks];
            java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
            java.util.List<String> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            long end = System.nanoTime() + 3_000_000_000L;
            java.util.List<Thread> workers = new java.util.ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int worker = w;
                workers.add(Thread.ofVirtual().start(() -> {
                    for (int round = 1; System.nanoTime() < end; round++) {
                        int block = worker + 4 * (round % (blocks / 4));
                        ByteBuffer b = ByteBuffer.allocate(4096);
                        while (b.hasRemaining()) {
                            b.putInt(round);
                        }
                        try {
                            afc.write(b.flip(), block * 4096L).get(30, java.util.concurrent.TimeUnit.SECONDS);
                            last[block] = round;
                            writes.incrementAndGet();
                            if (round % 8 == 0) {
                                fc.force(false);
                            }
                        } catch (Exception e) {
                            failures.add(e instanceof java.util.concurrent.ExecutionException x
                                    ? String.valueOf(x.getCause()) : e.toString());
                        }
                    }
                }));
            }
            int closes = 0;
            while (System.nanoTime() < end) {
                IoExecutor.defaultExecutor().close();
                closes++;
                Thread.sleep(2);
            }
            for (Thread t : workers) {
                t.join();
            }
            int bad = 0;
            for (int block = 0; block < blocks; block++) {
                if (last[block] == 0) {
                    continue;
                }
                ByteBuffer back = ByteBuffer.allocate(4);
                fc.read(back, block * 4096L);
                bad += back.getInt(0) == last[block] ? 0 : 1;
            }
            System.out.println("CLOSES " + closes);
            System.out.println("WRITES " + writes.get());
            System.out.println("FAILED " + failures.size() + " " + failures.stream().limit(3).toList());
            System.out.println("BAD BLOCKS " + bad);
        }
        System.out.println("DONE");
    }

    /** Loads (without initialising) every class found in the directories of the class path. */
    static void preloadClassPathDirectories() throws java.io.IOException {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path root = Path.of(entry);
            if (!java.nio.file.Files.isDirectory(root)) {
                continue;
            }
            try (java.util.stream.Stream<Path> walk = java.nio.file.Files.walk(root)) {
                for (Path p : walk.filter(x -> x.toString().endsWith(".class")).toList()) {
                    String name = root.relativize(p).toString().replace('/', '.');
                    name = name.substring(0, name.length() - ".class".length());
                    if (name.endsWith("module-info") || name.endsWith("package-info")) {
                        continue;
                    }
                    try {
                        Class.forName(name, false, ChildMain.class.getClassLoader());
                    } catch (ClassNotFoundException | LinkageError e) {
                        // a class that cannot load here is not one these calls need
                    }
                }
            }
        }
    }

    static void descriptors(Path file) throws Exception {
        try (java.nio.channels.FileChannel ch = io.github.uring4j.nio.UringFiles.newFileChannel(file)) {
            ch.read(ByteBuffer.allocate(16), 0);
        }
        // the shared default executor (the drop-in's) and its ring, open for good once started
        AsyncFile.readFile(IoExecutor.defaultExecutor(), file, ByteBuffer.allocate(16)).join();
        String ringsBefore = "anon_inode:[io_uring]";
        String before = descriptorsOn(file, ringsBefore);
        try (IoExecutor executor = IoExecutor.builder().backend(Backend.IO_URING).loops(1).build();
                IoExecutor spare = IoExecutor.builder().backend(Backend.IO_URING).loops(1).build()) {
            AsyncFile.readFile(spare, file, ByteBuffer.allocate(16)).join();
            java.util.List<AutoCloseable> open = new java.util.ArrayList<>();
            for (String what : java.util.List.of("AsyncFile", "FileChannel", "readFile")) {
                try {
                    for (int i = 0; i < 100_000; i++) {
                        switch (what) {
                            case "AsyncFile" -> open.add(AsyncFile.open(executor, file, StandardOpenOption.READ).join());
                            case "FileChannel" -> open.add(io.github.uring4j.nio.UringFiles.newFileChannel(file));
                            default -> {
                                // whole-file reads hold no descriptor after they end: fill the table first
                                while (true) {
                                    open.add(java.nio.channels.FileChannel.open(file));
                                }
                            }
                        }
                    }
                } catch (java.util.concurrent.CompletionException | java.io.IOException e) {
                    Throwable c = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    if (what.equals("readFile")) {
                        try {
                            AsyncFile.readFile(executor, file, ByteBuffer.allocate(16)).join();
                            System.out.println("readFile read with no descriptor left");
                        } catch (java.util.concurrent.CompletionException r) {
                            c = r.getCause();
                        }
                    }
                    System.out.println("LIMIT " + what + " after " + open.size() + ": " + c);
                    if (what.equals("AsyncFile")) {
                        spare.close(); // closing an executor at the limit
                        System.out.println("SPARE CLOSED " + !spare.isOpen());
                    }
                }
                for (AutoCloseable c : open) {
                    c.close();
                }
                open.clear();
                try (AsyncFile f = AsyncFile.open(executor, file, StandardOpenOption.READ).join()) {
                    System.out.println("AGAIN " + what + " " + f.read(ByteBuffer.allocate(16), 0).join() + " "
                            + AsyncFile.readFile(executor, file, ByteBuffer.allocate(16)).join());
                }
            }
        }
        System.out.println("DESCRIPTORS " + before + " " + descriptorsOn(file, ringsBefore));
    }

    /** How many descriptors are open on {@code file}, and how many are io_uring instances: "n m". */
    private static String descriptorsOn(Path file, String ring) throws java.io.IOException {
        int onFile = 0;
        int rings = 0;
        for (String fd : new java.io.File("/proc/self/fd").list()) {
            try {
                String target = java.nio.file.Files.readSymbolicLink(Path.of("/proc/self/fd", fd)).toString();
                onFile += target.equals(file.toAbsolutePath().toString()) ? 1 : 0;
                rings += target.equals(ring) ? 1 : 0;
            } catch (java.io.IOException e) {
                // closed meanwhile (the listing's own descriptor)
            }
        }
        return onFile + " " + rings;
    }

    /** Case 30: writes numbered records with write+fdatasync, printing ACK n once each is durable. */
    static void durable(Path file, Backend backend) throws Exception {
        try (IoExecutor io = IoExecutor.builder().backend(backend).loops(1).build();
                AsyncFile f = AsyncFile.open(io, file, StandardOpenOption.CREATE, StandardOpenOption.WRITE).join()) {
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            for (long i = 0; ; i++) {
                record(b, i);
                f.writeAndSync(b, i * 4096).join();
                System.out.println("ACK " + i);
                System.out.flush();
            }
        }
    }

    /**
     * Case 21 for real: a seccomp filter makes io_uring_setup fail with EPERM (as container runtimes do), then an
     * AUTO executor must fall back to threads with the reason, and an IO_URING one must refuse.
     */
    static void seccomp(Path file) throws Throwable {
        java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
        java.lang.invoke.MethodHandle prctl = linker.downcallHandle(linker.defaultLookup().find("prctl").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                java.lang.foreign.Linker.Option.firstVariadicArg(1));
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
            MemorySegment prog = arena.allocate(8 * 4, 8);
            int[][] insns = {
                {0x20, 0, 0, 0},                 // ld  [seccomp_data.nr]
                {0x15, 0, 1, 425},               // jeq #__NR_io_uring_setup (x86-64 and arm64), next, skip
                {0x06, 0, 0, 0x00050000 | 1},    // ret SECCOMP_RET_ERRNO | EPERM
                {0x06, 0, 0, 0x7fff0000},        // ret SECCOMP_RET_ALLOW
            };
            for (int i = 0; i < insns.length; i++) {
                prog.set(ValueLayout.JAVA_SHORT, i * 8L, (short) insns[i][0]);
                prog.set(ValueLayout.JAVA_BYTE, i * 8L + 2, (byte) insns[i][1]);
                prog.set(ValueLayout.JAVA_BYTE, i * 8L + 3, (byte) insns[i][2]);
                prog.set(ValueLayout.JAVA_INT, i * 8L + 4, insns[i][3]);
            }
            // struct sock_fprog { u16 len; struct sock_filter *filter; }
            MemorySegment fprog = arena.allocate(16, 8);
            fprog.set(ValueLayout.JAVA_SHORT, 0, (short) insns.length);
            fprog.set(ValueLayout.JAVA_LONG, 8, prog.address());
            int r1 = (int) prctl.invokeExact(38, 1L, 0L, 0L, 0L); // PR_SET_NO_NEW_PRIVS
            int r2 = (int) prctl.invokeExact(22, 2L, fprog.address(), 0L, 0L); // PR_SET_SECCOMP, MODE_FILTER
            System.out.println("FILTER " + (r1 == 0 && r2 == 0 ? "ON" : "FAILED"));
        }
        try (IoExecutor io = IoExecutor.builder().backend(Backend.AUTO).build()) {
            System.out.println("BACKEND " + io.backend());
            System.out.println("REASON " + io.fallbackReason().orElse("none"));
            try (AsyncFile f = AsyncFile.open(io, file).join()) {
                ByteBuffer b = ByteBuffer.allocate(16);
                System.out.println("READ " + f.read(b, 0).join());
            }
        }
        try {
            IoExecutor.builder().backend(Backend.IO_URING).build().close();
            System.out.println("IO_URING built");
        } catch (io.github.uring4j.ring.UringUnavailableException e) {
            System.out.println("IO_URING refused: " + e.getMessage());
        }
    }

    static void record(ByteBuffer b, long i) {
        b.clear();
        while (b.position() < 4088) {
            b.putLong(i);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.duplicate().flip());
        b.putLong(crc.getValue());
        b.flip();
    }

    static boolean check(byte[] file, long i) {
        if (file.length < (i + 1) * 4096) {
            return false;
        }
        ByteBuffer b = ByteBuffer.allocate(4096);
        record(b, i);
        return b.equals(ByteBuffer.wrap(file, (int) (i * 4096), 4096));
    }
}
