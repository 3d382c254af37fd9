package dev.mortise.lock.integration;

import dev.mortise.lock.LockClient;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

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
 *       {@link #expireUnusedOlderThan} drops it. A dropped lock still works: used again, it becomes
 *       the key's lock once more (or, if {@code obtain} made a new one meanwhile, acts on that one),
 *       so a thread that obtained a lock before an expiry and locks it after holds the registry's
 *       lock, which {@code obtain}, {@code renewLock} and {@code unlock} find.</li>
 *   <li>Ownership is the calling thread's, within this registry (reentrant): each registry is an
 *       owner namespace of its own ({@link dev.mortise.lock.LockSpec#owner}), so two registries
 *       over one client exclude each other even on one thread, as two Spring Integration
 *       registries do, and a registry's hold is not re-entered through the client's own API.</li>
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
    /** The live lock of each key: a lock is live exactly while it is the value here. */
    private final ConcurrentMap<String, MortiseLock> locks = new ConcurrentHashMap<>();
    /**
     * This registry's owner namespace: owner ids are this prefix and a counter. Random, so that no
     * other code on the client can name one of them and nest in this registry's holds.
     */
    private final String ownerPrefix = "lock-registry-" + UUID.randomUUID() + "/";
    private final AtomicLong owners = new AtomicLong();

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
        return locks.computeIfAbsent(key, k -> new MortiseLock(this, client, k));
    }

    /**
     * Drops the cached locks of keys that no thread holds or is locking through this registry and
     * that were last locked or unlocked more than {@code age} milliseconds ago. Only the local
     * objects go: the server holds nothing for an unheld key. A later {@link #obtain} makes a fresh
     * one; a dropped lock still in someone's hands comes back when used (see {@link #obtain}).
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = System.currentTimeMillis() - age;
        for (String key : locks.keySet()) {
            // Retired under the map's lock of the entry, so that no live() can revive it half-way.
            locks.computeIfPresent(key, (k, lock) -> lock.retireIfUnused(before) ? null : lock);
        }
    }

    /**
     * The live lock of {@code retired}'s key: the one in the map, or {@code retired} itself, made
     * live again, if the key has none.
     */
    MortiseLock live(MortiseLock retired) {
        return locks.compute(retired.key(), (k, current) -> {
            if (current != null) {
                return current;
            }
            retired.revive();
            return retired;
        });
    }

    /** A new owner id in this registry's namespace, for a thread that starts holding a key. */
    String newOwner() {
        return ownerPrefix + owners.incrementAndGet();
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
