package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.MultiLease;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@link MultiLease} of {@link MultiAcquirer}: a group of ordinary leases of one client, in
 * canonical order ({@link LeaseGroup} holds, extends, loses and closes them as one). Not API:
 * use {@link MultiLease}.
 *
 * <p>Thread-safe.
 */
public final class DefaultMultiLease implements MultiLease {

    private final String backend;
    private final Map<String, LockLease> parts;
    private final Map<String, LockMode> modes;
    private final LeaseGroup group;

    /** @param leases the leases in canonical order; {@code modes} the mode of each, in the same order */
    DefaultMultiLease(String backend, List<LockLease> leases, List<LockMode> modes) {
        this.backend = backend;
        Map<String, LockLease> byKey = new LinkedHashMap<>();
        Map<String, LockMode> byMode = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            byKey.put(leases.get(i).key(), leases.get(i));
            byMode.put(leases.get(i).key(), modes.get(i));
        }
        this.parts = Collections.unmodifiableMap(byKey);
        this.modes = Collections.unmodifiableMap(byMode);
        this.group = new LeaseGroup(List.copyOf(this.parts.values()), "multi-key lock " + this.parts.keySet(), backend);
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
    public List<LockLease> parts() {
        return group.parts();
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
    public boolean isValid() {
        return group.isValid();
    }

    @Override
    public Duration remaining() {
        return group.remaining();
    }

    @Override
    public void ensureValid() {
        group.ensureValid();
    }

    @Override
    public void extend(Duration lease) {
        group.extend(lease);
    }

    @Override
    public MultiLease onLost(Consumer<LockLostEvent> listener) {
        group.onLost(listener);
        return this;
    }

    @Override
    public void close() {
        group.closeLingering(Duration.ZERO);
    }

    @Override
    public void closeLingering(Duration linger) {
        group.closeLingering(linger);
    }

    @Override
    public String toString() {
        return "MultiLease[backend=" + backend + ", keys=" + parts.keySet() + (group.closed() ? ", closed" : "") + "]";
    }
}
