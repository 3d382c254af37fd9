package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.PermitLease;

import java.time.Duration;
import java.util.List;

/**
 * The modes the wire-level fault suite ({@link WireFaultContract}) takes a key in, behind one
 * small interface: what client A takes through the faulty wire, and what client B takes that
 * excludes it. A key's marker (its random suffix) is in every request that names the key, so
 * the proxy can pick the request to strike.
 */
final class WireHolds {

    private WireHolds() {
    }

    /** How A holds; B always asks for what excludes A's hold. */
    enum Mode {
        /** A and B each an exclusive hold of the key. */
        EXCLUSIVE,
        /** A reads (shared), B writes (exclusive). */
        SHARED,
        /** A and B each one permit of a one-permit semaphore. */
        PERMITS,
        /** A takes two keys at once (one request where the backend batches), B one of them. */
        MULTI_KEY,
        /**
         * A campaigns for leadership of a group whose leadership key is the test's key (its client's
         * renewed default lease: no explicit lease), B holds that key exclusively.
         */
        LEADER;

        /** Whether A's hold can take an explicit lease (leadership always runs on the client's renewed one). */
        boolean takesExplicitLeases() {
            return this != LEADER;
        }
    }

    /** One hold, whatever its mode: valid or not, its token, told once when lost, closed. */
    interface Held {
        boolean isValid();

        long token();

        void onLost(Runnable listener);

        void close();
    }

    /**
     * A's hold of {@code name} in {@code mode}, waiting up to {@code wait}; {@code lease} null
     * for the client's renewed default lease.
     */
    static Held takeA(LockClient client, Mode mode, String name, Duration wait, Duration lease) {
        return switch (mode) {
            case EXCLUSIVE -> lease(client.acquire(spec(name, wait, lease)));
            case SHARED -> lease(client.acquire(spec(name, wait, lease).shared()));
            case PERMITS -> permits(lease == null ? client.semaphore(name, 1).acquire(1, wait)
                    : client.semaphore(name, 1).acquire(1, wait, lease));
            case MULTI_KEY -> {
                MultiLockSpec spec = MultiLockSpec.of(List.of(name + ":1", name + ":2")).waitFor(wait);
                yield multi(client.acquireAll(lease == null ? spec : spec.lease(lease)));
            }
            case LEADER -> {
                if (lease != null) {
                    throw new IllegalArgumentException("leadership runs on the client's renewed lease, not " + lease);
                }
                yield WireLeadership.lead(client, name, wait);
            }
        };
    }

    /**
     * Whether the waiter cases ({@link WireWaiterCases}) take A's hold through the asynchronous form in
     * {@code mode}: EXCLUSIVE ({@code acquireAsync}), PERMITS ({@code LockSemaphore.acquireAsync}) and
     * MULTI_KEY ({@code acquireAllAsync}) do; SHARED and LEADER wait on a thread (the blocking path).
     * The modes of a fault run at once, so this costs no extra run.
     */
    static boolean waitsAsync(Mode mode) {
        return mode == Mode.EXCLUSIVE || mode == Mode.PERMITS || mode == Mode.MULTI_KEY;
    }

    /** As {@link #takeA}, through the asynchronous form of a mode that {@link #waitsAsync}. */
    static java.util.concurrent.CompletableFuture<Held> takeAAsync(LockClient client, Mode mode, String name,
                                                                  Duration wait, Duration lease) {
        return switch (mode) {
            case EXCLUSIVE -> client.acquireAsync(spec(name, wait, lease)).thenApply(WireHolds::lease);
            case PERMITS -> (lease == null ? client.semaphore(name, 1).acquireAsync(1, wait)
                    : client.semaphore(name, 1).acquireAsync(1, wait, lease)).thenApply(WireHolds::permits);
            case MULTI_KEY -> {
                MultiLockSpec spec = MultiLockSpec.of(List.of(name + ":1", name + ":2")).waitFor(wait);
                yield client.acquireAllAsync(lease == null ? spec : spec.lease(lease)).thenApply(WireHolds::multi);
            }
            case SHARED, LEADER -> throw new IllegalArgumentException(mode + " waits on a thread in the waiter cases");
        };
    }

    /**
     * B's hold that excludes A's: the same key exclusively (a leadership key too), a permit of the
     * same semaphore, one of A's keys. On an explicit lease of a minute: B is the other holder, not
     * what is tested, and a renewed one-second lease can run out on a starved machine before its
     * watchdog renews it (ci17: B lost while two test JVMs shared two cores with the servers).
     */
    static Held takeB(LockClient client, Mode mode, String name, Duration wait) {
        return takeB(client, mode, name, wait, B_LEASE);
    }

    /** B's explicit lease where a case does not give one. */
    private static final Duration B_LEASE = Duration.ofMinutes(1);

    /** As {@link #takeB(LockClient, Mode, String, Duration)}, on an explicit {@code lease} unless null. */
    static Held takeB(LockClient client, Mode mode, String name, Duration wait, Duration lease) {
        return switch (mode) {
            case EXCLUSIVE, SHARED, LEADER -> lease(client.acquire(spec(name, wait, lease)));
            case PERMITS -> permits(lease == null ? client.semaphore(name, 1).acquire(1, wait)
                    : client.semaphore(name, 1).acquire(1, wait, lease));
            case MULTI_KEY -> lease(client.acquire(spec(name + ":2", wait, lease)));
        };
    }

    /** The keys whose server records must all be gone at the end (a semaphore's as its test hooks name them). */
    static List<String> keys(LockClient client, Mode mode, String name) {
        return switch (mode) {
            case EXCLUSIVE, SHARED, LEADER -> List.of(name);
            case PERMITS -> {
                var semaphore = client.semaphore(name, 1);
                yield List.of(semaphore.isNative() ? semaphore.permitsKey() : semaphore.slotKey(0));
            }
            case MULTI_KEY -> List.of(name + ":1", name + ":2");
        };
    }

    private static LockSpec spec(String name, Duration wait, Duration lease) {
        LockSpec spec = LockSpec.of(name).waitFor(wait);
        return lease == null ? spec : spec.lease(lease);
    }

    private static Held lease(LockLease lease) {
        return new Held() {
            public boolean isValid() {
                return lease.isValid();
            }

            public long token() {
                return lease.fencingToken();
            }

            public void onLost(Runnable listener) {
                lease.onLost(event -> listener.run());
            }

            public void close() {
                lease.close();
            }
        };
    }

    private static Held permits(PermitLease lease) {
        return new Held() {
            public boolean isValid() {
                return lease.isValid();
            }

            public long token() {
                return lease.fencingTokens().get(0);
            }

            public void onLost(Runnable listener) {
                lease.onLost(event -> listener.run());
            }

            public void close() {
                lease.close();
            }
        };
    }

    private static Held multi(MultiLease lease) {
        return new Held() {
            public boolean isValid() {
                return lease.isValid();
            }

            public long token() {
                return lease.fencingToken(lease.keys().get(1)); // the part B asks for
            }

            public void onLost(Runnable listener) {
                lease.part(lease.keys().get(1)).onLost(event -> listener.run());
            }

            public void close() {
                lease.close();
            }
        };
    }
}
