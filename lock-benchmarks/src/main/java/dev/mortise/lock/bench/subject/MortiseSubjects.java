package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.spi.LockBackend;

/**
 * Mortise's {@link LockClient} as a subject: acquire with the default (watchdog-renewed) lease, close.
 * Shared mode goes through {@code LockSpec.of(key).shared()}, multi-key locks through
 * {@code LockClient.tryAcquireAll(keys, wait)}.
 */
public final class MortiseSubjects {

    private MortiseSubjects() {
    }

    /** A subject over {@code backend}; the client owns and closes the backend. */
    public static LockSubject over(String id, LockBackend backend, AutoCloseable... extra) {
        return over(id, "Mortise", backend, extra);
    }

    /** As {@link #over(String, LockBackend, AutoCloseable...)}, for a variant of a backend (its label says which). */
    public static LockSubject over(String id, String label, LockBackend backend, AutoCloseable... extra) {
        LockClient client = LockClient.builder(backend).build();
        AutoCloseable[] resources = new AutoCloseable[extra.length + 1];
        System.arraycopy(extra, 0, resources, 0, extra.length);
        resources[extra.length] = client;
        return SimpleSubject.of(id, label, Role.MORTISE, true, (key, wait) -> {
            LockLease lease = client.tryAcquire(key, wait).orElse(null);
            return lease == null ? null : lease::close;
        }, resources).withModes((key, shared, wait) -> {
            LockSpec spec = LockSpec.of(key).waitFor(wait);
            LockLease lease = client.tryAcquire(shared ? spec.shared() : spec).orElse(null);
            return lease == null ? null : lease::close;
        }).withMulti((keys, wait) -> {
            MultiLease lease = client.tryAcquireAll(keys, wait).orElse(null);
            return lease == null ? null : lease::close;
        });
    }
}
