/**
 * Fenced writes (API): {@link dev.mortise.lock.fencing.JdbcFenceGuard} and
 * {@link dev.mortise.lock.fencing.FencedUpdate} refuse a write whose fencing token is older than
 * the last one seen for its resource, in a fence table of PostgreSQL, MySQL/MariaDB or H2
 * ({@link dev.mortise.lock.fencing.FenceDialect}). Users may depend on every public type here.
 */
package dev.mortise.lock.fencing;
