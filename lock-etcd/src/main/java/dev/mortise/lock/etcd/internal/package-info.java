/**
 * Internal: how the etcd backend works; no compatibility promise, users must not depend on
 * anything here (the few public types are public for the backend's own package and tests).
 *
 * <ul>
 *   <li><b>The front</b>: {@code LockEngine}, which the backend calls, put together from the
 *       parts below.</li>
 *   <li><b>Acquiring</b>: {@code Acquisition} (queue, hold or wait, clean up), {@code QueueWait}
 *       (the wait as the SPI's {@code WaitSteps}, run blocking or asynchronously), {@code QueueEntry}
 *       and {@code QueueExit} (into the queue and out of it on every way out), the stays in the
 *       queue ({@code QueueStay}): {@code Waiter} with {@code KeyWatch} (locks) and
 *       {@code PermitWaiter} with {@code PrefixWatch} and {@code PermitAdmission} (semaphores), both
 *       watches {@code WakingWatch}es,
 *       {@code BatchAcquire} with {@code BatchQueue} (several locks, all or nothing),
 *       {@code Grants}.</li>
 *   <li><b>The queue in etcd</b>: {@code LockQueue} (its transactions), {@code QueueRanges},
 *       {@code QueueCheck}, {@code QueueHolders}, {@code KeySpace} (key names),
 *       {@code PermitValue} and {@code PermitCount} (semaphore values).</li>
 *   <li><b>Leases</b>: {@code LeaseKeeper} with {@code SessionLeases}, {@code OwnLeases} and
 *       {@code LeaseRevokes}; {@code EtcdLease} and {@code HoldState}; renewing
 *       ({@code HoldRenewals}, {@code Renewal}, {@code AttachedKeys}) and moving a hold to
 *       another lease ({@code LeaseMove}); {@code OrphanCleaner} for keys a timed-out call may
 *       have left.</li>
 *   <li><b>Calls</b>: {@code Rpc} (bounded waits, retries while etcd has no leader) and
 *       {@code EtcdErrors} (what a failure means); {@code KeyInspection} (read-only).</li>
 *   <li><b>Wait records</b> of deadlock detection: {@code EtcdWaitRecords} (a key per holder id)
 *       with {@code WaitLeases} (one lease per nonce, expired by etcd).</li>
 * </ul>
 *
 * <p>The safety rule every grant here follows (docs/DESIGN.md, point 4): a grant counts from the
 * send of the request whose answer it rests on, on a lease known alive.
 */
package dev.mortise.lock.etcd.internal;
