package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.List;

/**
 * For transactions that begin inside a locked method (the default order: lock outside
 * {@code @Transactional}): registers a check that every lease of the running annotated
 * calls is still valid just before commit, so a lease lost mid-transaction rolls it back
 * with {@link dev.mortise.lock.LockLostException} instead of committing unprotected work.
 * Added to every {@link org.springframework.transaction.ConfigurableTransactionManager}.
 */
public final class LeaseCommitGuard implements TransactionExecutionListener {

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure != null || !transaction.isNewTransaction()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        List<LockLease> leases = ActiveLocks.leases();
        if (leases.isEmpty()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                for (LockLease lease : leases) {
                    lease.ensureValid();
                }
            }
        });
    }
}
