package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.internal.group.GroupLease;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link MultiLease} of {@link MultiAcquirer}: a group of ordinary leases of one client, in
 * canonical order ({@link GroupLease} holds, extends, loses and closes them as one).
 *
 * <p>Thread-safe.
 */
final class DefaultMultiLease extends GroupLease<MultiLease> implements MultiLease {

    private final String backend;
    private final Map<String, LockLease> parts;
    private final Map<String, LockMode> modes;

    /** @param leases the leases in canonical order; {@code modes} the mode of each, in the same order */
    DefaultMultiLease(String backend, List<LockLease> leases, List<LockMode> modes) {
        this(backend, byKey(leases, leases), byKey(leases, modes));
    }

    private DefaultMultiLease(String backend, Map<String, LockLease> parts, Map<String, LockMode> modes) {
        super(List.copyOf(parts.values()), "multi-key lock " + parts.keySet(), backend);
        this.backend = backend;
        this.parts = parts;
        this.modes = modes;
    }

    private static <T> Map<String, T> byKey(List<LockLease> leases, List<T> values) {
        Map<String, T> byKey = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            byKey.put(leases.get(i).key(), values.get(i));
        }
        return Collections.unmodifiableMap(byKey);
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public List<String> keys() {
        return List.copyOf(parts.keySet());
    }

    @Override
    public LockLease part(String key) {
        LockLease lease = key == null ? null : parts.get(key);
        if (lease == null) {
            throw new IllegalArgumentException("Key '" + key + "' is not a part of this multi-key lock (backend '"
                    + backend + "'); its keys are " + parts.keySet());
        }
        return lease;
    }

    @Override
    public LockMode mode(String key) {
        return modes.get(part(key).key());
    }

    @Override
    public long fencingToken(String key) {
        return part(key).fencingToken();
    }

    @Override
    public String toString() {
        return "MultiLease[backend=" + backend + ", keys=" + parts.keySet() + (isClosed() ? ", closed" : "") + "]";
    }
}
