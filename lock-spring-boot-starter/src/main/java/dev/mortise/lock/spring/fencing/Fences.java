package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The fence guard bound to Spring's transactions: checks a lease's fencing token against a
 * resource's fence on the connection of the transaction running on this thread
 * ({@link DataSourceUtils#getConnection}), so the check commits or rolls back with the
 * transaction's own writes.
 *
 * <pre>{@code
 * @Transactional
 * public void withdraw(String id, long amount) {
 *     try (LockLease lease = locks.acquire("account:" + id, Duration.ofSeconds(5))) {
 *         fences.check("account:" + id, lease);   // first statement of the transaction
 *         ... read and write account id ...
 *     }
 * }
 * }</pre>
 *
 * <p>A multi-key lock has one token per key: {@link #checkAll(MultiLease, Function)} fences one
 * resource per key, each with its own part's token
 * ({@code fences.checkAll(lease, key -> "balance:" + key)}).
 *
 * <p>Behind {@code @DistributedLock(fence = ...)} too (per key of a multi-key lock, with
 * {@code #lockKey}). A stale lease throws
 * {@link StaleFencingTokenException}, which (a {@code RuntimeException}) rolls a
 * {@code @Transactional} transaction back. Thread-safe.
 */
public final class Fences {

    private final JdbcFenceGuard guard;
    private final DataSource dataSource;

    /** @param dataSource the DataSource of the guard's fence table and of the transactions it fences */
    public Fences(JdbcFenceGuard guard, DataSource dataSource) {
        this.guard = Objects.requireNonNull(guard, "guard");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Raises {@code resource}'s fence to {@code lease}'s token in the current transaction, or refuses.
     *
     * @throws StaleFencingTokenException if a newer holder has written {@code resource}: let the
     *                                    transaction roll back, and do not retry with this lease
     * @throws IllegalStateException      if no transaction on the guard's DataSource is active
     */
    public void check(String resource, LockLease lease) {
        Objects.requireNonNull(lease, "lease");
        inTransaction(resource, connection -> FenceRejections.programmatic(lease.backend(),
                () -> guard.check(connection, resource, lease)));
    }

    /** As {@link #check(String, LockLease)} with the lease's key as the resource. */
    public void check(LockLease lease) {
        Objects.requireNonNull(lease, "lease");
        check(lease.key(), lease);
    }

    /**
     * Raises the fence of {@code resourceOfKey.apply(key)} to the token of {@code key}'s part, for
     * every key of {@code lease}, in the current transaction ({@link JdbcFenceGuard#checkAll}: in
     * ascending order of the resources, distinct keys to distinct resources), or refuses.
     *
     * @throws StaleFencingTokenException for the first resource a newer holder of its key has
     *                                    written: let the transaction roll back, and do not retry
     *                                    with this lease
     * @throws IllegalArgumentException   if two keys map to one resource, or a resource is invalid
     * @throws IllegalStateException      if no transaction on the guard's DataSource is active
     */
    public void checkAll(MultiLease lease, Function<String, String> resourceOfKey) {
        Objects.requireNonNull(lease, "lease");
        inTransaction(lease.keys().toString(), connection -> FenceRejections.programmatic(lease.backend(),
                () -> guard.checkAll(connection, lease, resourceOfKey)));
    }

    /** As {@link #checkAll(MultiLease, Function)} with each key as its own resource. */
    public void checkAll(MultiLease lease) {
        checkAll(lease, Function.identity());
    }

    /** The guard in use (for checks on a connection of your own). */
    public JdbcFenceGuard guard() {
        return guard;
    }

    /**
     * Why a check made now would protect nothing, or empty if it can run: no transaction is
     * active on this thread, or the running one is not on the guard's DataSource. The checks
     * throw {@link IllegalStateException} with this problem; call it to fail earlier, or with
     * a message of your own.
     */
    public Optional<String> transactionProblem() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return Optional.of("no transaction is active when it runs");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return DataSourceUtils.isConnectionTransactional(connection, dataSource) ? Optional.empty()
                    : Optional.of("the running transaction is not on the fence guard's DataSource (another "
                    + "transaction manager or DataSource)");
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** Runs {@code check} on the connection of the transaction running on this thread. */
    private void inTransaction(String resource, Consumer<Connection> check) {
        transactionProblem().ifPresent(problem -> {
            throw new IllegalStateException(noTransaction(resource, problem));
        });
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            check.accept(connection);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private static String noTransaction(String resource, String problem) {
        return "Fences.check for resource '" + resource + "' runs inside the current transaction, but " + problem
                + ", so the check would protect nothing. Call it inside @Transactional (or a TransactionTemplate) "
                + "on the fence guard's DataSource, first in the transaction.";
    }
}
