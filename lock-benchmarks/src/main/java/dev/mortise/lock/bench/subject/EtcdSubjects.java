package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.etcd.EtcdLockBackend;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The etcd subjects: Mortise, jetcd's {@code Lock} RPC with a lease granted per lock (grant,
 * lock, unlock, revoke), and the floor of two plain puts. ShedLock's etcd provider
 * ({@code shedlock-provider-etcd-jetcd}) could not be resolved from Maven Central as reached
 * from this build (7.10.1, 6.0.1 and 4.20.0 tried), so it is missing here.
 */
public final class EtcdSubjects {

    /** Ids in report order. */
    public static final List<String> IDS = List.of("etcd/mortise", "etcd/jetcd-lock", "etcd/floor-put");

    private static final long LEASE_SECONDS = 30;

    private EtcdSubjects() {
    }

    public static LockSubject create(String id, String endpoint) {
        return switch (id) {
            case "etcd/mortise" -> MortiseSubjects.over(id, EtcdLockBackend.builder().endpoints(endpoint).build());
            case "etcd/jetcd-lock" -> jetcdLock(id, endpoint);
            case "etcd/floor-put" -> putFloor(id, endpoint);
            default -> throw new IllegalArgumentException("unknown subject " + id);
        };
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    private static LockSubject jetcdLock(String id, String endpoint) {
        Client client = Client.builder().endpoints(endpoint).build();
        io.etcd.jetcd.Lock locks = client.getLockClient();
        Lease leases = client.getLeaseClient();
        return SimpleSubject.of(id, "jetcd Lock RPC (lease per lock)", Role.PEER, true, (key, wait) -> {
            long lease = leases.grant(LEASE_SECONDS).get(10, TimeUnit.SECONDS).getID();
            try {
                ByteSequence owned = locks.lock(bytes("jetcd-bench/" + key), lease)
                        .get(wait.toNanos(), TimeUnit.NANOSECONDS).getKey();
                return () -> {
                    locks.unlock(owned).get(10, TimeUnit.SECONDS);
                    leases.revoke(lease).get(10, TimeUnit.SECONDS);
                };
            } catch (TimeoutException e) {
                // Revoking the lease deletes the waiter key the Lock RPC created.
                leases.revoke(lease).get(10, TimeUnit.SECONDS);
                return null;
            }
        }, client::close);
    }

    private static LockSubject putFloor(String id, String endpoint) {
        Client client = Client.builder().endpoints(endpoint).build();
        KV kv = client.getKVClient();
        ByteSequence value = bytes("owner");
        return SimpleSubject.of(id, "floor: 2 × put", Role.FLOOR, false, (key, wait) -> {
            ByteSequence k = bytes("floor/" + key);
            kv.put(k, value).get(10, TimeUnit.SECONDS);
            return () -> kv.put(k, value).get(10, TimeUnit.SECONDS);
        }, client::close);
    }
}
