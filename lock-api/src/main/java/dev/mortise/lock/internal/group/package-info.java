/**
 * Several ordinary leases held and ended as one: {@link dev.mortise.lock.internal.group.GroupLease},
 * the base of the multi-key lease and the permit leases. Internal: no compatibility promise. Uses
 * nothing but the user API.
 */
package dev.mortise.lock.internal.group;
