package dev.mortise.lock.internal;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInspection;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * {@link dev.mortise.lock.LockClient#inspect}: one read of the server's state of a key, its owner
 * strings turned into holder ids and marked where they are this client's live holds; and
 * {@code heldLocks()}, the client's own view of the same; and {@code ping()}. Thread-safe.
 */
final class Inspector {

    private final LockBackend backend;
    private final String backendName;
    private final Arguments arguments;
    private final KeyGates gates;
    private final BooleanSupplier closed;

    Inspector(LockBackend backend, Arguments arguments, KeyGates gates, BooleanSupplier closed) {
        this.backend = backend;
        this.backendName = backend.name();
        this.arguments = arguments;
        this.gates = gates;
        this.closed = closed;
    }

    /** One cheap round trip ({@link LockBackend#ping()}); a failure that is not a LockException is wrapped, naming the backend. */
    void ping() {
        try {
            backend.ping();
        } catch (dev.mortise.lock.LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new dev.mortise.lock.LockBackendException("Backend '" + backendName + "' did not answer a ping: " + e
                    + ". Check that the server is reachable.", null, backendName, e);
        }
    }

    LockInspection inspect(String key) {
        String checked = arguments.key(key);
        if (closed.getAsBoolean()) {
            throw new IllegalStateException("LockClient for backend '" + backendName + "' is closed; cannot inspect '"
                    + Arguments.abbreviate(checked) + "'. Build a new client.");
        }
        Instant readAt = Instant.now();
        KeyState state = read(checked);
        // Which of the server's holders are ours: the owner strings of this client's live holds of the key.
        Set<String> ours = new HashSet<>();
        KeyGates.Gate gate = gates.get(checked);
        if (gate != null) {
            for (Hold hold : gate.holds()) {
                if (hold.isActive()) {
                    ours.add(hold.grant.owner());
                }
            }
        }
        List<LockInspection.Holder> holders = new ArrayList<>(state.holders().size());
        for (KeyState.Holder holder : state.holders()) {
            holders.add(new LockInspection.Holder(HolderIds.of(holder.owner()), holder.fencingToken(),
                    holder.remaining(), ours.contains(holder.owner())));
        }
        return new LockInspection(key, backendName, state.mode(), holders, state.waiters(), readAt);
    }

    private KeyState read(String checked) {
        KeyState state;
        try {
            state = backend.inspect(checked);
        } catch (LockException | UnsupportedOperationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException("Backend '" + backendName + "' could not inspect lock '"
                    + Arguments.abbreviate(checked) + "': " + e + ". Check that the server is reachable.", checked,
                    backendName, e);
        }
        if (state == null) {
            throw new LockBackendException("Backend '" + backendName + "' returned no state when inspecting lock '"
                    + Arguments.abbreviate(checked) + "': its LockBackend.inspect must return a KeyState "
                    + "(KeyState.free(...) for a free key)", checked, backendName, null);
        }
        return state;
    }

    /** What {@link dev.mortise.lock.LockClient#heldLocks()} lists: the client's active holds, now. */
    List<HeldLock> heldLocks() {
        List<HeldLock> result = new ArrayList<>();
        long now = backend.ticker().read(); // the client's ticker: DefaultLockClient refuses any other
        for (KeyGates.Gate gate : gates.all()) {
            for (Hold hold : gate.holds()) {
                if (hold.isActive()) {
                    result.add(new HeldLock(hold.key(), backendName, hold.grant.fencingToken(), hold.openLeases(),
                            hold.acquiredAt(), Duration.ofNanos(now - hold.acquiredNanos()), hold.remaining(),
                            hold.renewed, hold.ownerDescription(), hold.mode, hold.holderId()));
                }
            }
        }
        return result;
    }
}
