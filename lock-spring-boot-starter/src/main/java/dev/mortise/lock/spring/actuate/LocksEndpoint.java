package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.spring.LockClients;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code locks} actuator endpoint: the holds this instance has open on every
 * configured backend (read), and a write operation that force-releases one of them
 * ({@link LockClient#forceRelease}): its leases become lost and the server hold is
 * released. Only this instance's holds are visible or releasable.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

    private final LockClients clients;

    public LocksEndpoint(LockClients clients) {
        this.clients = clients;
    }

    /** The holds of this instance, per backend in configuration order. */
    @ReadOperation
    public LocksDescriptor locks() {
        List<HeldLockDescriptor> held = new ArrayList<>();
        for (Map.Entry<String, LockClient> entry : clients.asMap().entrySet()) {
            for (HeldLock lock : entry.getValue().heldLocks()) {
                held.add(new HeldLockDescriptor(lock.key(), entry.getKey(), lock.fencingToken(), lock.holdCount(),
                        lock.acquiredAt(), lock.heldFor(), lock.remaining(), lock.renewed(), lock.owner()));
            }
        }
        return new LocksDescriptor(clients.defaultName(), List.copyOf(clients.names()), held);
    }

    /**
     * Force-releases {@code key} held by this instance on {@code backend} (the default if
     * omitted). Code still running under it finds its lease lost.
     */
    @WriteOperation
    public ReleaseDescriptor release(String key, @Nullable String backend) {
        String name = backend == null || backend.isEmpty() ? clients.defaultName() : backend;
        boolean released = clients.get(name).forceRelease(key);
        return new ReleaseDescriptor(key, name, released);
    }

    /** The endpoint's read result. */
    public record LocksDescriptor(String defaultBackend, List<String> backends, List<HeldLockDescriptor> held)
            implements OperationResponseBody {
    }

    /**
     * One hold.
     *
     * @param heldFor   ISO-8601, as the time it has been held
     * @param remaining ISO-8601, the time left before its local validity deadline
     */
    public record HeldLockDescriptor(String key, String backend, long fencingToken, int holdCount, Instant acquiredAt,
                                     Duration heldFor, Duration remaining, boolean renewed, String owner) {
    }

    /** The result of a release: whether this instance held the key. */
    public record ReleaseDescriptor(String key, String backend, boolean released) implements OperationResponseBody {
    }
}
