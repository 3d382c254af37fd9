package dev.mortise.lock.chaos;

import dev.mortise.lock.LockLease;

/** One key a worker's cycle holds: its lease, the lease's fencing token, and how the lease was taken. */
record Held(String key, LockLease lease, long token, LeaseMode mode) {
}
