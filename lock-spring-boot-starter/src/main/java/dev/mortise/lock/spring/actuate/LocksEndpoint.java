package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.internal.AnnotatedHolds;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code locks} actuator endpoint, read-only: the holds this instance has open on every
 * configured backend. {@link ForceReleaseLocksEndpoint} adds the write operation, only when
 * {@code mortise.lock.actuator.force-release.enabled=true}.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

    final LockClients clients;
    private volatile Leaderships leaderships;

    public LocksEndpoint(LockClients clients) {
        this.clients = clients;
    }

    /** Adds the leadership groups of this instance to what the endpoint reads ({@code leadership}). */
    public void setLeaderships(Leaderships leaderships) {
        this.leaderships = leaderships;
    }

    /** The holds of this instance, per backend in configuration order. */
    @ReadOperation
    public LocksDescriptor locks() {
        List<HeldLockDescriptor> held = new ArrayList<>();
        for (Map.Entry<String, LockClient> entry : clients.asMap().entrySet()) {
            for (HeldLock lock : entry.getValue().heldLocks()) {
                AnnotatedHolds.Info info = AnnotatedHolds.find(entry.getValue(), lock.key(), lock.fencingToken());
                held.add(new HeldLockDescriptor(lock.key(), entry.getKey(), lock.fencingToken(), lock.holdCount(),
                        lock.acquiredAt().toString(), lock.heldFor().toString(), lock.remaining().toString(),
                        lock.renewed(), lock.owner(), LockAccess.of(lock.mode()).tag(),
                        info == null || info.multiKey().isEmpty() ? null : info.multiKey()));
            }
        }
        return new LocksDescriptor(clients.defaultName(), List.copyOf(clients.names()), held, leadership());
    }

    private List<LeadershipDescriptor> leadership() {
        Leaderships groups = leaderships;
        if (groups == null) {
            return List.of();
        }
        List<LeadershipDescriptor> result = new ArrayList<>();
        for (Leadership group : groups.all()) {
            result.add(new LeadershipDescriptor(group.group(), group.key(), group.backend(), state(group),
                    group.isLeader(), group.epoch().isPresent() ? group.epoch().getAsLong() : null));
        }
        return result;
    }

    /** {@code leader}, {@code candidate}, {@code disabled} or {@code stopped}. */
    static String state(Leadership group) {
        if (!group.isEnabled()) {
            return "disabled";
        }
        if (group.isLeader()) {
            return "leader";
        }
        return group.isRunning() ? "candidate" : "stopped";
    }

    /**
     * The endpoint's read result.
     *
     * @param leadership the leader-election groups of this instance (empty if none is configured)
     */
    public record LocksDescriptor(String defaultBackend, List<String> backends, List<HeldLockDescriptor> held,
                                  List<LeadershipDescriptor> leadership) implements OperationResponseBody {

        public LocksDescriptor(String defaultBackend, List<String> backends, List<HeldLockDescriptor> held) {
            this(defaultBackend, backends, held, List.of());
        }
    }

    /**
     * One leadership group of this instance.
     *
     * @param state  {@code leader}, {@code candidate} (contending), {@code disabled} or {@code stopped}
     * @param leader whether this instance leads the group now (its leadership lease is valid)
     * @param epoch  the current term's epoch (the lease's fencing token) while leader, else {@code null}
     */
    public record LeadershipDescriptor(String group, String key, String backend, String state, boolean leader,
                                       Long epoch) {
    }

    /**
     * One hold. Times are ISO-8601 text, whatever JSON mapper the actuator uses.
     *
     * @param acquiredAt when it was granted ({@code 2026-01-01T10:00:00Z})
     * @param heldFor    how long it has been held ({@code PT1.5S})
     * @param remaining  the time left before its local validity deadline ({@code PT28.5S})
     * @param renewed    whether the watchdog renews it (no explicit lease)
     * @param owner      the owner context: a thread name or an owner id
     * @param mode       {@code read} (a shared hold) or {@code write} (an exclusive one), from
     *                   {@link HeldLock#mode()}: for every hold, annotated or taken through the
     *                   {@code LockClient} API
     * @param multiKey   for a part of a multi-key {@code @DistributedLock}, every key of that lock in
     *                   the order taken (this hold's key among them); {@code null} otherwise
     */
    public record HeldLockDescriptor(String key, String backend, long fencingToken, int holdCount, String acquiredAt,
                                     String heldFor, String remaining, boolean renewed, String owner, String mode,
                                     List<String> multiKey) {
    }

    /** The result of a release: whether this instance held the key. */
    public record ReleaseDescriptor(String key, String backend, boolean released) implements OperationResponseBody {
    }
}
