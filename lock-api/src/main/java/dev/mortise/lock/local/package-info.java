/**
 * The in-process backend: {@link dev.mortise.lock.local.LocalLockServer}, an in-memory lock server
 * several clients share as if they were separate processes, and
 * {@link dev.mortise.lock.local.LocalLockBackend}, one client's connection to it. For tests and
 * single-JVM use. API: users build these backends (and use the server's test hooks). Waits are
 * native both ways: a thread in {@code acquire} waits on the key's condition, an asynchronous
 * request ({@code acquireAsync}) waits in the same queue with no thread, let in by whoever frees the key.
 *
 * <p>A backend like any other: built on the API and the SPI alone, never on the core's internals.
 */
package dev.mortise.lock.local;
