package dev.mortise.lock.shedlock;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spi.BackendGuarantees;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ShedLock {@link ExtensibleLockProvider} over any Mortise {@link LockClient}: keep
 * {@code @SchedulerLock} and {@code LockingTaskExecutor} code, lock through the Mortise
 * backend (Redis, etcd, ZooKeeper, JDBC, local) with its fencing, metrics and events.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockClient locks) {
 *     return new MortiseLockProvider(locks);
 * }
 * }</pre>
 *
 * <p>ShedLock's semantics, exactly:
 * <ul>
 *   <li><b>No waiting.</b> {@link #lock} tries once and returns empty if the name is held,
 *       by any process, or by this one: every call is its own owner, so a second
 *       {@code lock} of a held name on the same thread is refused, never re-entered.</li>
 *   <li><b>Both durations count from {@link LockConfiguration}'s {@code createdAt}</b>, as in
 *       ShedLock: the hold ends at {@code getLockAtMostUntil()} and an unlocked one is kept until
 *       {@code getLockAtLeastUntil()}, however long after {@code createdAt} {@code lock} was
 *       called. ({@link SimpleLock#extend} counts from its own call, as ShedLock's does.)</li>
 *   <li><b>{@code lockAtMostFor} is an explicit lease</b> on the server, never renewed: if
 *       the process stops, the server drops the hold then. A {@code lockAtMostFor} shorter
 *       than the backend can keep (etcd: 1 s; any backend: {@link Builder#shortestLease}) is
 *       granted with that shortest lease and ended by this provider at {@code lockAtMostFor};
 *       only if the process stops before then does the hold last the shortest lease.</li>
 *   <li><b>{@code lockAtLeastFor} is kept on the server.</b> {@link SimpleLock#unlock()}
 *       before that instant leaves the hold on the server to expire at it
 *       ({@link LockLease#closeLingering}), so it holds even if the process stops (on ZooKeeper
 *       by a persistent linger marker the next acquirer respects). The hold then simply ends:
 *       not a loss, no warning. On a backend that cannot keep a lease to the millisecond
 *       (etcd: whole seconds, at least 2 s by default), the provider instead sets the server
 *       lease to about the remainder (as rounded up by the server: what a stopped process
 *       leaves behind) and releases the hold itself at the instant; a remainder shorter than
 *       the backend's shortest lease is kept by the lease the hold already has.</li>
 *   <li><b>{@link SimpleLock#extend}</b> sets a new {@code lockAtMostFor} and
 *       {@code lockAtLeastFor} from now and returns a new lock; the old one is then invalid
 *       ({@link IllegalStateException} on {@code unlock} or {@code extend}), as is a lock
 *       already unlocked. A lock past its {@code lockAtMostFor} or lost on the server cannot
 *       be extended: empty.</li>
 * </ul>
 *
 * <p>Errors of the backend ({@link dev.mortise.lock.LockBackendException}) reach the caller
 * of {@code lock}, {@code unlock} and {@code extend} unchanged; a hold whose release could not
 * reach the server ends when its lease runs out. Thread-safe. {@link #close()} stops the
 * timer thread this provider starts on first use; it does not close the {@link LockClient}.
 */
public final class MortiseLockProvider implements ExtensibleLockProvider, AutoCloseable {

    /**
     * The least lease asked of the server whatever its backend. Shorter lockAtMostFor values are
     * ended by this provider's timer at their instant; the server lease only has to outlive the
     * grant's round trip on a loaded machine (a 10 ms lease came back "granted too late" from
     * ZooKeeper under load), and it bounds how long a crashed process holds such a lock.
     */
    static final Duration LEAST_LEASE = Duration.ofSeconds(1);

    /** The least margin over a shortened lockAtLeastFor remainder (see {@link #shortenedLease}). */
    private static final Duration LINGER_MARGIN = Duration.ofMillis(100);

    private static final AtomicLong PROVIDERS = new AtomicLong();

    private final LockClient client;
    private final String keyPrefix;
    private final Duration shortestLease;
    private final boolean rounds;
    private final String ownerPrefix = "shedlock-" + PROVIDERS.incrementAndGet() + "-";
    private final AtomicLong owners = new AtomicLong();
    private final Set<Hold> lingering = ConcurrentHashMap.newKeySet();
    private final Object timerLock = new Object();
    private ScheduledThreadPoolExecutor timer; // guarded by timerLock, started on first use
    private boolean closed; // guarded by timerLock

    /** A provider locking ShedLock names as Mortise keys of the same name on {@code client}. */
    public MortiseLockProvider(LockClient client) {
        this(builder(client));
    }

    private MortiseLockProvider(Builder builder) {
        this.client = builder.client;
        this.keyPrefix = builder.keyPrefix;
        BackendGuarantees guarantees = client.guarantees();
        Duration minimum = guarantees.minimumLease();
        this.rounds = minimum.compareTo(Duration.ofMillis(1)) > 0;
        this.shortestLease = builder.shortestLease != null ? builder.shortestLease
                : max(client.shortestLease(), LEAST_LEASE);
    }

    /** Starts configuring a provider over {@code client}. */
    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * Tries once to lock {@code configuration}'s name until its {@code lockAtMostUntil}
     * ({@code createdAt + lockAtMostFor}), as a new owner. If that instant has already passed,
     * the name is still locked if free and the hold ended at once: the lock is granted, as
     * ShedLock's storage providers ({@code JdbcTemplateLockProvider}, {@code InMemoryLockProvider})
     * grant it, but nothing holds the name any more; its {@code unlock} is quiet and its
     * {@code extend} empty.
     *
     * @return the lock, or empty if the name is held (by anyone, this thread included)
     * @throws dev.mortise.lock.LockBackendException if the backend failed
     * @throws IllegalArgumentException              if the name is not a valid key for the client
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        synchronized (timerLock) {
            if (closed) {
                throw new IllegalStateException("MortiseLockProvider on backend '" + client.backendName()
                        + "' is closed: create a new provider to lock '" + configuration.getName() + "'");
            }
        }
        // Both instants count from createdAt, as ShedLock's providers count them: read the wall
        // clock (ShedLock's, so a test clock applies) once, then follow the monotonic clock.
        Instant now = ClockProvider.now();
        long start = System.nanoTime();
        String name = configuration.getName();
        Duration atMostLeft = Duration.between(now, configuration.getLockAtMostUntil());
        Duration atLeastLeft = Duration.between(now, configuration.getLockAtLeastUntil());
        LockSpec spec = LockSpec.of(keyPrefix + name).lease(serverLease(atMostLeft))
                .owner(ownerPrefix + owners.incrementAndGet());
        Optional<LockLease> lease = client.tryAcquire(spec);
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        Hold hold = new Hold(this, name, lease.get());
        return Optional.of(new MortiseSimpleLock(this, hold, hold.nextGeneration(), start, atMostLeft, atLeastLeft));
    }

    /** The client this provider locks on. */
    public LockClient client() {
        return client;
    }

    /**
     * Stops this provider's timer. Unlocked holds it kept open for the rest of their
     * lockAtLeastFor are left on the server for that rest ({@link LockLease#closeLingering}:
     * rounded up on etcd), so closing the client
     * after the provider (as Spring does) does not free them early. Locks not yet unlocked are
     * left to their lease and the client. Idempotent; does not close the client.
     */
    @Override
    public void close() {
        synchronized (timerLock) {
            closed = true;
            if (timer != null) {
                timer.shutdownNow();
            }
        }
        for (Hold hold : lingering) {
            try {
                hold.handOver();
            } catch (RuntimeException e) {
                // The server could not be told: the hold ends with the lease it has.
            }
        }
    }

    void pending(Hold hold) {
        lingering.add(hold);
    }

    void done(Hold hold) {
        lingering.remove(hold);
    }

    /** The lease asked of the server for {@code atMost}: never below what the backend can keep. */
    Duration serverLease(Duration atMost) {
        return atMost.compareTo(shortestLease) < 0 ? shortestLease : atMost;
    }

    /** Whether a lease this short is granted longer than asked, so this provider must end it itself. */
    boolean raised(Duration atMost) {
        return atMost.compareTo(shortestLease) < 0;
    }

    /**
     * Whether {@link LockLease#closeLingering} keeps a linger this long exactly as asked and
     * beyond the process: on a backend that honours every lease to the millisecond (Redis,
     * JDBC, local, and ZooKeeper, whose linger marker counts on the server's clock). etcd
     * rounds TTLs up to whole seconds (at least 2 s by default).
     */
    boolean lingersExactly(Duration linger) {
        return !rounds && linger.compareTo(Duration.ofMillis(1)) >= 0;
    }

    /**
     * The lease to set on the server for the {@code remaining} part of a lockAtLeastFor the
     * provider ends itself, or null to keep the hold's lease: only where the server rounds
     * leases up (etcd), so that a stopped process leaves the name held about the remainder
     * rather than up to lockAtMostFor. A margin over the remainder keeps the client's
     * clock-drift allowance from ending the hold (a reported loss) before the provider does.
     */
    Duration shortenedLease(Duration remaining) {
        if (!rounds) {
            return null;
        }
        Duration margin = remaining.dividedBy(5);
        Duration lease = remaining.plus(margin.compareTo(LINGER_MARGIN) < 0 ? LINGER_MARGIN : margin);
        return lease.compareTo(shortestLease) >= 0 ? lease : null;
    }

    /** Runs {@code task} after {@code delayNanos} on this provider's timer thread; null once closed. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        synchronized (timerLock) {
            if (closed) {
                return null;
            }
            if (timer == null) {
                timer = new ScheduledThreadPoolExecutor(1, runnable -> {
                    Thread thread = new Thread(runnable, "mortise-shedlock-timer");
                    thread.setDaemon(true);
                    return thread;
                });
                timer.setRemoveOnCancelPolicy(true);
            }
            return timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public String toString() {
        return "MortiseLockProvider[backend=" + client.backendName() + (keyPrefix.isEmpty() ? "" : ", keyPrefix=" + keyPrefix) + "]";
    }

    /** Options of a {@link MortiseLockProvider}. */
    public static final class Builder {

        private final LockClient client;
        private String keyPrefix = "";
        private Duration shortestLease;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client must not be null: pass the LockClient to lock on");
        }

        /**
         * A prefix put before every ShedLock name to make its Mortise key (default none: the
         * name is the key, so {@code @SchedulerLock(name = "report")} and a Mortise
         * {@code acquire("report")} exclude each other).
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null: pass \"\" for none");
            return this;
        }

        /**
         * The shortest lease asked of the client (default: the larger of
         * {@link dev.mortise.lock.LockClient#shortestLease()} and 1 s). A shorter
         * {@code lockAtMostFor} is granted with this lease and ended by the provider at its
         * instant; only a process that dies in between holds it for the longer lease.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder shortestLease(Duration shortestLease) {
            if (shortestLease == null || shortestLease.isNegative() || shortestLease.isZero()) {
                throw new IllegalArgumentException("shortestLease must be positive, was " + shortestLease
                        + " (backend '" + client.backendName() + "'): pass at least the backend's minimum lease");
            }
            this.shortestLease = shortestLease;
            return this;
        }

        public MortiseLockProvider build() {
            return new MortiseLockProvider(this);
        }
    }
}
