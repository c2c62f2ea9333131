/**
 * The expert API: io_uring as the kernel defines it, in Java. {@link io.github.uring4j.ring.IoUring} maps one ring;
 * {@link io.github.uring4j.ring.IoUring#nextSqe()} gives the {@link io.github.uring4j.ring.Sqe} to fill with a typed
 * encoder ({@code read}, {@code write}, {@code openat}, {@code fsync}, {@code statx}, {@code splice}, ...); the file is
 * a {@link io.github.uring4j.ring.FileTarget} (descriptor or registered slot); {@code submit()} hands the entries to
 * the kernel and {@code reap(CqeHandler)} hands back the completions, without allocating.
 *
 * <pre>{@code
 * try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(64)) {
 *     ring.nextSqe().openat(At.FDCWD, arena.allocateFrom("/etc/hostname"), OpenFlag.RDONLY, 0).userData(1);
 *     ring.submitAndWait(1);
 *     ring.reap((userData, res, flags) -> System.out.println("fd or -errno: " + res));
 * }
 * }</pre>
 *
 * <h2>When to use it</h2>
 * When every microsecond counts and the program can own a thread per ring: storage engines, benchmarks, tools
 * like fio. Otherwise {@link io.github.uring4j.file} gives the same kernel path with event loops, safe memory and
 * typed errors.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>A ring belongs to the thread that opened it ({@link java.lang.WrongThreadException} otherwise;
 * {@link io.github.uring4j.ring.IoUring#handOff} moves it).</li>
 * <li>The caller keeps every buffer, path and struct it hands an encoder alive and unmoved until the operation's
 * completion has been reaped. A heap segment, a segment of a closed arena, a negative length or a fixed-buffer range
 * outside its registered buffer is refused before anything is submitted.</li>
 * <li>An entry joins a submission only once its encoder has written all of it.</li>
 * <li>Constants come in the kernel's words: {@link io.github.uring4j.ring.SetupFlag}, {@link io.github.uring4j.ring.SqeFlag},
 * {@link io.github.uring4j.ring.RwFlag}, {@link io.github.uring4j.ring.OpenFlag}, {@link io.github.uring4j.ring.At},
 * {@link io.github.uring4j.ring.Opcode}.</li>
 * </ul>
 */
package io.github.uring4j.ring;
