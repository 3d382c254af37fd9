package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.jdbc.internal.BatchSql;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.jdbc.internal.SharedSql;
import dev.mortise.lock.jdbc.internal.UnconfirmedGrants;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * All or nothing over several keys ({@link dev.mortise.lock.spi.LockBackend#tryAcquireAll}), in one
 * write statement ({@link BatchSql}). Should another session change a row between the statement's
 * check and its write, the parts taken are released on the same connection before the empty answer.
 * Its sends are tracked as a single acquire's ({@link Sends}): the grants count from the earliest
 * send, and every part of a batch sent without an answer, or refused on a resend, is cleaned up.
 * Thread-safe.
 */
final class BatchAcquire {

    private final BatchSql batch;
    private final LockSql sql;
    private final SharedSql shared;
    private final Admission admission;
    private final TableVersion version;
    private final JdbcCalls calls;
    private final UnconfirmedGrants unconfirmed;

    BatchAcquire(BatchSql batch, LockSql sql, SharedSql shared, Admission admission, TableVersion version,
                 JdbcCalls calls, UnconfirmedGrants unconfirmed) {
        this.batch = batch;
        this.sql = sql;
        this.shared = shared;
        this.admission = admission;
        this.version = version;
        this.calls = calls;
        this.unconfirmed = unconfirmed;
    }

    /**
     * The grants of every request, in order; empty when a key was held; {@code null} (the core takes
     * the keys one by one) for permit requests, a mix of modes the dialect has no statement for, and
     * a shared part on a table without the shared-lock columns.
     */
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        List<BatchSql.Part> parts = new ArrayList<>(requests.size());
        boolean anyShared = false;
        for (LockRequest request : requests) {
            if (request.takesPermits()) {
                return null; // permit requests are taken one by one (no native batch of them)
            }
            Holds.checkOwner(request);
            parts.add(new BatchSql.Part(admission.stored(request.key()), request.owner(), request.shared()));
            anyShared |= request.shared();
        }
        if (!batch.accepts(parts) || anyShared && version.isLegacy()) {
            return null;
        }
        return send(requests, parts, anyShared);
    }

    private List<Grant> send(List<LockRequest> requests, List<BatchSql.Part> parts, boolean withShared) {
        long leaseMillis = Leases.millis(requests.get(0).lease());
        Sends sends = new Sends();
        long[] tokens;
        try {
            tokens = calls.runIdempotent(requests.get(0).key(), "acquire " + requests.size()
                    + " locks together, the first", c -> {
                sends.beforeSend();
                long[] taken = withShared ? version.shared(() -> batch.acquireAll(c, parts, leaseMillis,
                        sends.requestedAt)) : batch.acquireAll(c, parts, leaseMillis, sends.requestedAt);
                return giveBackUnlessAll(c, parts, taken) ? taken : null;
            });
        } catch (LockBackendException e) {
            if (sends.sent()) {
                // Sent, but no answer (or a give-back failed): any part may be held, or be granted still.
                cleanUp(requests, parts, sends, leaseMillis);
            }
            throw e;
        }
        if (tokens == null) {
            if (sends.resent()) {
                // Refused on the resend, but the first send (whose connection broke) may still commit later.
                cleanUp(requests, parts, sends, leaseMillis);
            }
            return List.of();
        }
        List<Grant> grants = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            LockRequest request = requests.get(i);
            String stored = parts.get(i).key().value();
            Object state = request.shared() ? new SharedKey(stored) : stored;
            grants.add(new Grant(request.key(), request.owner(), tokens[i], sends.earliest(), state));
        }
        return grants;
    }

    private void cleanUp(List<LockRequest> requests, List<BatchSql.Part> parts, Sends sends, long leaseMillis) {
        for (int i = 0; i < parts.size(); i++) {
            BatchSql.Part part = parts.get(i);
            unconfirmed.release(requests.get(i).key(), part.key().value(), part.owner(), sends.earliest(), leaseMillis,
                    part.shared());
        }
    }

    /**
     * Whether every part was taken; if only some were (a row changed between the batch's check and its
     * write), releases those on {@code c} first, so nothing of the batch stays on the server.
     */
    private boolean giveBackUnlessAll(Connection c, List<BatchSql.Part> parts, long[] tokens) throws SQLException {
        boolean all = true;
        for (long token : tokens) {
            all &= token > 0;
        }
        if (!all) {
            for (int i = 0; i < parts.size(); i++) {
                if (tokens[i] > 0) {
                    BatchSql.Part part = parts.get(i);
                    if (part.shared()) {
                        shared.releaseShared(c, part.key().value(), part.owner());
                    } else {
                        sql.release(c, part.key().value(), part.owner());
                    }
                }
            }
        }
        return all;
    }
}
