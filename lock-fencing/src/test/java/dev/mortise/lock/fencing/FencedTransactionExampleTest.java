package dev.mortise.lock.fencing;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.test.MortiseLockTest;
import dev.mortise.lock.test.StolenLock;
import dev.mortise.lock.test.TestLockClient;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The example of docs/fencing.md, "Testing a fenced transaction", written as a user of Mortise
 * would: lock-test's {@link TestLockClient} ends a lease on demand (no sleeping), and the fence
 * guard on an in-memory H2 database refuses the stale holder whose transaction begins after a
 * newer holder wrote. What {@code @DistributedLock(fence = ...)} runs is this check.
 */
@MortiseLockTest
class FencedTransactionExampleTest {

    private DataSource database;
    private JdbcFenceGuard guard;

    @BeforeEach
    void createDatabase() throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:accounts-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        database = h2;
        guard = JdbcFenceGuard.builder(database).createTableIfMissing(true).build();
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL)");
            statement.execute("INSERT INTO accounts VALUES ('42', 0)");
        }
    }

    // --- the snippet of docs/fencing.md starts here ---
    @Test
    void aHolderPausedPastItsLeaseIsRefusedAfterANewerHolderWrote(TestLockClient locks) throws SQLException {
        LockLease stale = locks.acquire(LockSpec.of("account:42").lease(Duration.ofSeconds(10)));
        locks.advance(Duration.ofSeconds(11));              // "paused" past its lease: no sleep

        try (TestLockClient otherInstance = locks.anotherClient();
             LockLease newer = otherInstance.acquire("account:42", Duration.ofSeconds(1))) {
            deposit(newer, 100);                             // the newer holder writes and commits
        }

        // The stale holder's transaction begins only now: the fence refuses it, nothing is written.
        assertThatThrownBy(() -> deposit(stale, 1)).isInstanceOf(StaleFencingTokenException.class);
        assertThat(balance()).isEqualTo(100);
    }

    @Test
    void aHolderWhoseLockWasTakenIsRefusedToo(TestLockClient locks) throws SQLException {
        LockLease mine = locks.acquire("account:42", Duration.ofSeconds(1));   // renewed in the background
        StolenLock thief = locks.steal("account:42");      // another owner, a higher token
        inTransaction(connection -> {
            guard.check(connection, "account:42", thief.fencingToken());
            add(connection, 7);
        });

        assertThatThrownBy(() -> deposit(mine, 1)).isInstanceOf(StaleFencingTokenException.class);
        assertThat(balance()).isEqualTo(7);
    }

    /** The code under test: a deposit in one transaction, fenced first. */
    void deposit(LockLease lease, long amount) throws SQLException {
        inTransaction(connection -> {
            guard.check(connection, "account:42", lease);   // first statement of the transaction
            add(connection, amount);
        });
    }
    // --- the snippet ends here ---

    private void inTransaction(Work work) throws SQLException {
        try (Connection connection = database.getConnection()) {
            connection.setAutoCommit(false);
            try {
                work.run(connection);
                connection.commit();
            } catch (RuntimeException | SQLException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    private static void add(Connection connection, long amount) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE accounts SET balance = balance + ? WHERE id = '42'")) {
            update.setLong(1, amount);
            update.executeUpdate();
        }
    }

    private long balance() throws SQLException {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT balance FROM accounts WHERE id = '42'")) {
            row.next();
            return row.getLong(1);
        }
    }

    private interface Work {
        void run(Connection connection) throws SQLException;
    }
}
