package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Removes, in the background and until etcd confirms, our keys whose fate a timed-out call
 * left unknown: a key on a session lease that lives as long as this process would
 * otherwise block its lock for as long. Retries back off from 250 ms to 5 s and stop when
 * the backend closes (closing revokes the session, which removes the keys). Thread-safe.
 */
final class OrphanCleaner {

    private static final Logger log = LoggerFactory.getLogger(OrphanCleaner.class);

    private final KV kv;
    private final Rpc rpc;
    private final ScheduledExecutorService scheduler;

    OrphanCleaner(KV kv, Rpc rpc, ScheduledExecutorService scheduler) {
        this.kv = kv;
        this.rpc = rpc;
        this.scheduler = scheduler;
    }

    /**
     * After a put on a session lease whose outcome is unknown: moves the session's fence and
     * deletes our key in one transaction, retried in the background until etcd confirms it.
     */
    void poisonLater(EtcdLease session, ByteSequence ownKey) {
        poison(session, List.of(ownKey), 0);
    }

    /**
     * {@link #poisonLater(EtcdLease, ByteSequence)} for the keys of one batch transaction whose
     * outcome is unknown: one fence move and every key's delete, in one transaction.
     */
    void poisonLater(EtcdLease session, List<ByteSequence> ownKeys) {
        poison(session, ownKeys, 0);
    }

    private void poison(EtcdLease session, List<ByteSequence> ownKeys, int attempt) {
        if (session.isLost()) {
            ownKeys.forEach(this::deleteLater); // nobody keeps it alive any more: a late put dies with the lease
            return;
        }
        ByteSequence fence = session.fenceKey();
        Op[] ops = new Op[ownKeys.size() + 1];
        ops[0] = Op.put(fence, KeySpace.bytes("session fence"), PutOption.builder().withLeaseId(session.id()).build());
        for (int i = 0; i < ownKeys.size(); i++) {
            ops[i + 1] = Op.delete(ownKeys.get(i), DeleteOption.DEFAULT);
        }
        kv.txn().Then(ops).commit()
                .orTimeout(rpc.timeout().toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
                    if (e == null) {
                        session.fence(fence, r.getHeader().getRevision());
                    } else if (!EtcdErrors.isLeaseNotFound(e)) {
                        log.debug("Fencing off etcd keys {} failed (attempt {}); retrying", ownKeys, attempt + 1, e);
                        later(() -> poison(session, ownKeys, attempt + 1), attempt);
                    }
                });
    }

    /**
     * Deletes our key in the background until etcd confirms it: after a write whose outcome
     * is unknown (a timeout), a key on the session lease would otherwise block the lock for
     * as long as this process lives. Our key holds nobody else's data, so a plain delete is safe.
     */
    void deleteLater(ByteSequence ownKey) {
        deleteLater(ownKey, 0);
    }

    private void deleteLater(ByteSequence ownKey, int attempt) {
        kv.delete(ownKey).orTimeout(rpc.timeout().toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
            if (e == null) {
                return;
            }
            log.debug("Deleting orphan etcd key {} failed (attempt {}); retrying", ownKey, attempt + 1, e);
            later(() -> deleteLater(ownKey, attempt + 1), attempt);
        });
    }

    private void later(Runnable retry, int attempt) {
        try {
            scheduler.schedule(retry, Math.min(5000, 250L << Math.min(attempt, 5)), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the backend is closing and revokes its session lease, which removes the key
        }
    }
}
