package dev.mortise.samples.account;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import dev.mortise.lock.spring.fencing.Fences;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;
import java.util.Optional;

/**
 * The {@code accounts} table. Every write made under a lock is fenced by lock-fencing's
 * guard ({@link Fences}): inside the write's transaction, the database refuses a lease whose
 * fencing token is lower than one that already wrote the account, so a client whose lock
 * expired while it was paused (GC, network) cannot overwrite the work of the client that
 * holds the lock now. The service's annotated methods get the same check from
 * {@code @DistributedLock(fence = ...)}.
 */
@Repository
public class AccountStore {

    private final JdbcClient jdbc;
    private final Fences fences;
    private final TransactionTemplate transactions;

    public AccountStore(JdbcClient jdbc, Fences fences, TransactionTemplate transactions) {
        this.jdbc = jdbc;
        this.fences = fences;
        this.transactions = transactions;
    }

    /** The fence (and lock key) of an account. */
    public static String resource(String id) {
        return AccountService.LOCK_PREFIX + id;
    }

    /** The account, if it exists. */
    public Optional<Account> find(String id) {
        return jdbc.sql("SELECT id, balance, last_fencing_token FROM accounts WHERE id = ?")
                .param(id)
                .query((rs, n) -> new Account(rs.getString(1), rs.getLong(2), rs.getLong(3)))
                .optional();
    }

    /** All accounts, by id. */
    public List<Account> findAll() {
        return jdbc.sql("SELECT id, balance, last_fencing_token FROM accounts ORDER BY id")
                .query((rs, n) -> new Account(rs.getString(1), rs.getLong(2), rs.getLong(3)))
                .list();
    }

    /** Creates the account with {@code balance} unless it exists (then leaves it alone). */
    public void createIfMissing(String id, long balance) {
        if (find(id).isPresent()) {
            return;
        }
        try {
            jdbc.sql("INSERT INTO accounts (id, balance, last_fencing_token) VALUES (?, ?, 0)")
                    .params(id, balance).update();
        } catch (DuplicateKeyException e) {
            // Another instance created it between our read and our insert: fine.
        }
    }

    /**
     * Sets the balance without any token check. The token column is kept: fencing tokens of
     * a key only grow, so resetting it would let an old token write again.
     */
    public void resetBalance(String id, long balance) {
        jdbc.sql("UPDATE accounts SET balance = ? WHERE id = ?").params(balance, id).update();
    }

    /**
     * The unprotected write of a read-modify-write: what code without a lock (or ignoring
     * its token) does. Used by the demonstration to show lost updates.
     */
    public void writeUnfenced(String id, long newBalance) {
        jdbc.sql("UPDATE accounts SET balance = ? WHERE id = ?").params(newBalance, id).update();
    }

    /**
     * Writes the balance and records the token of the write, without a check of its own: call it
     * in a transaction whose fence was checked first ({@code @DistributedLock(fence = ...)} or
     * {@link Fences#check}).
     */
    public void write(String id, long newBalance, long fencingToken) {
        jdbc.sql("UPDATE accounts SET balance = ?, last_fencing_token = ? WHERE id = ?")
                .params(newBalance, fencingToken, id).update();
    }

    /**
     * Writes {@code newBalance} in a transaction of its own whose first statement is the fence
     * check of {@code lease} for the account.
     *
     * @return false if the guard refused the write: a later lock holder has written the account
     */
    public boolean writeFenced(String id, long newBalance, LockLease lease) {
        try {
            transactions.executeWithoutResult(status -> {
                fences.check(resource(id), lease);
                write(id, newBalance, lease.fencingToken());
            });
            return true;
        } catch (StaleFencingTokenException refused) {
            return false;
        }
    }

    /**
     * A read-modify-write of one unit in a fenced transaction: the check first (it takes the
     * fence row's lock, so the read cannot be older than a newer holder's commit), then read,
     * {@code work}, write.
     *
     * @return false if the guard refused the lease
     */
    public boolean withdrawOneFenced(String id, LockLease lease, Runnable work) {
        try {
            transactions.executeWithoutResult(status -> {
                fences.check(resource(id), lease);
                long balance = find(id).orElseThrow().balance();
                work.run();
                write(id, balance - 1, lease.fencingToken());
            });
            return true;
        } catch (StaleFencingTokenException refused) {
            return false;
        }
    }
}
