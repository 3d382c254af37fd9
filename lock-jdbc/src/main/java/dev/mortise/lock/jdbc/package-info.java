/**
 * The JDBC lock backend (API): {@link dev.mortise.lock.jdbc.JdbcLockBackend}, built by
 * {@link dev.mortise.lock.jdbc.JdbcLockBackendBuilder}, keeps locks as rows of one table in
 * PostgreSQL, MySQL/MariaDB or H2 ({@link dev.mortise.lock.jdbc.JdbcDialect}). Users may depend on
 * every public type here; the packages below {@code internal} carry no compatibility promise.
 */
package dev.mortise.lock.jdbc;
