package dev.mortise.samples.lockservice;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.samples.lockservice.LockApiMessages.AcquireRequest;
import dev.mortise.samples.lockservice.LockApiMessages.AcquireResponse;
import dev.mortise.samples.lockservice.LockApiMessages.ReleaseRequest;
import dev.mortise.samples.lockservice.LockApiMessages.ReleaseResponse;
import dev.mortise.samples.lockservice.LockApiMessages.RenewRequest;
import dev.mortise.samples.lockservice.LockApiMessages.RenewResponse;
import dev.mortise.samples.lockservice.OpenLeases.OpenLease;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;

import java.time.Duration;
import java.util.Optional;

/**
 * The lock service behind the HTTP API: remote clients lock through this instance's default
 * {@link LockClient}, so they share locks with the Java code of every instance (the same
 * keys, the same fencing tokens).
 *
 * <p>The remote {@code client_id} is the lock's owner ({@link LockSpec#owner}), not the HTTP
 * thread: the same client acquiring a key it holds re-enters it (same token), and the lease
 * may be renewed and released from any request. Leases are explicit ({@code lease_time_ms})
 * and never renewed in the background: a client that stops renewing loses the lock.
 */
@Service
public class LockService {

    private final LockClient locks;
    private final OpenLeases leases;
    private final LockServiceLimits limits;

    public LockService(LockClient locks, OpenLeases leases, LockServiceLimits limits) {
        this.locks = locks;
        this.leases = leases;
        this.limits = limits;
    }

    /** Acquires, waiting up to {@code block_time_ms}; 409 (acquired=false) when not granted in time. */
    public AcquireResponse acquire(AcquireRequest request) {
        String key = required("lock_key", request.lockKey());
        String client = clientId(request.clientId());
        Duration lease = duration("lease_time_ms", request.leaseTimeMs(), 1, limits.maxLease());
        Duration block = duration("block_time_ms", request.blockTimeMs(), 0, limits.maxBlock());
        Optional<LockLease> granted;
        try {
            granted = locks.tryAcquire(LockSpec.of(key).owner(client).lease(lease).waitFor(block));
        } catch (IllegalArgumentException e) {
            throw LockApiException.badRequest(e.getMessage());   // e.g. a key over the byte limit
        }
        if (granted.isEmpty()) {
            return new AcquireResponse(key, client, false, null, null, null, "'" + key + "' is held by another "
                    + "client and was not released within block_time_ms=" + block.toMillis() + "; retry later or "
                    + "block longer.");
        }
        LockLease held = granted.get();
        OpenLease open = leases.add(key, client, held);
        return new AcquireResponse(key, client, true, held.fencingToken(), open.leaseId(), expiresAt(held), null);
    }

    /** Sets the lease to {@code lease_time_ms} from now; 403 if the lease is no longer the caller's. */
    public RenewResponse renew(RenewRequest request) {
        OpenLease open = owned(request.leaseId(), request.lockKey(), request.clientId(), HttpStatus.FORBIDDEN);
        Duration lease = duration("lease_time_ms", request.leaseTimeMs(), 1, limits.maxLease());
        try {
            open.lease().extend(lease);
        } catch (LockLostException e) {
            leases.remove(open);
            throw LockApiException.forbidden("The lease on '" + open.lockKey() + "' has already ended ("
                    + e.getMessage() + "); another client may hold the lock now. Stop writing under it and "
                    + "acquire again.");
        }
        return new RenewResponse(open.lockKey(), true, open.lease().fencingToken(), expiresAt(open.lease()));
    }

    /** Releases; 404 for an unknown lease id, 403 if it is someone else's or had already expired. */
    public ReleaseResponse release(ReleaseRequest request) {
        OpenLease open = owned(request.leaseId(), request.lockKey(), request.clientId(), HttpStatus.NOT_FOUND);
        if (!leases.remove(open)) {
            throw new LockApiException(HttpStatus.NOT_FOUND, "Lease " + open.leaseId() + " was released already.");
        }
        try {
            open.lease().close();
        } catch (LockLostException e) {
            throw LockApiException.forbidden("The lease on '" + open.lockKey() + "' had already ended before "
                    + "this release (" + e.getMessage() + "): the lock was not yours when you released it, and "
                    + "another client may have held it meanwhile. Treat the work done under it as unprotected "
                    + "(your fenced writes were refused if so).");
        }
        return new ReleaseResponse(open.lockKey(), true);
    }

    /**
     * The open lease {@code leaseId} if it belongs to {@code clientId} on {@code lockKey}.
     * An unknown id answers {@code unknownStatus}; a mismatch always 403, and leaves the lease alone.
     */
    private OpenLease owned(String leaseId, String lockKey, String clientId, HttpStatus unknownStatus) {
        String key = required("lock_key", lockKey);
        String client = clientId(clientId);
        String id = required("lease_id", leaseId);
        OpenLease open = leases.find(id).orElseThrow(() -> new LockApiException(unknownStatus, "No open lease "
                + "with that lease_id: it was released, it expired, or it was never granted. Acquire again."));
        if (!open.clientId().equals(client) || !open.lockKey().equals(key)) {
            throw LockApiException.forbidden("That lease_id does not belong to client_id '" + client + "' on '"
                    + key + "'. Use the lease_id, client_id and lock_key of your own acquire.");
        }
        return open;
    }

    private String clientId(String clientId) {
        String client = required("client_id", clientId);
        if (client.length() > limits.maxClientIdLength()) {
            throw LockApiException.badRequest("client_id is " + client.length() + " characters long; at most "
                    + limits.maxClientIdLength() + " are accepted.");
        }
        return client;
    }

    private static String required(String field, String value) {
        if (value == null || value.isBlank()) {
            throw LockApiException.badRequest("\"" + field + "\" is missing or blank; give a non-empty string.");
        }
        return value;
    }

    private static Duration duration(String field, Long millis, long min, Duration max) {
        if (millis == null) {
            throw LockApiException.badRequest("\"" + field + "\" is missing; give a whole number of milliseconds.");
        }
        if (millis < min || millis > max.toMillis()) {
            throw LockApiException.badRequest("\"" + field + "\" is " + millis + "; give between " + min + " and "
                    + max.toMillis() + " ms (" + max + ").");
        }
        return Duration.ofMillis(millis);
    }

    /** Wall-clock end of local validity: conservative (it already subtracts the drift allowance). */
    private static long expiresAt(LockLease lease) {
        return System.currentTimeMillis() + lease.remaining().toMillis();
    }
}
