package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.LockSql;
import dev.mortise.lock.jdbc.internal.SharedKey;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.jdbc.internal.UnconfirmedGrants;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * One acquire statement of one request, and what its sends mean (docs/DESIGN.md, point 4): a
 * grant counts from the earliest send its answer rests on ({@link Sends#earliest}), and a send the
 * server may have applied without the request learning so — no answer, or a first send whose
 * resend was refused — is released in the background ({@link UnconfirmedGrants}). The answer
 * itself is the statement's own ({@link LockSql.Outcome}). Thread-safe.
 */
final class Admission {

    /** One acquire statement on a borrowed connection; sets {@code requestedAt} just before it is sent. */
    @FunctionalInterface
    interface Statement {
        LockSql.Outcome run(Connection connection, StoredKey key, long[] requestedAt) throws SQLException;
    }

    private final JdbcCalls calls;
    private final UnconfirmedGrants unconfirmed;
    private final int keyColumnBytes;

    Admission(JdbcCalls calls, UnconfirmedGrants unconfirmed, int keyColumnBytes) {
        this.calls = calls;
        this.unconfirmed = unconfirmed;
        this.keyColumnBytes = keyColumnBytes;
    }

    /** The request's key as stored in the key column. */
    StoredKey stored(String key) {
        return StoredKey.of(key, keyColumnBytes);
    }

    /**
     * Sends {@code statement} (twice at most, see {@link Sends}) and answers its grant, whose state is
     * the stored key (a {@link SharedKey} for a shared or permit hold), or busy with the holder's time left.
     */
    Attempt attempt(LockRequest request, String action, Statement statement) {
        StoredKey key = stored(request.key());
        Sends sends = new Sends();
        LockSql.Outcome outcome;
        try {
            outcome = calls.runIdempotent(request.key(), action, c -> {
                sends.beforeSend();
                return statement.run(c, key, sends.requestedAt);
            });
        } catch (LockBackendException e) {
            if (sends.sent()) {
                // Sent, but no answer: the server may have granted it, or may still. Nobody will renew that owner.
                cleanUp(request, key, sends);
            }
            throw e;
        }
        if (!outcome.isGranted() && sends.resent()) {
            // Busy on the resend, but the first send (whose connection broke) may still commit a grant later.
            cleanUp(request, key, sends);
        }
        if (outcome.isGranted()) {
            Object state = request.shared() ? new SharedKey(key.value(), request.takesPermits()) : key.value();
            return Attempt.granted(new Grant(request.key(), request.owner(), outcome.token(), sends.earliest(), state));
        }
        return Attempt.busy(outcome.remainingMillis() < 0 ? null : Duration.ofMillis(outcome.remainingMillis()));
    }

    private void cleanUp(LockRequest request, StoredKey key, Sends sends) {
        unconfirmed.release(request.key(), key.value(), request.owner(), sends.earliest(),
                Leases.millis(request.lease()), request.shared());
    }
}
