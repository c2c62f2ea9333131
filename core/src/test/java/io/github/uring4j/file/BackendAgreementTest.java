package io.github.uring4j.file;

import static io.github.uring4j.file.TestFiles.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same seeded sequences of {@code AsyncFile} calls, with random arguments (negative, zero, huge, ordinary), random
 * open options ({@code O_DIRECT} and {@code DSYNC} among them), buffers and segments of every kind (heap, direct,
 * read-only, of closed and open arenas), on the io_uring backend and on the threads backend: every return value,
 * exception and message, and the files' bytes afterwards, must be the same. A timeout of zero is left out: it races
 * the operation, and the backends' races end differently (see {@link AsyncFile}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class BackendAgreementTest {
    @TempDir
    Path dir;

    private static long arg(Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> -1;
            case 1 -> 0;
            case 2 -> Long.MAX_VALUE;
            case 3 -> Long.MIN_VALUE;
            case 4 -> (1L << 20) + 3; // past the end, unaligned (a position of gigabytes would make files too big to compare)
            default -> r.nextInt(20_000);
        };
    }

    /**
     * A direct buffer at an address the seed decides: page-aligned or one byte past (the allocator's own addresses
     * are aligned to 512 or not by chance, and O_DIRECT's answer depends on it).
     */
    private static ByteBuffer direct(Random r, int cap) {
        int skew = r.nextBoolean() ? 0 : 1;
        return ByteBuffer.allocateDirect(cap + 8192).alignedSlice(4096).position(skew).slice().limit(cap).slice();
    }

    private static ByteBuffer buffer(Random r) {
        int cap = r.nextInt(5) == 0 ? 0 : r.nextInt(9000);
        ByteBuffer b = r.nextBoolean() ? ByteBuffer.allocate(cap) : direct(r, cap);
        b.put(0, pattern(cap, r.nextInt(100)));
        return r.nextInt(4) == 0 ? b.asReadOnlyBuffer() : b;
    }

    private static MemorySegment segment(Random r, List<Arena> open) {
        long n = r.nextInt(5) == 0 ? 0 : r.nextInt(9000);
        long skew = r.nextBoolean() ? 0 : 1; // page-aligned or one byte past, as the seed says (see direct)
        MemorySegment s = switch (r.nextInt(6)) {
            case 0 -> MemorySegment.ofArray(new byte[(int) n]);
            case 1 -> Arena.ofAuto().allocate(n + 1, 4096).asSlice(skew, n);
            case 2 -> {
                Arena a = Arena.ofShared();
                open.add(a);
                yield a.allocate(n + 1, 4096).asSlice(skew, n);
            }
            case 3 -> {
                Arena a = Arena.ofShared();
                MemorySegment closed = a.allocate(n + 1, 4096).asSlice(skew, n);
                a.close();
                yield closed;
            }
            case 4 -> {
                Arena a = Arena.ofConfined();
                open.add(a);
                yield a.allocate(n + 1, 4096).asSlice(skew, n);
            }
            default -> Arena.ofAuto().allocate(n + 1, 4096).asSlice(skew, n).asReadOnly();
        };
        if (s.scope().isAlive() && !s.isReadOnly()) {
            s.copyFrom(MemorySegment.ofArray(pattern((int) n, r.nextInt(100))));
        }
        return s;
    }

    private static String digest(Path p) throws java.io.IOException {
        return TestFiles.digest(p, 0, 0);
    }

    private static String contents(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b.duplicate().clear());
        return "[" + b.position() + " " + b.limit() + " " + Long.toHexString(c.getValue()) + "]";
    }

    /** One random call, waited for: what it returned or threw, and the buffer it read into. */
    private static String call(Random r, AsyncFile f, AsyncFile g, List<Arena> open) throws InterruptedException {
        int op = r.nextInt(16);
        ByteBuffer b = buffer(r);
        long a1 = arg(r);
        long a2 = arg(r);
        long a3 = arg(r);
        Duration timeout = r.nextBoolean() ? Duration.ofNanos(-1) : Duration.ofSeconds(30);
        try {
            CompletableFuture<?> c = switch (op) {
                case 0 -> f.read(b, a1);
                case 1 -> f.withTimeout(timeout).read(b, a1);
                case 2 -> f.read(segment(r, open), a1);
                case 3 -> f.readFully(b, a1);
                case 4 -> f.write(b, a1);
                case 5 -> f.withTimeout(timeout).write(segment(r, open), a1);
                case 6 -> f.writeFully(segment(r, open), a1);
                case 7 -> f.writeAndSync(b, a1);
                case 8 -> f.size();
                case 9 -> f.truncate(a1);
                case 10 -> f.force(r.nextBoolean());
                case 11 -> f.allocate(a1, a2);
                case 12 -> f.advise(a1, a2, Advice.values()[r.nextInt(Advice.values().length)]);
                case 13 -> f.syncRange(a1, a2);
                case 14 -> f.transferTo(a1, a2, g, a3);
                default -> f.read(new ByteBuffer[] {b, buffer(r)}, a1);
            };
            String v;
            try {
                v = "= " + c.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                v = "! " + e.getCause().getClass().getName() + ": " + e.getCause().getMessage();
            } catch (TimeoutException e) {
                v = "no answer in 60 s";
            }
            return "op" + op + " " + v + (op == 0 || op == 1 || op == 3 ? " " + contents(b) : "");
        } catch (RuntimeException e) {
            return "op" + op + " threw " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    private List<String> transcript(Backend backend, int from, int to) throws Exception {
        Path d = Files.createDirectories(dir.resolve(backend.name()));
        List<String> out = new ArrayList<>();
        try (IoExecutor io = IoExecutor.builder().loops(1).backend(backend).name("agree-" + backend).build()) {
            for (int seed = from; seed < to; seed++) {
                Random r = new Random(seed);
                Path p = d.resolve("f");
                Path q = d.resolve("g");
                Files.write(p, pattern(r.nextInt(30_000), seed));
                Files.write(q, pattern(r.nextInt(5000), seed + 1));
                List<OpenOption> options = new ArrayList<>();
                for (OpenOption o : new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DSYNC, FileOption.DIRECT}) {
                    if (r.nextInt(3) == 0) {
                        options.add(o);
                    }
                }
                out.add("seed " + seed + " " + options);
                List<Arena> open = new ArrayList<>();
                try (AsyncFile f = AsyncFile.open(io, p, options.toArray(new OpenOption[0])).get(60, TimeUnit.SECONDS);
                        AsyncFile g = AsyncFile.open(io, q, StandardOpenOption.READ, StandardOpenOption.WRITE)
                                .get(60, TimeUnit.SECONDS)) {
                    for (int calls = 1 + r.nextInt(12); calls > 0; calls--) {
                        out.add(call(r, f, g, open).replace(d.toString(), "DIR").replaceAll("0x[0-9a-f]+", "ADDRESS"));
                    }
                } catch (ExecutionException e) {
                    out.add("open ! " + e.getCause().getClass().getName());
                } finally {
                    open.forEach(Arena::close);
                }
                out.add("then " + digest(p) + " and " + digest(q));
            }
        }
        return out;
    }

    @Test
    void randomSequencesOfCallsEndTheSameOnBothBackends() throws Exception {
        try (IoExecutor probe = IoExecutor.builder().loops(1).build()) {
            Assumptions.assumeTrue(probe.backend() == Backend.IO_URING, "io_uring is not available here");
        }
        List<String> uring = transcript(Backend.IO_URING, 0, 600);
        List<String> threads = transcript(Backend.THREADS, 0, 600);
        for (int i = 0; i < Math.min(uring.size(), threads.size()); i++) {
            if (!uring.get(i).equals(threads.get(i))) {
                fail("line " + i + ":\n  io_uring: " + uring.get(i) + "\n  threads:  " + threads.get(i));
            }
        }
        assertEquals(uring.size(), threads.size(), "transcripts of different lengths");
    }
}
