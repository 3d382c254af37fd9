/**
 * Internal: deadlock detection across processes (issue 31, docs/deadlocks.md). A wait longer than the
 * threshold whose owner holds other locks of the client publishes a wait record
 * ({@link dev.mortise.lock.spi.WaitRecords}) and follows the chain key → holders → their records;
 * a cycle seen the same in two passes ends its youngest wait. No compatibility promise.
 */
package dev.mortise.lock.internal.deadlock;
