package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;

/**
 * What a {@link dev.mortise.lock.spi.Grant} carries for etcd: our own key, its create
 * revision (the fencing token, and the owner check of every later write) and the lease it
 * is attached to.
 */
record HoldState(ByteSequence ownKey, long revision, EtcdLease lease) {
}
