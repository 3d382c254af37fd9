package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the advice knows of the holds its annotated calls have open and a {@code HeldLock} does
 * not tell: the keys of the multi-key lock a hold is part of (its mode {@code HeldLock} tells). The
 * {@code locks} actuator endpoint joins it to {@link LockClient#heldLocks()} by client, key and
 * fencing token. Bounded by the holds open; thread-safe.
 */
public final class AnnotatedHolds {

    /** What a hold was taken for; {@code multiKey} is empty for a single-key lock. */
    public record Info(List<String> multiKey) {
    }

    private record Id(LockClient client, String key, long token) {
    }

    private record Entry(Info info, int count) {
    }

    private static final Map<Id, Entry> OPEN = new ConcurrentHashMap<>();

    private AnnotatedHolds() {
    }

    /**
     * Records {@code leases} (the parts of one call's lock) as held by an annotated call.
     *
     * @return run once when the call's lock is released
     */
    static Runnable register(LockClient client, List<LockLease> leases, boolean multi) {
        // Loops, not streams, and one shared Info for single keys: this runs on every annotated call.
        Info info = multi ? new Info(keys(leases)) : SINGLE_KEY;
        if (leases.size() == 1) {
            Id id = new Id(client, leases.get(0).key(), leases.get(0).fencingToken());
            open(id, info);
            return () -> close(id);
        }
        List<Id> ids = new ArrayList<>(leases.size());
        for (LockLease lease : leases) {
            Id id = new Id(client, lease.key(), lease.fencingToken());
            ids.add(id);
            open(id, info);
        }
        return () -> ids.forEach(AnnotatedHolds::close);
    }

    private static final Info SINGLE_KEY = new Info(List.of());

    private static List<String> keys(List<LockLease> leases) {
        List<String> keys = new ArrayList<>(leases.size());
        for (LockLease lease : leases) {
            keys.add(lease.key());
        }
        return List.copyOf(keys);
    }

    private static void open(Id id, Info info) {
        // a nested call shares the hold (same token): the outermost call's facts stay until it ends
        OPEN.merge(id, new Entry(info, 1), (old, one) -> new Entry(old.info(), old.count() + 1));
    }

    private static void close(Id id) {
        OPEN.computeIfPresent(id, (k, old) -> old.count() <= 1 ? null : new Entry(old.info(), old.count() - 1));
    }

    /** What the advice knows of {@code client}'s hold of {@code key} with {@code token}, or {@code null}. */
    public static Info find(LockClient client, String key, long token) {
        Entry entry = OPEN.get(new Id(client, key, token));
        return entry == null ? null : entry.info();
    }
}
