package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import dev.mortise.lock.spring.internal.FenceCheck;
import dev.mortise.lock.spring.internal.LockOperation;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.Objects;
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
public final class Fences implements FenceCheck {

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
        check(resource, lease, lease.backend(), FenceRejections.PROGRAMMATIC, null);
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
        checkAll(lease, resourceOfKey, FenceRejections.PROGRAMMATIC, null);
    }

    /** As {@link #checkAll(MultiLease, Function)} with each key as its own resource. */
    public void checkAll(MultiLease lease) {
        checkAll(lease, Function.identity());
    }

    /** The guard in use (for checks on a connection of your own). */
    public JdbcFenceGuard guard() {
        return guard;
    }

    @Override
    public void check(LockOperation operation, String resource, LockLease lease) {
        check(resource, lease, lease.backend(), operation.name(), operation);
    }

    @Override
    public void checkAll(LockOperation operation, MultiLease lease, Function<String, String> resourceOfKey) {
        checkAll(lease, resourceOfKey, operation.name(), operation);
    }

    private void checkAll(MultiLease lease, Function<String, String> resourceOfKey, String name,
                          LockOperation operation) {
        inTransaction(lease.keys().toString(), operation, connection -> FenceRejections.tagged(lease.backend(), name,
                () -> guard.checkAll(connection, lease, resourceOfKey)));
    }

    private void check(String resource, LockLease lease, String backend, String name, LockOperation operation) {
        inTransaction(resource, operation, connection -> FenceRejections.tagged(backend, name,
                () -> guard.check(connection, resource, lease)));
    }

    /** Runs {@code check} on the connection of the transaction running on this thread. */
    private void inTransaction(String resource, LockOperation operation,
                               java.util.function.Consumer<Connection> check) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException(noTransaction(resource, operation,
                    "no transaction is active when it runs"));
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            if (!DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
                throw new IllegalStateException(noTransaction(resource, operation, "the running transaction is not "
                        + "on the fence guard's DataSource (another transaction manager or DataSource)"));
            }
            check.accept(connection);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    private static String noTransaction(String resource, LockOperation operation, String problem) {
        if (operation != null) {
            return "@DistributedLock(fence = \"" + operation.fenceExpression() + "\") on "
                    + operation.describeMethod() + " checks the fence of '" + resource + "' inside the method's "
                    + "transaction, but " + problem + ", so the check would protect nothing. Put @Transactional on "
                    + "the method (the lock advice is ordered outside it by default, so the lock covers the commit) "
                    + "with a transaction manager on the application's DataSource, or call it inside such a "
                    + "transaction.";
        }
        return "Fences.check for resource '" + resource + "' runs inside the current transaction, but " + problem
                + ", so the check would protect nothing. Call it inside @Transactional (or a TransactionTemplate) "
                + "on the fence guard's DataSource, first in the transaction.";
    }
}
