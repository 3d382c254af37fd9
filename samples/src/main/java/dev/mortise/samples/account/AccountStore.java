package dev.mortise.samples.account;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import java.util.List;
import java.util.Optional;

/**
 * The {@code accounts} table. Every write made under a lock goes through
 * {@link #writeFenced}: the storage itself refuses a write whose fencing token is not
 * higher than the highest it has seen for the row, so a client whose lock expired while it
 * was paused (GC, network) cannot overwrite the work of the client that holds the lock now.
 */
@Repository
public class AccountStore {

    private final JdbcClient jdbc;

    public AccountStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
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
     * Writes {@code newBalance} only if {@code fencingToken} is higher than every token that
     * wrote the row before (seed 004's conditional update).
     *
     * @return false if the storage refused the write: a later lock holder has written the row
     */
    public boolean writeFenced(String id, long newBalance, long fencingToken) {
        return jdbc.sql("UPDATE accounts SET balance = ?, last_fencing_token = ? "
                        + "WHERE id = ? AND last_fencing_token < ?")
                .params(newBalance, fencingToken, id, fencingToken)
                .update() == 1;
    }
}
