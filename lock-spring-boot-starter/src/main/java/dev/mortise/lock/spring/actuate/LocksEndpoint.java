package dev.mortise.lock.spring.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInspection;
import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.internal.AnnotatedHolds;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code locks} actuator endpoint, read-only: the holds this instance has open on every
 * configured backend and what its deadlock detection sees ({@code /actuator/locks}), and what a backend's server records about one key,
 * whoever holds it ({@code /actuator/locks/{key}}). {@link ForceReleaseLocksEndpoint} adds the write operation, only when
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

    /** The holds of this instance and what its deadlock detection sees, per backend in configuration order. */
    @ReadOperation
    public LocksDescriptor locks() {
        List<HeldLockDescriptor> held = new ArrayList<>();
        List<DeadlocksDescriptor> deadlocks = new ArrayList<>();
        for (Map.Entry<String, LockClient> entry : clients.asMap().entrySet()) {
            deadlocks.add(DeadlocksDescriptor.of(entry.getKey(), entry.getValue().deadlocks()));
            for (HeldLock lock : entry.getValue().heldLocks()) {
                AnnotatedHolds.Info info = AnnotatedHolds.find(entry.getValue(), lock.key(), lock.fencingToken());
                held.add(new HeldLockDescriptor(lock.key(), entry.getKey(), lock.fencingToken(), lock.holdCount(),
                        lock.acquiredAt().toString(), lock.heldFor().toString(), lock.remaining().toString(),
                        lock.renewed(), lock.owner(), LockAccess.of(lock.mode()).tag(),
                        info == null || info.multiKey().isEmpty() ? null : info.multiKey(), lock.holderId()));
            }
        }
        return new LocksDescriptor(clients.defaultName(), List.copyOf(clients.names()), held, leadership(),
                deadlocks);
    }

    /**
     * What the server of {@code backend} (the default if omitted) records about {@code key}, through
     * {@link LockClient#inspect}: GET {@code /actuator/locks/{key}} over HTTP. A key with slashes may
     * be given as more path segments ({@code /actuator/locks/orders/42} is {@code orders/42}). Holders
     * are shown by their opaque holder ids, never by the owner strings that would let a caller
     * release them. Read-only: it takes nothing and leaves nothing on the server.
     *
     * @throws InvalidEndpointRequestException (400 over HTTP) for a blank or over-long key or an
     *                                         unknown backend, with the message that says why
     */
    @ReadOperation
    public InspectionDescriptor inspect(@Selector(match = Selector.Match.ALL_REMAINING) String[] key,
                                        @Nullable String backend) {
        String joined = String.join("/", key);
        LockClient client;
        LockInspection inspection;
        try {
            client = clients.get(backend);
            inspection = client.inspect(joined);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
        String name = backend == null || backend.isEmpty() ? clients.defaultName() : backend;
        List<HolderDescriptor> holders = new ArrayList<>(inspection.holders().size());
        for (LockInspection.Holder holder : inspection.holders()) {
            holders.add(new HolderDescriptor(holder.holderId(),
                    holder.fencingToken().isPresent() ? holder.fencingToken().getAsLong() : null,
                    holder.remaining().map(Duration::toMillis).orElse(null), holder.heldByThisClient()));
        }
        return new InspectionDescriptor(inspection.key(), name, inspection.held(),
                inspection.mode() == null ? null : LockAccess.of(inspection.mode()).tag(), holders,
                inspection.waiters().isPresent() ? inspection.waiters().getAsInt() : null,
                inspection.readAt().toString());
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
     * @param deadlocks  per backend, the waits its client publishes for deadlock detection now and the
     *                   last cycles it found
     */
    public record LocksDescriptor(String defaultBackend, List<String> backends, List<HeldLockDescriptor> held,
                                  List<LeadershipDescriptor> leadership, List<DeadlocksDescriptor> deadlocks)
            implements OperationResponseBody {

        public LocksDescriptor(String defaultBackend, List<String> backends, List<HeldLockDescriptor> held) {
            this(defaultBackend, backends, held, List.of());
        }

        public LocksDescriptor(String defaultBackend, List<String> backends, List<HeldLockDescriptor> held,
                               List<LeadershipDescriptor> leadership) {
            this(defaultBackend, backends, held, leadership, List.of());
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
     * @param holderId   the hold's opaque id, as {@code GET /actuator/locks/{key}} shows it on every
     *                   instance: match one against the other to find which instance holds a key
     */
    public record HeldLockDescriptor(String key, String backend, long fencingToken, int holdCount, String acquiredAt,
                                     String heldFor, String remaining, boolean renewed, String owner, String mode,
                                     List<String> multiKey, String holderId) {
    }

    /**
     * What {@code GET /actuator/locks/{key}} returns: one read of the server, a snapshot.
     *
     * @param backend the configured name of the backend that was read
     * @param held    whether any hold of the key was on the server
     * @param mode    {@code write} (one exclusive holder), {@code read} (shared holders), or {@code null}
     *                when free
     * @param holders the holds on the server
     * @param waiters requests waiting on the server, or {@code null} where the backend cannot tell
     * @param readAt  when the server was read (ISO-8601)
     *
     * <p>Its null fields are written as {@code null} (Boot's actuator JSON leaves nulls out by
     * default): "not recorded by this backend" is an answer, not a missing field.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record InspectionDescriptor(String key, String backend, boolean held, String mode,
                                       List<HolderDescriptor> holders, Integer waiters, String readAt)
            implements OperationResponseBody {
    }

    /**
     * One hold on the server.
     *
     * @param holderId         the opaque id of the hold ({@code LockLease.holderId()} of its lease)
     * @param fencingToken     its token, or {@code null} where the backend does not store it with the hold
     * @param remainingMillis  the lease the server still gives it, in ms, or {@code null} where it keeps none
     * @param heldByThisClient whether it is a hold of this instance (on the same backend)
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record HolderDescriptor(String holderId, Long fencingToken, Long remainingMillis,
                                   boolean heldByThisClient) {
    }

    /** The result of a release: whether this instance held the key. */
    public record ReleaseDescriptor(String key, String backend, boolean released) implements OperationResponseBody {
    }
}
