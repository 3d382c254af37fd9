package dev.mortise.lock.tck;

import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** One server-side hold as the model saw it: leases of one client on one key with one token. */
final class TrackedHold {
    final PropertyClient client;
    final String key;
    final long token;
    final int worker;
    final long acquireStartNanos;
    final Duration explicitLease;
    /** The mode the hold reported at its grant: shared holds may be valid together. */
    final LockMode mode;
    final Set<TrackedLease> leases = ConcurrentHashMap.newKeySet();
    volatile boolean exposed;
    /** An extend of this hold failed after the server may have applied it (its reply was lost). */
    volatile boolean extendOutcomeUnknown;
    /** Extends of this hold sent and not answered yet (the server may have applied them already). */
    final AtomicInteger extendsInFlight = new AtomicInteger();
    private final List<String> history = new ArrayList<>(); // guarded by itself

    /** Remembers what happened to the hold (the last few things), for violation reports. */
    void note(String what) {
        synchronized (history) {
            if (history.size() == 16) {
                history.remove(1); // keep the grant
            }
            history.add(what);
        }
    }

    String history() {
        synchronized (history) {
            return String.join("; ", history);
        }
    }

    TrackedHold(PropertyClient client, String key, long token, int worker, long acquireStartNanos,
                Duration explicitLease, LockMode mode) {
        this.mode = mode;
        this.client = client;
        this.key = key;
        this.token = token;
        this.worker = worker;
        this.acquireStartNanos = acquireStartNanos;
        this.explicitLease = explicitLease;
    }

    /** The hold's open leases (close not started). */
    List<TrackedLease> open() {
        List<TrackedLease> open = new ArrayList<>();
        for (TrackedLease lease : leases) {
            if (!lease.closeStarted) {
                open.add(lease);
            }
        }
        return open;
    }

    @Override
    public String toString() {
        return "hold[token " + token + " of " + client + ", worker " + worker + ", "
                + (explicitLease == null ? "renewed" : "explicit lease " + explicitLease.toMillis() + " ms")
                + (mode == LockMode.SHARED ? ", shared" : "") + "]";
    }
}
