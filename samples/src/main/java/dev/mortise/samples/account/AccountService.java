package dev.mortise.samples.account;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.FencingToken;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;

/**
 * Withdrawals, deposits and transfers. Each is a read-modify-write of a balance, so two
 * instances doing it at once on one account would lose one of the updates: each takes the
 * account's distributed lock ({@code account:<id>}) and writes with the lock's fencing token.
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

    public AccountService(AccountStore store, LockClient locks, TransactionTemplate transactions) {
        this.store = store;
        this.locks = locks;
        this.transactions = transactions;
    }

    /**
     * Takes {@code amount} from the account. Callers pass any value for {@code token}: the
     * aspect injects the lock's fencing token.
     *
     * @return the account after the withdrawal
     */
    @DistributedLock(key = "'account:' + #accountId", name = "account", waitFor = "${sample.accounts.lock-wait:5s}")
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
    @DistributedLock(key = "'account:' + #accountId", name = "account", waitFor = "${sample.accounts.lock-wait:5s}")
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

    private Account write(String accountId, long newBalance, long token) {
        if (!store.writeFenced(accountId, newBalance, token)) {
            throw AccountException.staleToken(accountId, token);
        }
        return new Account(accountId, newBalance, token);
    }

    private static void requirePositive(long amount) {
        if (amount <= 0) {
            throw new AccountException(HttpStatus.BAD_REQUEST, "The amount must be positive, was " + amount + ".");
        }
    }
}
