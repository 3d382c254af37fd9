package dev.mortise.lock.tck;

import dev.mortise.lock.HeldLock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * (h) of the property suite, no orphan holds: at the end of the random phase, before the clients
 * close, every hold an open client lists ({@code heldLocks()}) is one the suite holds an open lease
 * of (a lease it was handed, alone or as a part, and has not closed). A hold no one has a lease of
 * is renewed for nobody and kept from everyone: the grant of a request whose asynchronous answer was
 * cancelled (a cancel that returned true, recorded here by its owner id, see {@link PropertyCalls}),
 * a part taken before a multi-key request failed, a lease completed into a future no one reads.
 * Grants that raced their cancel are given the loss grace to be released. Thread-safe.
 */
final class OrphanHolds {

    private record Cancelled(PropertyClient client, String owner, String what) {
    }

    private final ConcurrentLinkedQueue<Cancelled> cancelled = new ConcurrentLinkedQueue<>();
    private final PropertyModel model;
    private final PropertyViolations violations;

    OrphanHolds(PropertyModel model, PropertyViolations violations) {
        this.model = model;
        this.violations = violations;
    }

    /** A cancel of {@code owner}'s request on {@code client} returned true. */
    void cancelled(PropertyClient client, String owner, String what) {
        cancelled.add(new Cancelled(client, owner, what));
    }

    /** Checks (h) over {@code clients}, giving releases under way up to {@code grace}. */
    void check(List<PropertyClient> clients, Duration grace) throws InterruptedException {
        long end = System.nanoTime() + grace.toNanos();
        List<String> left = orphans(clients);
        while (!left.isEmpty() && System.nanoTime() - end < 0) {
            Thread.sleep(20);
            left = orphans(clients);
        }
        for (String orphan : left) {
            violations.add("h", orphan);
        }
    }

    private List<String> orphans(List<PropertyClient> clients) {
        List<String> left = new ArrayList<>();
        for (PropertyClient client : clients) {
            if (client.closeStarted()) {
                continue; // its close ends every hold
            }
            for (HeldLock held : client.client.heldLocks()) {
                if (!leased(client, held)) {
                    left.add(describe(client, held));
                }
            }
        }
        return left;
    }

    /** Whether the suite has an open lease of {@code held}. */
    private boolean leased(PropertyClient client, HeldLock held) {
        for (TrackedHold hold : model.holdsOn(held.key())) {
            if (hold.client == client && hold.token == held.fencingToken() && !hold.open().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private String describe(PropertyClient client, HeldLock held) {
        String hold = client + " holds '" + PropertyModel.show(held.key()) + "' (token " + held.fencingToken() + ", "
                + held.owner() + ") and no open lease of the suite is that hold";
        for (Cancelled request : cancelled) {
            if (request.client() == client && held.owner().equals("owner " + request.owner())) {
                return hold + ": the grant of " + request.what() + ", whose cancel() returned true, was not released";
            }
        }
        return hold + ": a grant handed to no one (or not released when its request failed)";
    }
}
