/**
 * The in-process backend: {@link dev.mortise.lock.local.LocalLockServer}, an in-memory lock server
 * several clients share as if they were separate processes, and
 * {@link dev.mortise.lock.local.LocalLockBackend}, one client's connection to it. For tests and
 * single-JVM use. API: users build these backends (and use the server's test hooks).
 *
 * <p>A backend like any other: built on the API and the SPI alone, never on the core's internals.
 */
package dev.mortise.lock.local;
