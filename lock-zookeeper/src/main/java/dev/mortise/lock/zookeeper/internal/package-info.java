/**
 * Internal: how the ZooKeeper backend works; no compatibility promise, users must not depend
 * on anything here.
 *
 * <ul>
 *   <li><b>Server calls</b>, each bounded by the operation timeout and never queued while the
 *       connection is down: {@code ZkOps} with {@code ZkCalls} (sending and waiting),
 *       {@code NodeCreates}, {@code NodeReads}, {@code NodeWatches}, {@code NodeDeletes} and
 *       {@code Multis}.</li>
 *   <li><b>The queue</b>: one loop ({@code QueueLoop}: create and list, admit, watch, wait,
 *       delete; one acquisition's wait is {@code QueueTurn}, steps that the blocking and the
 *       asynchronous acquire both run, sleeping on {@code QueueWatch}'s wake-up) that every
 *       single-key acquisition shares, the admission being the only
 *       difference between kinds ({@code Admission}: {@code LockAdmission} for exclusive and
 *       shared holds, {@code PermitAdmission} for semaphores); {@code LockQueue},
 *       {@code PermitQueue} and {@code BatchAcquire} (several keys, all or nothing, judged by
 *       the same admission and evidence checks) are its entry points.</li>
 *   <li><b>Holds and the session</b>: {@code SessionGuard} (connection states onto holds),
 *       {@code Renewal} and {@code SessionNodes} (confirming holds), {@code LeaseExpiry}
 *       (ending explicit leases), {@code LingerMarkers} (holds that outlive their session).</li>
 *   <li><b>Naming and reading</b>: {@code LockPaths}, {@code PermitNodes}, {@code NodeRef},
 *       {@code KeyInspection} with {@code KeyStateReport}, {@code Failures}.</li>
 *   <li><b>Wait records</b> of deadlock detection: {@code ZkWaitRecords} (an ephemeral node per
 *       holder id, expired by readers on the server's clock) with {@code WaitRecordNodes} (its
 *       calls) and {@code WaitRecordFormat} (its data).</li>
 * </ul>
 *
 * <p>The safety rule every decision here follows (docs/DESIGN.md, point 4): a grant counts
 * from the send of the request whose answer it rests on, and a node that a listing does not
 * show, or that belongs to a session that ended, is never taken for ownership.
 */
package dev.mortise.lock.zookeeper.internal;
