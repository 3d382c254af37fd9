package dev.mortise.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Sets up a {@link LeaderElection} of one group on one {@link LockClient}; from
 * {@link LockClient#leadership(String)}. Each setter validates its argument at once (an
 * {@link IllegalArgumentException} naming the group and the fix). Not thread-safe; each
 * {@link #start()} starts a new, independent candidate.
 */
public final class LeaderElectionBuilder {

    /** The prefix of the default key: the group {@code billing} elects on the lock {@code leader:billing}. */
    public static final String KEY_PREFIX = "leader:";
    /** Default {@link #retryPause}. */
    public static final Duration DEFAULT_RETRY_PAUSE = Duration.ofSeconds(1);
    /** Default {@link #stepDownPause}. */
    public static final Duration DEFAULT_STEP_DOWN_PAUSE = Duration.ofSeconds(1);

    private final LockClient client;
    private final String group;
    private String key;
    private Duration retryPause = DEFAULT_RETRY_PAUSE;
    private Duration stepDownPause = DEFAULT_STEP_DOWN_PAUSE;
    private final List<LeadershipListener> listeners = new ArrayList<>();

    LeaderElectionBuilder(LockClient client, String group) {
        this.client = Objects.requireNonNull(client, "client");
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("leadership group must not be null or blank (backend '"
                    + client.backendName() + "'): name the group the candidates elect a leader of, e.g. \"billing\"");
        }
        this.group = group;
        this.key = KEY_PREFIX + group;
    }

    /**
     * The lock key of the group's leadership; default {@code "leader:" + group}. Every candidate of
     * the group must use the same key (and the same backend); it is checked as any lock key.
     */
    public LeaderElectionBuilder key(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("leadership key of group '" + group + "' must not be null or blank"
                    + " (backend '" + client.backendName() + "'); leave it unset for \"" + KEY_PREFIX + group + "\"");
        }
        this.key = key;
        return this;
    }

    /** Adds a listener told of each term's start and end (see {@link LeadershipListener}). */
    public LeaderElectionBuilder listener(LeadershipListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener must not be null (leadership group '" + group + "')"));
        return this;
    }

    /** Adds a listener of the start of each term, told the term's epoch. */
    public LeaderElectionBuilder onElected(LongConsumer elected) {
        Objects.requireNonNull(elected, "onElected must not be null (leadership group '" + group + "')");
        return listener(new LeadershipListener() {
            @Override
            public void onElected(long epoch) {
                elected.accept(epoch);
            }
        });
    }

    /** Adds a listener of the end of each term. */
    public LeaderElectionBuilder onRevoked(Consumer<LeadershipRevoked> revoked) {
        Objects.requireNonNull(revoked, "onRevoked must not be null (leadership group '" + group + "')");
        return listener(new LeadershipListener() {
            @Override
            public void onRevoked(LeadershipRevoked event) {
                revoked.accept(event);
            }
        });
    }

    /** How long the candidate waits before contending again after the backend failed; default 1 s. */
    public LeaderElectionBuilder retryPause(Duration pause) {
        this.retryPause = positive(pause, "retryPause");
        return this;
    }

    /**
     * How long a candidate that {@link LeaderElection#stepDown() stepped down} waits before it
     * contends again, so that a waiting candidate can take the lock first; default 1 s.
     */
    public LeaderElectionBuilder stepDownPause(Duration pause) {
        this.stepDownPause = positive(pause, "stepDownPause");
        return this;
    }

    private Duration positive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " of leadership group '" + group + "' must be positive, was "
                    + value + " (backend '" + client.backendName() + "')");
        }
        return value;
    }

    /**
     * Starts contending at once, on a thread of the election's own, and returns the running
     * election. On a closed client the election ends at once ({@link LeaderElection#isRunning()}
     * turns false) without ever leading.
     */
    public LeaderElection start() {
        return Core.PROVIDER.startElection(client, group, key, List.copyOf(listeners), retryPause, stepDownPause);
    }
}
