package dev.mortise.lock;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a {@link LockClient}. Each setter validates its argument at once. Not thread-safe;
 * build once and share the client.
 */
public final class LockClientBuilder {

    /** Default lease of renewed holds: 30 seconds, as Redisson's watchdog. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default limit on a key's UTF-8 length. */
    public static final int DEFAULT_MAX_KEY_BYTES = 512;

    private final LockBackend backend;
    private Duration defaultLease = DEFAULT_LEASE;
    private double driftFactor = 0.01;
    private Duration driftAllowance = Duration.ofMillis(2);
    private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
    private final List<LockListener> listeners = new ArrayList<>();
    private Ticker ticker;
    private DeadlockDetection deadlockDetection = DeadlockDetection.DEFAULT;

    LockClientBuilder(LockBackend backend) {
        this.backend = Objects.requireNonNull(backend, "backend must not be null: pass the LockBackend to lock on");
    }

    /**
     * The lease of holds acquired without an explicit lease. Such holds are renewed every
     * third of it while open, so it bounds how long a crashed holder blocks others.
     *
     * @throws IllegalArgumentException if not at least 10 ms
     */
    public LockClientBuilder defaultLease(Duration lease) {
        if (lease == null || lease.compareTo(Duration.ofMillis(10)) < 0) {
            throw new IllegalArgumentException("defaultLease must be at least 10ms, was " + lease
                    + " (backend '" + backend.name() + "'); 30s is a good default");
        }
        this.defaultLease = lease;
        return this;
    }

    /**
     * The clock-drift allowance subtracted from every lease for local validity:
     * {@code lease * factor + allowance}. Defaults: 0.01 and 2 ms (the Redlock values).
     *
     * @throws IllegalArgumentException if factor is not in [0, 0.5) or allowance is negative
     */
    public LockClientBuilder clockDrift(double factor, Duration allowance) {
        if (!(factor >= 0 && factor < 0.5)) {
            throw new IllegalArgumentException("clock drift factor must be in [0, 0.5), was " + factor);
        }
        if (allowance == null || allowance.isNegative()) {
            throw new IllegalArgumentException("clock drift allowance must be zero or positive, was " + allowance);
        }
        this.driftFactor = factor;
        this.driftAllowance = allowance;
        return this;
    }

    /**
     * The longest key accepted, in UTF-8 bytes (default 512). Longer keys are rejected
     * with {@link IllegalArgumentException}.
     *
     * @throws IllegalArgumentException if not in [1, 65536]
     */
    public LockClientBuilder maxKeyBytes(int maxKeyBytes) {
        if (maxKeyBytes < 1 || maxKeyBytes > 65536) {
            throw new IllegalArgumentException("maxKeyBytes must be in [1, 65536], was " + maxKeyBytes);
        }
        this.maxKeyBytes = maxKeyBytes;
        return this;
    }

    /**
     * How this client looks for deadlocks across processes (default {@link DeadlockDetection#DEFAULT}:
     * waits longer than 200 ms whose owner holds other locks of this client are published and followed;
     * {@link DeadlockDetection#off()} turns it off). On a backend that keeps no wait records
     * ({@link LockBackend#waitRecords()} empty) detection is off whatever this says.
     */
    public LockClientBuilder deadlockDetection(DeadlockDetection detection) {
        this.deadlockDetection = Objects.requireNonNull(detection,
                "deadlock detection must not be null: DeadlockDetection.off() turns it off");
        return this;
    }

    /** Adds a listener for lock events (metrics, logging). */
    public LockClientBuilder listener(LockListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
        return this;
    }

    /**
     * For tests: the clock of lease time — lease start, local validity, the watchdog's schedule,
     * expiry, {@code closeLingering}. Waits for a lock stay on real time whatever the ticker.
     * The default is the backend's ({@link LockBackend#ticker()}), which is the system ticker for
     * every backend but an in-process one built on a ticker of its own, so this setter is only
     * ever a check: it must be the backend's ticker, since the backend stamps its grants with it.
     * The {@code lock-test} artifact wires a hand-moved ticker through both for you.
     *
     * @throws IllegalArgumentException (at {@link #build()}) if it is not the backend's ticker
     */
    public LockClientBuilder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker must not be null: leave it unset for the backend's");
        return this;
    }

    /**
     * Builds the client. It starts its daemon threads lazily: a watchdog (renewals and server
     * clean-up), an expiry timer and a notification thread for listeners.
     *
     * @throws IllegalArgumentException if the default lease is shorter than the backend can
     *                                  honour ({@link dev.mortise.lock.spi.BackendGuarantees#minimumLease()}) or the clock
     *                                  drift allowance takes a third of it or more; the message
     *                                  names both values and the fix; or if {@link #ticker} is
     *                                  not the backend's ticker
     */
    public LockClient build() {
        return Core.PROVIDER.newClient(backend, defaultLease, driftFactor, driftAllowance, maxKeyBytes,
                List.copyOf(listeners), ticker != null ? ticker : backend.ticker(), deadlockDetection);
    }
}
