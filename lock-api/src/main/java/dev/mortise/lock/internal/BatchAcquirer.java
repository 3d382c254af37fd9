package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.internal.group.GroupLease;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The multi-key fast path: every part at once, in one {@link LockBackend#tryAcquireAll} request.
 * It applies only when no part is in use in this client (no holder, no waiter, so no hold of the
 * owner to nest in and no one to pass), every argument is valid, and there are at least two
 * parts; then the local gates are taken without waiting and the backend asked once. A granted
 * batch becomes one hold per part exactly as {@link Acquirer#attempt} makes it (validity from each
 * grant's request time, the late-grant rule, publish, expiry, watchdog, one ACQUIRED event per
 * part). Thread-safe.
 */
final class BatchAcquirer {

    private final Acquirer single;
    private final LockBackend backend;
    private final ClientSettings settings;
    private final Arguments arguments;
    private final Validity validity;
    private final KeyGates gates;
    private final HoldActions actions;
    private final Events events;
    private final Messages messages;
    private final boolean sharedSupported;

    BatchAcquirer(Acquirer single, LockBackend backend, ClientSettings settings, Arguments arguments,
                  Validity validity, KeyGates gates, HoldActions actions, Events events, Messages messages) {
        this.single = single;
        this.backend = backend;
        this.settings = settings;
        this.arguments = arguments;
        this.validity = validity;
        this.gates = gates;
        this.actions = actions;
        this.events = events;
        this.messages = messages;
        this.sharedSupported = backend.supportsSharedMode();
    }

    /** The checked arguments of a batch: the wait, the explicit lease (or null), the owner id (or null). */
    private record Checked(Duration waitTime, Duration explicitLease, String ownerId) {
    }

    /**
     * Every part at once, or null.
     *
     * <p>Null means "take the parts one by one": the fast path did not apply, the backend has no
     * native batch, a part was busy, or (with a wait) the grants came back too late; nothing of this
     * call is then held, locally or on the server, and the caller goes on with what is left of its wait.
     *
     * @param keys  the keys in canonical order, distinct; {@code modes} the mode of each
     * @return the leases in the order of {@code keys}, or null (see above)
     * @throws LockException if the backend failed or the client closed (nothing is held)
     */
    List<LockLease> attemptAll(List<String> keys, List<LockMode> modes, Duration requestedWait,
                               Duration requestedLease, String requestedOwner) {
        return attemptAll(keys, modes, requestedWait, requestedLease, requestedOwner, Thread.currentThread());
    }

    /**
     * As {@link #attemptAll(List, List, Duration, Duration, String)}, the holds owned by {@code thread}
     * when there is no explicit owner: the calling thread, or null for an asynchronous request (its
     * own owner, as {@link Acquirer#check} has it).
     */
    List<LockLease> attemptAll(List<String> keys, List<LockMode> modes, Duration requestedWait,
                               Duration requestedLease, String requestedOwner, Thread thread) {
        int n = keys.size();
        if (n < 2 || single.isClosed()) {
            return null;
        }
        Checked checked = check(keys, modes, requestedWait, requestedLease, requestedOwner);
        if (checked == null) {
            return null;
        }
        if (thread != null && !checked.waitTime().isZero() && thread.isInterrupted()) {
            return null;
        }
        Batch batch = new Batch(keys, modes, checked, checked.ownerId() == null ? thread : null, System.nanoTime());
        try {
            return batch.take();
        } catch (LockException e) {
            events.fireError(LockEvent.Operation.ACQUIRE, keys.get(0), modes.get(0), -1,
                    System.nanoTime() - batch.start, e);
            throw e;
        } catch (RuntimeException e) {
            events.fireError(LockEvent.Operation.ACQUIRE, keys.get(0), modes.get(0), -1,
                    System.nanoTime() - batch.start, e);
            throw messages.acquireAllFailed(keys, e);
        } finally {
            if (batch.leases.size() < n) {
                batch.giveBack();
            }
        }
    }

    /** The batch's arguments, or null when one is not valid (the ordered path refuses it with the message a single acquire gives). */
    private Checked check(List<String> keys, List<LockMode> modes, Duration requestedWait, Duration requestedLease,
                          String requestedOwner) {
        try {
            for (int i = 0; i < keys.size(); i++) {
                if (!arguments.key(keys.get(i)).equals(keys.get(i))
                        || modes.get(i) == LockMode.SHARED && !sharedSupported) {
                    return null;
                }
            }
            Duration wait = arguments.waitTime(requestedWait, keys.get(0));
            Duration explicitLease = arguments.lease(requestedLease, keys.get(0));
            if (explicitLease != null) {
                Validity.check(explicitLease, backend, settings, "Lease", "pass a lease");
            }
            return new Checked(wait, explicitLease, arguments.owner(requestedOwner, keys.get(0)));
        } catch (RuntimeException invalid) {
            return null;
        }
    }

    /** One batch attempt: what it entered, asked for and published, so that {@link #giveBack} undoes exactly that. */
    private final class Batch {

        final List<String> keys;
        final List<LockMode> modes;
        final Checked checked;
        final Thread ownerThread;
        final long start;
        final int n;
        final KeyGates.Gate[] gate;
        final KeyGates.Pending[] pending;
        final Hold[] hold;
        final List<LockLease> leases;
        int entered;
        int published; // holds [0, published) are published: leased, or lost here and cleared

        Batch(List<String> keys, List<LockMode> modes, Checked checked, Thread ownerThread, long start) {
            this.keys = keys;
            this.modes = modes;
            this.checked = checked;
            this.ownerThread = ownerThread;
            this.start = start;
            this.n = keys.size();
            this.gate = new KeyGates.Gate[n];
            this.pending = new KeyGates.Pending[n];
            this.hold = new Hold[n];
            this.leases = new ArrayList<>(n);
        }

        /** The leases, or null to take the parts one by one. */
        List<LockLease> take() {
            for (; entered < n; entered++) {
                gate[entered] = gates.enterIdle(keys.get(entered), modes.get(entered));
                if (gate[entered] == null) {
                    return null;
                }
            }
            Duration lease = checked.explicitLease() != null ? checked.explicitLease() : settings.defaultLease();
            List<LockRequest> requests = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                LockRequest request = new LockRequest(keys.get(i), single.nextOwner(), lease,
                        checked.explicitLease() == null, modes.get(i));
                pending[i] = gate[i].expect(null, request.owner());
                requests.add(request);
            }
            List<Grant> grants = askAll(requests);
            if (grants == null || grants.isEmpty() || !hold(grants, lease)) {
                return null;
            }
            for (int i = 0; i < n; i++) {
                KeyGates.EarlyState early = gate[i].publish(pending[i], hold[i]);
                published = i + 1;
                leases.add(single.activate(hold[i], early, gate[i], pending[i], keys.get(i), start));
            }
            return leases;
        }

        /**
         * Makes a hold of every grant; false if one came back too late and the wait lets the
         * ordered path ask again (the caller's finally clears every grant either way).
         */
        private boolean hold(List<Grant> grants, Duration lease) {
            long now = settings.ticker().read();
            int late = -1;
            int foreign = -1;
            for (int i = 0; i < n; i++) {
                Grant grant = grants.get(i);
                hold[i] = new Hold(grant, modes.get(i), ownerThread, checked.ownerId(), lease,
                        checked.explicitLease() == null, gate[i], validity.deadline(grant, lease),
                        settings.ticker());
                if (foreign < 0 && grant.requestedAtNanos() - now > 0) {
                    foreign = i;
                }
                if (late < 0 && hold[i].expiredAt(now)) {
                    late = i;
                }
            }
            if (foreign >= 0) {
                // Stamped on another clock than this client's: the finally clears every grant.
                throw messages.grantOnAnotherTicker(keys.get(foreign), settings.ticker());
            }
            if (late >= 0) {
                // One stalled round trip: the finally clears every grant; with a wait left the ordered
                // path asks again, as a single acquire would.
                if (checked.waitTime().isZero() || single.isClosed()) {
                    throw messages.grantedTooLate(keys.get(late), lease, validity.worth(grants.get(late), lease));
                }
                return false;
            }
            return true;
        }

        /** Undoes a fast path that ends without its leases: each part as far as it got. */
        void giveBack() {
            // Published parts before the one that failed are ordinary leases: closed as the ordered path
            // closes the parts it took. A release the server did not get leaves that hold to its lease.
            GroupLease.closeAll(leases, Duration.ZERO);
            for (int i = published; i < entered; i++) {
                if (hold[i] != null) {
                    actions.clearOnServer(hold[i]);
                }
                gate[i].leave(modes.get(i), pending[i], null);
            }
        }
    }

    /**
     * One batch request, stopped by the client's close if it is still under way.
     *
     * @return the grants, empty if a key was busy, or null for "no native batch"
     * @throws IllegalStateException if the backend answered with grants that do not match the requests
     */
    private List<Grant> askAll(List<LockRequest> requests) {
        String first = requests.get(0).key();
        InFlight inFlight = single.inFlight();
        if (!inFlight.enter()) {
            throw messages.clientClosed(first, null);
        }
        List<Grant> grants;
        try {
            grants = backend.tryAcquireAll(requests);
        } catch (RuntimeException e) {
            if (single.isClosed()) {
                throw messages.clientClosed(first, e);
            }
            throw e;
        } finally {
            inFlight.exit();
        }
        if (grants != null && !grants.isEmpty() && !matches(grants, requests)) {
            for (Grant grant : grants) {
                try {
                    backend.release(grant);
                } catch (RuntimeException ignored) {
                    // it expires with its lease; the broken answer is what gets reported
                }
            }
            throw new IllegalStateException("backend '" + backend.name() + "' (" + backend.getClass().getName()
                    + ") answered tryAcquireAll with " + grants + " for " + requests.size() + " requests: it must "
                    + "return one grant per request, in request order, or an empty list, or null");
        }
        return grants;
    }

    private static boolean matches(List<Grant> grants, List<LockRequest> requests) {
        if (grants.size() != requests.size()) {
            return false;
        }
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            if (grant == null || !grant.key().equals(requests.get(i).key())
                    || !grant.owner().equals(requests.get(i).owner())) {
                return false;
            }
        }
        return true;
    }
}
