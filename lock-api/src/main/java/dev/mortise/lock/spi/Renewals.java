package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The server's answer to {@link LockBackend#renewAll}: which holds are gone, and for every other
 * hold of the call the lease the server now keeps it for, counted from the send of the renewal.
 * Immutable and thread-safe.
 */
public final class Renewals {

    private final Set<Grant> gone;
    private final Duration applied;
    private final Map<Grant, Duration> appliedTo;

    private Renewals(Set<Grant> gone, Duration applied, Map<Grant, Duration> appliedTo) {
        this.gone = gone;
        this.applied = applied;
        this.appliedTo = appliedTo;
    }

    /**
     * Every hold of the call not in {@code gone} was renewed with {@code applied} (on a server that
     * applies what it is sent: the lease {@code renewAll} was asked for).
     */
    public static Renewals of(Collection<Grant> gone, Duration applied) {
        return new Renewals(Set.copyOf(gone), positive(applied), Map.of());
    }

    /**
     * Holds renewed with leases of their own: {@code applied} maps each renewed hold to the lease in
     * force for it; a hold in neither collection counts as renewed with the lease asked for.
     */
    public static Renewals of(Collection<Grant> gone, Map<Grant, Duration> applied) {
        Map<Grant, Duration> copy = new HashMap<>(applied.size());
        applied.forEach((grant, lease) -> copy.put(Objects.requireNonNull(grant, "grant"), positive(lease)));
        return new Renewals(Set.copyOf(gone), null, copy);
    }

    /** The holds the server no longer had (expired, deleted, taken by another owner). */
    public Set<Grant> gone() {
        return gone;
    }

    /**
     * The lease in force for {@code grant} after this renewal, counted from its send; empty if the
     * hold is {@linkplain #gone() gone}, or if the answer does not say (then it is the lease asked for).
     */
    public Optional<Duration> applied(Grant grant) {
        if (gone.contains(grant)) {
            return Optional.empty();
        }
        return Optional.ofNullable(applied != null ? applied : appliedTo.get(grant));
    }

    @Override
    public String toString() {
        return "Renewals[gone=" + gone + ", applied=" + (applied != null ? applied : appliedTo) + "]";
    }

    private static Duration positive(Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("an applied lease must be positive, was " + lease);
        }
        return lease;
    }
}
