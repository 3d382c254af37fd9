package dev.mortise.samples.lockservice;

import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases granted to remote clients and not yet released, by lease id. A lease id is 128
 * random bits: renew and release require it, so knowing a client id or a fencing token
 * (which is sequential) is not enough to touch someone else's lock.
 *
 * <p>Leases that run out without a release are dropped every
 * {@code sample.lock-service.cleanup-interval}; the lock itself was free from the moment its
 * lease ended, the map only forgets it.
 */
@Component
public class OpenLeases {

    /**
     * One open lease.
     *
     * @param leaseId  the unguessable id handed to the client
     * @param lockKey  the key it locks
     * @param clientId the owner
     * @param lease    the lease
     */
    public record OpenLease(String leaseId, String lockKey, String clientId, LockLease lease) {
    }

    private static final Logger log = LoggerFactory.getLogger(OpenLeases.class);

    private final SecureRandom random = new SecureRandom();
    private final Map<String, OpenLease> leases = new ConcurrentHashMap<>();

    /** Registers {@code lease} and returns it with its new lease id. */
    public OpenLease add(String lockKey, String clientId, LockLease lease) {
        byte[] id = new byte[16];
        random.nextBytes(id);
        OpenLease open = new OpenLease(HexFormat.of().formatHex(id), lockKey, clientId, lease);
        leases.put(open.leaseId(), open);
        return open;
    }

    /** The open lease with this id, if any. */
    public Optional<OpenLease> find(String leaseId) {
        return Optional.ofNullable(leases.get(leaseId));
    }

    /** Forgets {@code open}; false if it was already forgotten (a concurrent release). */
    public boolean remove(OpenLease open) {
        return leases.remove(open.leaseId(), open);
    }

    /** How many leases are open. */
    public int size() {
        return leases.size();
    }

    /** Drops leases that ran out without a release. */
    @Scheduled(fixedDelayString = "${sample.lock-service.cleanup-interval:10s}")
    public int purgeExpired() {
        int purged = 0;
        for (OpenLease open : leases.values()) {
            if (!open.lease().isValid() && remove(open)) {
                purged++;
                try {
                    open.lease().close();
                } catch (LockException expected) {
                    // Lost (expired): nothing to release on the server any more.
                }
            }
        }
        if (purged > 0) {
            log.debug("Dropped {} lock-service leases that expired without a release", purged);
        }
        return purged;
    }
}
