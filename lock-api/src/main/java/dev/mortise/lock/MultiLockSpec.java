package dev.mortise.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A request for several lock keys at once, all or nothing ({@link LockClient#acquireAll(MultiLockSpec)}):
 * the keys with their modes, one wait shared by all of them, and the lease and owner every part
 * is taken with. Immutable; each method returns a copy.
 *
 * <pre>{@code
 * MultiLockSpec spec = MultiLockSpec.of(List.of("account:1", "account:2"))
 *         .shared("rates")
 *         .waitFor(Duration.ofSeconds(5));
 * try (MultiLease locks = client.acquireAll(spec)) { ... }
 * }</pre>
 *
 * <ul>
 *   <li><b>Canonical order.</b> {@link #parts()} lists the keys in ascending
 *       {@link String#compareTo} order (UTF-16 code units): a total order every client in every
 *       JVM agrees on, whatever order the caller gave. Parts are taken in that order, so two
 *       callers asking for overlapping sets in different orders never deadlock.</li>
 *   <li><b>Duplicates collapse.</b> A key named twice is one part. A key asked for both
 *       {@link LockMode#SHARED shared} and {@link LockMode#EXCLUSIVE exclusive} is exclusive.</li>
 *   <li><b>One wait.</b> {@code waitFor} is the budget of the whole request, not of each part:
 *       one deadline, and each part waits only for what is left of it. Zero (the default)
 *       tries each part once.</li>
 *   <li><b>Lease and owner</b> apply to every part, as {@link LockSpec#lease} and
 *       {@link LockSpec#owner} do for one key.</li>
 * </ul>
 */
public final class MultiLockSpec {

    private final Map<String, LockMode> modes;
    private final Duration waitFor;
    private final Duration lease;
    private final String owner;

    private MultiLockSpec(Map<String, LockMode> modes, Duration waitFor, Duration lease, String owner) {
        this.modes = modes;
        this.waitFor = waitFor;
        this.lease = lease;
        this.owner = owner;
    }

    /**
     * Exclusive parts for {@code keys} (duplicates collapse), no wait, the default renewed lease.
     *
     * @throws IllegalArgumentException if {@code keys} is {@code null} or contains {@code null}
     */
    public static MultiLockSpec of(Collection<String> keys) {
        if (keys == null) {
            throw new IllegalArgumentException("Lock keys must not be null: pass the keys to lock together, "
                    + "such as List.of(\"account:1\", \"account:2\")");
        }
        MultiLockSpec spec = new MultiLockSpec(Collections.unmodifiableMap(new TreeMap<>()), Duration.ZERO, null, null);
        for (String key : keys) {
            spec = spec.with(key, LockMode.EXCLUSIVE, keys);
        }
        return spec;
    }

    /**
     * Parts with the key and {@link LockSpec#lockMode() mode} of each of {@code parts}. The wait,
     * lease and owner are this spec's own: a part that sets any of them is refused rather than
     * silently ignored.
     *
     * @throws IllegalArgumentException if {@code parts} is {@code null}, contains {@code null} or a
     *                                  part with its own wait, lease or owner
     */
    public static MultiLockSpec ofSpecs(Collection<LockSpec> parts) {
        if (parts == null) {
            throw new IllegalArgumentException("Lock specs must not be null: pass the parts to lock together, "
                    + "such as List.of(LockSpec.of(\"account:1\"), LockSpec.of(\"rates\").shared())");
        }
        MultiLockSpec spec = of(List.of());
        for (LockSpec part : parts) {
            if (part == null) {
                throw new IllegalArgumentException("A part of a multi-key lock must not be null, in " + parts);
            }
            if (!part.waitTime().isZero() || part.explicitLease() != null || part.explicitOwner() != null) {
                throw new IllegalArgumentException("Part " + part + " of a multi-key lock sets its own wait, lease or "
                        + "owner; a multi-key lock has one of each for all its parts. Set them on the MultiLockSpec "
                        + "(waitFor, lease, owner) and give the parts only a key and a mode");
            }
            spec = spec.with(part.key(), part.lockMode(), parts);
        }
        return spec;
    }

    /** A copy with {@code key} as a shared (read) part, unless the key is already exclusive. */
    public MultiLockSpec shared(String key) {
        return with(key, LockMode.SHARED, modes.keySet());
    }

    /** A copy with {@code key} as an exclusive (write) part. */
    public MultiLockSpec exclusive(String key) {
        return with(key, LockMode.EXCLUSIVE, modes.keySet());
    }

    /** A copy in which the whole request waits up to {@code wait} (validated when used). */
    public MultiLockSpec waitFor(Duration wait) {
        return new MultiLockSpec(modes, wait, lease, owner);
    }

    /** A copy whose parts have an explicit lease that is not renewed (validated when used). */
    public MultiLockSpec lease(Duration lease) {
        return new MultiLockSpec(modes, waitFor, lease, owner);
    }

    /** A copy whose parts are owned by {@code owner} instead of the calling thread. */
    public MultiLockSpec owner(String owner) {
        return new MultiLockSpec(modes, waitFor, lease, owner);
    }

    private MultiLockSpec with(String key, LockMode mode, Collection<?> context) {
        if (key == null) {
            throw new IllegalArgumentException("Lock key must not be null, in the keys " + context
                    + " of a multi-key lock: pass the name of each resource to lock, such as \"order:42\"");
        }
        TreeMap<String, LockMode> copy = new TreeMap<>(modes);
        // exclusive wins: a key asked for both ways must exclude writers and readers alike
        copy.merge(key, mode, (a, b) -> a == LockMode.EXCLUSIVE || b == LockMode.EXCLUSIVE ? LockMode.EXCLUSIVE
                : LockMode.SHARED);
        return new MultiLockSpec(Collections.unmodifiableMap(copy), waitFor, lease, owner);
    }

    /**
     * The parts in canonical order (ascending {@link String#compareTo}), one per distinct key, each
     * a {@link LockSpec} with only its key and mode set.
     */
    public List<LockSpec> parts() {
        List<LockSpec> parts = new ArrayList<>(modes.size());
        modes.forEach((key, mode) -> parts.add(LockSpec.of(key).mode(mode)));
        return List.copyOf(parts);
    }

    /** The distinct keys in canonical order. */
    public List<String> keys() {
        return List.copyOf(modes.keySet());
    }

    /** The mode of {@code key}'s part, or {@code null} if it is not a part. */
    public LockMode mode(String key) {
        return key == null ? null : modes.get(key);
    }

    /** The wait of the whole request. */
    public Duration waitTime() {
        return waitFor;
    }

    /** The explicit lease of every part, or {@code null} for the default renewed lease. */
    public Duration explicitLease() {
        return lease;
    }

    /** The explicit owner id of every part, or {@code null} for the calling thread. */
    public String explicitOwner() {
        return owner;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MultiLockSpec s && modes.equals(s.modes) && Objects.equals(waitFor, s.waitFor)
                && Objects.equals(lease, s.lease) && Objects.equals(owner, s.owner);
    }

    @Override
    public int hashCode() {
        return Objects.hash(modes, waitFor, lease, owner);
    }

    @Override
    public String toString() {
        StringBuilder parts = new StringBuilder();
        modes.forEach((key, mode) -> parts.append(parts.length() == 0 ? "" : ", ").append(key)
                .append(mode == LockMode.SHARED ? " (shared)" : ""));
        return "MultiLockSpec[keys=[" + parts + "], waitFor=" + waitFor + ", lease="
                + (lease == null ? "renewed" : lease) + (owner == null ? "" : ", owner=" + owner) + "]";
    }
}
