package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link LockSubject} assembled from a lambda and the resources to close after it, so each
 * backend's catalog stays a list of short recipes.
 */
public final class SimpleSubject implements LockSubject {

    /** The acquire step of a subject. */
    @FunctionalInterface
    public interface Acquirer {
        Held acquire(String key, Duration wait) throws Exception;
    }

    /** The acquire step of a subject with a shared (read) mode. */
    @FunctionalInterface
    public interface ModeAcquirer {
        Held acquire(String key, boolean shared, Duration wait) throws Exception;
    }

    /** The acquire step of a subject's multi-key lock. */
    @FunctionalInterface
    public interface MultiAcquirer {
        Held acquireAll(List<String> keys, Duration wait) throws Exception;
    }

    private final String id;
    private final String label;
    private final Role role;
    private final boolean canWait;
    private final Acquirer acquirer;
    private final List<AutoCloseable> resources;
    private final ModeAcquirer modeAcquirer;
    private final MultiAcquirer multiAcquirer;

    private SimpleSubject(String id, String label, Role role, boolean canWait, Acquirer acquirer,
                          List<AutoCloseable> resources, ModeAcquirer modeAcquirer, MultiAcquirer multiAcquirer) {
        this.id = id;
        this.label = label;
        this.role = role;
        this.canWait = canWait;
        this.acquirer = acquirer;
        this.resources = resources;
        this.modeAcquirer = modeAcquirer;
        this.multiAcquirer = multiAcquirer;
    }

    /**
     * @param resources closed in reverse order by {@link #close()} (clients, pools)
     */
    public static SimpleSubject of(String id, String label, Role role, boolean canWait, Acquirer acquirer,
                                   AutoCloseable... resources) {
        return new SimpleSubject(id, label, role, canWait, acquirer, new ArrayList<>(List.of(resources)), null, null);
    }

    /** This subject with a shared (read) mode: {@code modes} then serves both modes of {@link #acquire(String, boolean, Duration)}. */
    public SimpleSubject withModes(ModeAcquirer modes) {
        return new SimpleSubject(id, label, role, canWait, acquirer, resources, modes, multiAcquirer);
    }

    /** This subject with a multi-key lock. */
    public SimpleSubject withMulti(MultiAcquirer multi) {
        return new SimpleSubject(id, label, role, canWait, acquirer, resources, modeAcquirer, multi);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Role role() {
        return role;
    }

    @Override
    public boolean canWait() {
        return canWait;
    }

    @Override
    public Held acquire(String key, Duration wait) throws Exception {
        return acquirer.acquire(key, wait);
    }

    @Override
    public Held acquire(String key, boolean shared, Duration wait) throws Exception {
        if (modeAcquirer == null) {
            return LockSubject.super.acquire(key, shared, wait);
        }
        return modeAcquirer.acquire(key, shared, wait);
    }

    @Override
    public Held acquireAll(List<String> keys, Duration wait) throws Exception {
        if (multiAcquirer == null) {
            return LockSubject.super.acquireAll(keys, wait);
        }
        return multiAcquirer.acquireAll(keys, wait);
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return id;
    }
}
