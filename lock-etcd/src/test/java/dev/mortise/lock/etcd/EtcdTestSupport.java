package dev.mortise.lock.etcd;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.etcd.internal.KeySpace;
import dev.mortise.lock.tck.server.FreePorts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the etcd tests do to the server behind the backend's back: look at a lock's keys, revoke leases. */
final class EtcdTestSupport {

    static final String NAMESPACE = "mortise-test/";

    private final Client admin;
    private final KeySpace keys = new KeySpace(NAMESPACE);

    EtcdTestSupport(Client admin) {
        this.admin = admin;
    }

    static EtcdLockBackendBuilder backend(List<String> endpoints) {
        return EtcdLockBackend.builder().endpoints(endpoints).namespace(NAMESPACE);
    }

    /** A backend on a loopback port nobody listens on. */
    static EtcdLockBackend unreachable(Duration operationTimeout) {
        return EtcdLockBackend.builder().endpoints("http://127.0.0.1:" + FreePorts.next())
                .operationTimeout(operationTimeout).build();
    }

    /** Every key under the lock's prefix (holder and waiters), oldest first. */
    List<KeyValue> keysOf(String key) throws Exception {
        return admin.getKVClient().get(keys.prefix(key), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build())
                .get(10, TimeUnit.SECONDS).getKvs();
    }

    /** How many wait-record keys there are under the prefixes of {@code holderIds} ({@code <namespace>#wait/<id>/}). */
    int waitRecordKeys(java.util.Collection<String> holderIds) throws Exception {
        int count = 0;
        for (String id : holderIds) {
            count += (int) admin.getKVClient().get(ByteSequence.from(NAMESPACE + "#wait/" + id + "/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount();
        }
        return count;
    }

    /** The key of the hold behind {@code lease} (its create revision is the token). */
    KeyValue holdKey(LockLease lease) throws Exception {
        return keysOf(lease.key()).stream().filter(kv -> kv.getCreateRevision() == lease.fencingToken()).findFirst()
                .orElseThrow(() -> new AssertionError("no etcd key with revision " + lease.fencingToken() + " for lock '"
                        + lease.key() + "'"));
    }

    /** Revokes the lease behind {@code lease}'s key, as an operator or an expiry would. */
    void revokeLeaseOf(LockLease lease) throws Exception {
        revoke(holdKey(lease).getLease());
    }

    void revoke(long leaseId) throws Exception {
        admin.getLeaseClient().revoke(leaseId).get(10, TimeUnit.SECONDS);
    }
}
