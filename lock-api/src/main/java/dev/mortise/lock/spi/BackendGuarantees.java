package dev.mortise.lock.spi;

import java.util.Objects;

/**
 * What a backend promises, stated once so docs, the health endpoint and the contract
 * suite can show it.
 *
 * @param leaseModel   whether holds end by time or with a session
 * @param fair         whether waiters are granted in arrival order
 * @param wakeup       how a waiter learns the lock is free
 * @param fencing      in one sentence: where tokens come from and when the strict
 *                     increase can break
 * @param minimumLease the shortest lease this backend can honour as asked (a server whose TTLs are
 *                     whole seconds cannot keep a 10 ms lease: etcd's is a second; most say one
 *                     millisecond); the one statement of it: the client builder and every acquire
 *                     reject shorter leases with a message naming both values
 */
public record BackendGuarantees(LeaseModel leaseModel, boolean fair, Wakeup wakeup, String fencing,
                                java.time.Duration minimumLease) {

    public BackendGuarantees {
        Objects.requireNonNull(leaseModel, "leaseModel");
        Objects.requireNonNull(wakeup, "wakeup");
        Objects.requireNonNull(fencing, "fencing");
        Objects.requireNonNull(minimumLease, "minimumLease");
    }

    /** How a hold ends when its holder disappears. */
    public enum LeaseModel {
        /** The server drops the hold when its lease time runs out (Redis, JDBC, local). */
        TIME_BOUND,
        /** The server drops the hold when the holder's session or lease dies (ZooKeeper, etcd). */
        SESSION_BOUND
    }

    /** How waiters learn of a release. */
    public enum Wakeup {
        /** The server pushes a notification (pub/sub, watch, LISTEN/NOTIFY). */
        PUSH,
        /** The waiter polls with backoff. */
        POLL
    }
}
