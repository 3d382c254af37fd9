package dev.mortise.samples.account;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.FencingToken;
import dev.mortise.lock.spring.fencing.Fences;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;

/**
 * Withdrawals, deposits and transfers. Each is a read-modify-write of a balance, so two
 * instances doing it at once on one account would lose one of the updates: each takes the
 * account's distributed lock ({@code account:<id>}), and the database refuses the writes of a
 * holder whose lock ran out: lock-fencing's fence guard checks the lease's fencing token as the
 * first statement of the transaction ({@code fence = ...} on the annotation, {@link Fences} in
 * the transfer) and a stale holder's transaction rolls back with
 * {@code StaleFencingTokenException}.
 *
 * <p>Withdrawals and deposits use {@code @DistributedLock}; the lock is taken before the
 * transaction begins and released after it commits. A transfer needs two locks, which one
 * annotation cannot express, so it uses the {@link LockClient} API, in id order so that two
 * opposite transfers cannot deadlock.
 */
@Service
public class AccountService {

    /** Prefix of the lock key of an account; the demonstration and the HTTP lock API share it. */
    public static final String LOCK_PREFIX = "account:";

    private final AccountStore store;
    private final LockClient locks;
    private final TransactionTemplate transactions;
    private final Fences fences;

    public AccountService(AccountStore store, LockClient locks, TransactionTemplate transactions, Fences fences) {
        this.store = store;
        this.locks = locks;
        this.transactions = transactions;
        this.fences = fences;
    }

    /**
     * Takes {@code amount} from the account. Callers pass any value for {@code token}: the
     * aspect injects the lock's fencing token.
     *
     * @return the account after the withdrawal
     */
    @DistributedLock(key = "'account:' + #accountId", name = "account", fence = "'account:' + #accountId",
            waitFor = "${sample.accounts.lock-wait:5s}")
    @Transactional
    public Account withdraw(String accountId, long amount, @FencingToken long token) {
        requirePositive(amount);
        Account account = store.find(accountId).orElseThrow(() -> AccountException.notFound(accountId));
        if (account.balance() < amount) {
            throw AccountException.insufficientFunds(accountId, account.balance(), amount);
        }
        return write(accountId, account.balance() - amount, token);
    }

    /** Adds {@code amount} to the account; {@code token} as for {@link #withdraw}. */
    @DistributedLock(key = "'account:' + #accountId", name = "account", fence = "'account:' + #accountId",
            waitFor = "${sample.accounts.lock-wait:5s}")
    @Transactional
    public Account deposit(String accountId, long amount, @FencingToken long token) {
        requirePositive(amount);
        Account account = store.find(accountId).orElseThrow(() -> AccountException.notFound(accountId));
        return write(accountId, Math.addExact(account.balance(), amount), token);
    }

    /** Moves {@code amount} between two accounts, atomically, under both accounts' locks. */
    public void transfer(String from, String to, long amount, Duration wait) {
        requirePositive(amount);
        if (from.equals(to)) {
            throw new AccountException(HttpStatus.BAD_REQUEST, "A transfer needs two different accounts, got '"
                    + from + "' twice.");
        }
        boolean fromFirst = from.compareTo(to) < 0;
        try (LockLease first = locks.acquire(LockSpec.of(LOCK_PREFIX + (fromFirst ? from : to)).waitFor(wait));
             LockLease second = locks.acquire(LockSpec.of(LOCK_PREFIX + (fromFirst ? to : from)).waitFor(wait))) {
            long fromToken = (fromFirst ? first : second).fencingToken();
            long toToken = (fromFirst ? second : first).fencingToken();
            transactions.executeWithoutResult(status -> {
                // The fences first, in lock order, before the reads: each takes its fence row's lock.
                fences.check(LOCK_PREFIX + (fromFirst ? from : to), first);
                fences.check(LOCK_PREFIX + (fromFirst ? to : from), second);
                Account source = store.find(from).orElseThrow(() -> AccountException.notFound(from));
                Account target = store.find(to).orElseThrow(() -> AccountException.notFound(to));
                if (source.balance() < amount) {
                    throw AccountException.insufficientFunds(from, source.balance(), amount);
                }
                write(from, source.balance() - amount, fromToken);
                write(to, Math.addExact(target.balance(), amount), toToken);
                // Both leases must still be ours at commit; a paused instance must not commit.
                first.ensureValid();
                second.ensureValid();
            });
        }
    }

    /** The fence of the account was checked first in this transaction. */
    private Account write(String accountId, long newBalance, long token) {
        store.write(accountId, newBalance, token);
        return new Account(accountId, newBalance, token);
    }

    private static void requirePositive(long amount) {
        if (amount <= 0) {
            throw new AccountException(HttpStatus.BAD_REQUEST, "The amount must be positive, was " + amount + ".");
        }
    }
}
