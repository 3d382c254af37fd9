/**
 * Leader election on a lock ({@link dev.mortise.lock.internal.leader.Candidate}), behind
 * {@link dev.mortise.lock.LockClient#leadership}; built on the user API alone. Internal: no
 * compatibility promise.
 */
package dev.mortise.lock.internal.leader;
