package dev.mortise.lock.integration;

import dev.mortise.lock.LockClient;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry}
 * over a Mortise {@link LockClient}: what {@code RedisLockRegistry}, {@code JdbcLockRegistry}
 * or {@code ZookeeperLockRegistry} are, on any Mortise backend, with Mortise's fencing,
 * background renewal, validity and metrics.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #obtain(Object)} takes any non-null key and locks {@code keyPrefix + key.toString()}.
 *       Every {@code obtain} of one key returns the same {@link MortiseLock} until
 *       {@link #expireUnusedOlderThan} drops it; ownership is the calling thread's (reentrant).</li>
 *   <li>A lock taken with {@code lock()}/{@code tryLock(..)} holds the client's default lease and
 *       is renewed in the background until unlocked. One taken with
 *       {@link DistributedLock#lock(Duration)} or {@link DistributedLock#tryLock(Duration, Duration)}
 *       holds that explicit lease, is not renewed and simply expires.</li>
 *   <li>{@link #renewLock(Object)}: on a renewed hold it only checks that the hold is still valid
 *       (the client renews it already); on an explicit-lease hold it sets the lease to the same
 *       duration again from now. {@link #renewLock(Object, Duration)} sets the lease to the given
 *       duration from now on the server ({@link dev.mortise.lock.LockLease#extend}); a renewed
 *       hold goes on being renewed with it. Both throw {@link IllegalStateException} if the calling
 *       thread does not hold the key through this registry, and
 *       {@link dev.mortise.lock.LockLostException} if the hold is no longer ours.</li>
 *   <li>{@link #setRenewalTaskScheduler} is ignored: the client's watchdog renews.</li>
 * </ul>
 *
 * <p>The registry does not own the client: close the client yourself. Locks obtained here are
 * separate from the client's own {@link LockClient#asLock} views for unlocking purposes (unlock
 * through the registry what you locked through it), but they exclude them and every other
 * owner as usual.
 */
public class MortiseLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    private final LockClient client;
    private final String keyPrefix;
    private final ConcurrentMap<String, MortiseLock> locks = new ConcurrentHashMap<>();

    /** A registry locking keys as they are ({@code key.toString()}). */
    public MortiseLockRegistry(LockClient client) {
        this(client, "");
    }

    /**
     * A registry locking {@code keyPrefix + key.toString()}, so that the keys of one application
     * (or one registry, as Spring Integration's {@code registryKey} does) do not meet others on a
     * shared lock store.
     */
    public MortiseLockRegistry(LockClient client, String keyPrefix) {
        this.client = Objects.requireNonNull(client, "client");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix (use \"\" for none)");
    }

    /**
     * The lock of {@code key} ({@code keyPrefix + key.toString()}).
     *
     * @throws IllegalArgumentException if {@code key} is null (or its string is blank or over-long:
     *                                  the client refuses it on first use)
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        String key = key(lockKey);
        return locks.computeIfAbsent(key, k -> new MortiseLock(client, k));
    }

    /**
     * Drops the cached locks of keys that no thread holds through this registry and that were
     * last locked or unlocked more than {@code age} milliseconds ago. Only the local objects go:
     * the server holds nothing for an unheld key. A later {@link #obtain} makes a fresh one.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = System.currentTimeMillis() - age;
        locks.values().removeIf(lock -> !lock.isHeld() && lock.lastUsedMillis() < before);
    }

    @Override
    public void renewLock(Object lockKey) {
        held(lockKey).renew(null);
    }

    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        held(lockKey).renew(ttl);
    }

    /** The number of locks cached (held or not), for tests and diagnostics. */
    int cachedLocks() {
        return locks.size();
    }

    private MortiseLock held(Object lockKey) {
        String key = key(lockKey);
        MortiseLock lock = locks.get(key);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("Thread " + Thread.currentThread().getName() + " does not hold lock '"
                    + key + "' (backend '" + client.backendName() + "') through this registry: renew on the "
                    + "thread that locked, after lock() and before unlock()");
        }
        return lock;
    }

    private String key(Object lockKey) {
        if (lockKey == null) {
            throw new IllegalArgumentException("Lock key must not be null (backend '" + client.backendName()
                    + "'); pass the correlation id or another non-null object whose toString() names the lock");
        }
        return keyPrefix + lockKey;
    }

    @Override
    public String toString() {
        return "MortiseLockRegistry[" + client.backendName() + (keyPrefix.isEmpty() ? "" : ", prefix '" + keyPrefix + "'")
                + "]";
    }
}
