/**
 * Several ordinary leases held and ended as one: {@link dev.mortise.lock.internal.group.GroupLease},
 * the base of the multi-key lease and the permit leases; and
 * {@link dev.mortise.lock.internal.group.LeaseFutures}, futures of leases whose cancel reaches the
 * request and whose late lease is closed. Internal: no compatibility promise. Uses nothing but the
 * user API.
 */
package dev.mortise.lock.internal.group;
