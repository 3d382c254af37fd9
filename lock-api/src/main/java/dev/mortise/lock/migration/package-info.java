/**
 * {@link dev.mortise.lock.migration.MigratingLockBackend}: the dual-write backend that moves locks
 * from one store to another without a flag day. API: users build it over two backends.
 *
 * <p>A backend decorator built on the API and the SPI alone, never on the core's internals.
 */
package dev.mortise.lock.migration;
