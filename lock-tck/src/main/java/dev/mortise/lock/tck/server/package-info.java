/**
 * Launchers of the real servers the contract tests run against (Redis, etcd, PostgreSQL,
 * MariaDB), found on the machine or downloaded ({@link dev.mortise.lock.tck.server.Binaries}), on
 * free loopback ports ({@link dev.mortise.lock.tck.server.FreePorts}), and a
 * {@link dev.mortise.lock.tck.server.StallingProxy} that stalls or cuts a wire for the wire-level
 * fault suite. A missing server fails with {@link dev.mortise.lock.tck.server.MissingServerException},
 * never skips.
 *
 * <p><b>API for backend writers (the kit):</b> the public types, for their modules' tests.
 * <b>Internal:</b> the package-private ones.
 */
package dev.mortise.lock.tck.server;
