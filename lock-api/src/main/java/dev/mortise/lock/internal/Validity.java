package dev.mortise.lock.internal;

import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;

import java.time.Duration;

/**
 * The one validity rule of the contract (DESIGN.md, point 4), written once: a hold is valid
 * locally until {@code start + min(requested, applied, backend.validity(that)) - drift}, where
 * {@code start} was taken before the last request the server confirmed was sent and
 * {@code applied} is the lease the server answered it put in force for that request (with the
 * grant, or as the renewal's answer). Grants,
 * watchdog renewals and {@code extend} all call {@link #deadline}; nothing else computes a
 * deadline. Also the checks that keep a lease long enough for this rule to leave something.
 */
final class Validity {

    private final LockBackend backend;
    private final ClientSettings settings;

    Validity(LockBackend backend, ClientSettings settings) {
        this.backend = backend;
        this.settings = settings;
    }

    /**
     * The deadline a confirmation is worth.
     *
     * @param startNanos the client's ticker read before the confirmed request was sent
     * @param requested  the lease the request asked for
     * @param applied    the lease the server put in force for it ({@link #applied})
     */
    long deadline(long startNanos, Duration requested, Duration applied) {
        return startNanos + usableNanos(worth(requested, applied));
    }

    /** The deadline {@code grant} is worth: counted from its request's send, with the lease it was granted. */
    long deadline(Grant grant, Duration requested) {
        return deadline(grant.requestedAtNanos(), requested, applied(grant, requested));
    }

    /** What {@code grant} is worth before drift ({@link #worth(Duration, Duration)}). */
    Duration worth(Grant grant, Duration requested) {
        return worth(requested, applied(grant, requested));
    }

    /** What a confirmation asking for {@code requested} is worth before drift: never more than was asked or applied. */
    Duration worth(Duration requested, Duration applied) {
        Duration lease = min(requested, applied);
        return min(lease, bounded(lease));
    }

    /** The lease the server put in force, as the backend answered it (none, or a broken answer, counts as the request). */
    static Duration applied(Duration answered, Duration requested) {
        return answered == null || answered.isNegative() || answered.isZero() ? requested : answered;
    }

    /** The lease the server put in force with {@code grant}, whose request asked for {@code requested}. */
    static Duration applied(Grant grant, Duration requested) {
        return applied(grant.appliedLease().orElse(null), requested);
    }

    /** {@code backend.validity(lease)}, trusted only when it is positive and at most the lease. */
    Duration bounded(Duration lease) {
        Duration validity = backend.validity(lease);
        return validity == null || validity.isNegative() || validity.isZero() || validity.compareTo(lease) > 0
                ? lease : validity;
    }

    /** Nanoseconds of a confirmation worth {@code lease} that local validity counts on (lease minus drift). */
    long usableNanos(Duration lease) {
        return settings.usableNanos(lease);
    }

    /** A third of what a renewal with {@code lease} is worth: the watchdog's period for such a hold. */
    long renewalPeriodNanos(Duration lease) {
        return Math.max(1_000_000, usableNanos(bounded(lease)) / 3);
    }

    /**
     * Rejects a lease this client cannot keep honestly: shorter than the backend honours, or so
     * short that the drift allowance leaves less than two thirds of it.
     *
     * @param what  the role of the lease in the message ({@code "Lease for lock 'k'"}, {@code "defaultLease"})
     * @param fix   what to change, named in the message
     */
    static void check(Duration lease, LockBackend backend, ClientSettings settings, String what, String fix) {
        Duration shortest = shortestHonoured(backend);
        if (shortest != null && lease.compareTo(shortest) < 0) {
            throw new IllegalArgumentException(what + " is " + lease + ", shorter than the " + shortest
                    + " that backend '" + backend.name() + "' can honour; " + fix + " of at least " + shortest);
        }
        long nanos = lease.toNanos();
        long drift = nanos - settings.usableNanos(lease);
        if (drift * 3 >= nanos) {
            throw new IllegalArgumentException(what + " is " + lease + " but the clock drift allowance takes "
                    + Duration.ofNanos(drift) + " of it (backend '" + backend.name() + "'): a lease must keep at least "
                    + "two thirds after drift. " + fix + " of at least " + Duration.ofNanos(drift * 3 + 1_000_000)
                    .truncatedTo(java.time.temporal.ChronoUnit.MILLIS) + ", or lower LockClientBuilder.clockDrift");
        }
    }

    /** The shortest lease {@link #check} accepts with these settings on this backend. */
    static Duration shortestAccepted(LockBackend backend, ClientSettings settings) {
        // Smallest L with drift(L) * 3 < L, where drift(L) = L * factor + allowance: L > 3 * allowance / (1 - 3 * factor).
        double factor = settings.driftFactor();
        long allowance = settings.driftAllowance().toNanos();
        long least = factor >= 1.0 / 3 ? Long.MAX_VALUE : (long) Math.floor(3 * allowance / (1 - 3 * factor)) + 1;
        Duration byDrift = Duration.ofNanos(Math.max(1, least)).plusNanos(999_999).truncatedTo(
                java.time.temporal.ChronoUnit.MILLIS);
        Duration shortest = shortestHonoured(backend);
        return shortest != null && shortest.compareTo(byDrift) > 0 ? shortest : byDrift;
    }

    /** The backend's one statement of the shortest lease it honours, or null if it states none. */
    private static Duration shortestHonoured(LockBackend backend) {
        BackendGuarantees guarantees = backend.guarantees();
        return guarantees == null ? null : guarantees.minimumLease();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
