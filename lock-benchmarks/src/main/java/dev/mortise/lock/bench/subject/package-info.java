/**
 * The measured subjects: Mortise over each backend, peer libraries against the same servers,
 * and the floors of bare round trips, behind one {@code LockSubject} interface.
 *
 * <p>Internal to the harness: lock-benchmarks is not a published API.
 */
package dev.mortise.lock.bench.subject;
