package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Binds leases acquired inside a running Spring transaction to it, so the lock covers the
 * commit: {@link LockLease#ensureValid()} before commit (a lost lease rolls the
 * transaction back with {@link dev.mortise.lock.LockLostException}), release after
 * completion.
 */
public final class SpringTransactionBinding implements TransactionBinding {

    private static final Logger log = LoggerFactory.getLogger(SpringTransactionBinding.class);

    @Override
    public boolean bind(LockLease lease, Runnable release) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                || !TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                lease.ensureValid();
            }

            @Override
            public void afterCompletion(int status) {
                try {
                    release.run();
                } catch (RuntimeException e) {
                    // afterCompletion cannot fail the transaction any more; the loss is reported.
                    log.warn("Releasing lock '{}' after its transaction completed failed", lease.key(), e);
                }
            }
        });
        return true;
    }
}
