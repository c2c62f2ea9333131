/**
 * What every layer of uring4j shares: {@link io.github.uring4j.ErrnoException}, the base of the exceptions that
 * carry a Linux errno. The APIs live in {@link io.github.uring4j.ring} (the expert io_uring API) and
 * {@link io.github.uring4j.file} (asynchronous files on event loops).
 */
package io.github.uring4j;
