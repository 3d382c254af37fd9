package dev.mortise.lock.spring;

import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipListener;
import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LockClient;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

import java.util.OptionalLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This instance's candidate for leadership of one group, configured under
 * {@code mortise.lock.leadership.<group>}: one bean per group, started and stopped with the
 * application context. It contends from start-up (unless {@code enabled=false}), leads while its
 * lease on the group's lock is valid, publishes {@link LeadershipElectedEvent} and
 * {@link LeadershipRevokedEvent}, and releases the lock when the context stops. See
 * {@link LeaderElection} for the contract (one leader at a time on every backend, the epoch is
 * the lease's fencing token) and {@link LeaderOnly} for methods that run on the leader only.
 *
 * <p>Thread-safe. Started last and stopped first among lifecycle beans (the default phase), so
 * the instance leads only while the rest of it is up.
 */
public final class Leadership implements SmartLifecycle, ApplicationEventPublisherAware {

    private final String group;
    private final String key;
    private final String backend;
    private final boolean enabled;
    private final LockClients clients;
    private volatile ApplicationEventPublisher publisher;
    /** Guards starting and stopping the election. */
    private final ReentrantLock lifecycle = new ReentrantLock();
    private volatile LeaderElection election;

    /**
     * @param group   the group's name
     * @param key     the lock key, or null/blank for {@code "leader:" + group}
     * @param backend the backend name, or null/blank for the default backend
     * @param enabled whether to contend when started
     * @param clients the lock clients
     * @throws IllegalArgumentException if {@code backend} is not configured
     */
    public Leadership(String group, String key, String backend, boolean enabled, LockClients clients) {
        this.group = group;
        this.key = key == null || key.isBlank() ? dev.mortise.lock.LeaderElectionBuilder.KEY_PREFIX + group : key;
        this.clients = clients;
        this.backend = backend == null || backend.isBlank() ? clients.defaultName() : backend;
        clients.get(this.backend); // fails now, naming the configured backends, rather than at start
        this.enabled = enabled;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** The group's name. */
    public String group() {
        return group;
    }

    /** The lock key of the group's leadership. */
    public String key() {
        return key;
    }

    /** The name of the backend the group elects on. */
    public String backend() {
        return backend;
    }

    /** Whether this instance takes part ({@code mortise.lock.leadership.<group>.enabled}). */
    public boolean isEnabled() {
        return enabled;
    }

    /** Whether this instance leads the group now: it holds the group's lock with a valid lease. */
    public boolean isLeader() {
        LeaderElection current = election;
        return current != null && current.isLeader();
    }

    /** The current term's epoch (the leadership lease's fencing token); empty unless {@link #isLeader()}. */
    public OptionalLong epoch() {
        LeaderElection current = election;
        return current == null ? OptionalLong.empty() : current.epoch();
    }

    /**
     * Steps down if leading, and contends again after a pause (see {@link LeaderElection#stepDown()}).
     *
     * @return true if this instance was leader
     */
    public boolean stepDown() {
        LeaderElection current = election;
        return current != null && current.stepDown();
    }

    @Override
    public void start() {
        lifecycle.lock();
        try {
            if (!enabled || election != null) {
                return;
            }
            LockClient client = clients.get(backend);
            election = client.leadership(group).key(key).listener(new LeadershipListener() {
                @Override
                public void onElected(long epoch) {
                    publish(new LeadershipElectedEvent(Leadership.this, group, epoch));
                }

                @Override
                public void onRevoked(LeadershipRevoked revoked) {
                    publish(new LeadershipRevokedEvent(Leadership.this, revoked));
                }
            }).start();
        } finally {
            lifecycle.unlock();
        }
    }

    private void publish(Object event) {
        ApplicationEventPublisher target = publisher;
        if (target != null) {
            target.publishEvent(event);
        }
    }

    /** Releases the group's lock if held (publishing the revoked event) and stops contending. */
    @Override
    public void stop() {
        // Closed under the lock, so that a start meanwhile cannot run a second candidate while the
        // first still releases; a lock, not a monitor: the close waits on the network.
        lifecycle.lock();
        try {
            LeaderElection current = election;
            election = null;
            if (current != null) {
                current.close();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        LeaderElection current = election;
        return current != null && current.isRunning();
    }

    @Override
    public boolean isAutoStartup() {
        return enabled;
    }

    @Override
    public String toString() {
        LeaderElection current = election;
        return "Leadership[group=" + group + ", key=" + key + ", backend=" + backend
                + (current == null ? ", stopped" : ", " + (current.isLeader() ? "leader" : "candidate")) + "]";
    }
}
