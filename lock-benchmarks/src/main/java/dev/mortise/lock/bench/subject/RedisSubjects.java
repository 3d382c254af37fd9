package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.redis.BareExclusiveScripts;
import dev.mortise.lock.redis.RedisDriver;
import dev.mortise.lock.redis.RedisLockBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.redisnode.RedisSingle;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The Redis subjects: Mortise (over Redisson, over Lettuce, fair), Redisson {@code RLock} and {@code RFencedLock}, Spring
 * Integration's {@code RedisLockRegistry} (spin and pub/sub), ShedLock's Redis provider, and
 * the floors (Mortise's own two scripts sent bare through Redisson and through Lettuce, and a PING). Every
 * library runs with its defaults except where noted; leases are 30 s, renewed by a watchdog
 * where the library has one.
 */
public final class RedisSubjects {

    /** Ids in report order. */
    public static final List<String> IDS = List.of("redis/mortise", "redis/mortise-lettuce", "redis/mortise-fair", "redis/mortise-fair-lettuce",
            "redis/redisson-rlock", "redis/redisson-fenced", "redis/si-spin", "redis/si-pubsub", "redis/shedlock",
            "redis/floor-evalsha", "redis/floor-evalsha-lettuce", "redis/floor-ping");

    /** Peers of the read-write scenario (not in {@link #IDS}: they do the same as RLock there). */
    public static final List<String> READ_WRITE_IDS = List.of("redis/mortise", "redis/redisson-rwlock");

    /** Peers of the multi-key scenario. */
    public static final List<String> MULTI_KEY_IDS = List.of("redis/mortise", "redis/redisson-multilock");

    private static final Duration LEASE = Duration.ofSeconds(30);

    private RedisSubjects() {
    }

    public static LockSubject create(String id, String address) {
        return switch (id) {
            case "redis/mortise" -> MortiseSubjects.over(id, RedisLockBackend.builder().address(address).build());
            // The same backend over Lettuce: one multiplexed connection instead of Redisson's pool.
            case "redis/mortise-lettuce" -> MortiseSubjects.over(id, "Mortise (Lettuce)",
                    RedisLockBackend.builder().address(address).driver(RedisDriver.LETTUCE).build());
            // Fair mode queues waiters on the server and hands the lock over inside the release script.
            case "redis/mortise-fair" -> MortiseSubjects.over(id, "Mortise (fair mode)",
                    RedisLockBackend.builder().address(address).fair(true).build());
            case "redis/mortise-fair-lettuce" -> MortiseSubjects.over(id, "Mortise (Lettuce, fair mode)",
                    RedisLockBackend.builder().address(address).driver(RedisDriver.LETTUCE).fair(true).build());
            case "redis/redisson-rlock" -> redisson(id, "Redisson RLock", address, false);
            case "redis/redisson-fenced" -> redisson(id, "Redisson RFencedLock", address, true);
            case "redis/redisson-rwlock" -> redissonReadWrite(id, address);
            case "redis/redisson-multilock" -> redissonMulti(id, address);
            case "redis/si-spin" -> registry(id, "Spring Integration RedisLockRegistry (SPIN)", address,
                    RedisLockRegistry.RedisLockType.SPIN_LOCK);
            case "redis/si-pubsub" -> registry(id, "Spring Integration RedisLockRegistry (PUB_SUB)", address,
                    RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
            case "redis/shedlock" -> shedlock(id, address);
            case "redis/floor-evalsha" -> evalShaFloor(id, address);
            case "redis/floor-evalsha-lettuce" -> evalShaLettuceFloor(id, address);
            case "redis/floor-ping" -> pingFloor(id, address);
            default -> throw new IllegalArgumentException("unknown subject " + id);
        };
    }

    /** A Redisson client with its defaults on one server. */
    public static RedissonClient redisson(String address) {
        Config config = new Config();
        config.useSingleServer().setAddress(address);
        return Redisson.create(config);
    }

    private static LockSubject redisson(String id, String label, String address, boolean fenced) {
        RedissonClient client = redisson(address);
        return SimpleSubject.of(id, label, Role.PEER, true, (key, wait) -> {
            if (fenced) {
                RFencedLock lock = client.getFencedLock(key);
                Long token = lock.tryLockAndGetToken(wait.toMillis(), TimeUnit.MILLISECONDS);
                return token == null ? null : lock::unlock;
            }
            RLock lock = client.getLock(key);
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
        }, client::shutdown);
    }

    /** Redisson's {@code RReadWriteLock}: read lock for shared, write lock for exclusive, watchdog lease. */
    private static LockSubject redissonReadWrite(String id, String address) {
        RedissonClient client = redisson(address);
        return SimpleSubject.of(id, "Redisson RReadWriteLock", Role.PEER, true, (key, wait) -> {
            RLock lock = client.getReadWriteLock(key).writeLock();
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
        }, client::shutdown).withModes((key, shared, wait) -> {
            RReadWriteLock rw = client.getReadWriteLock(key);
            RLock lock = shared ? rw.readLock() : rw.writeLock();
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
        });
    }

    /**
     * Redisson's multi-lock ({@code RedissonMultiLock}, made by {@code getMultiLock(RLock...)}) over one
     * {@code RLock} per key, watchdog lease; the keys come sorted, as for every subject.
     */
    private static LockSubject redissonMulti(String id, String address) {
        RedissonClient client = redisson(address);
        return SimpleSubject.of(id, "RedissonMultiLock", Role.PEER, true, (key, wait) -> {
            RLock lock = client.getLock(key);
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
        }, client::shutdown).withMulti((keys, wait) -> {
            RLock lock = client.getMultiLock(keys.stream().map(client::getLock).toArray(RLock[]::new));
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
        });
    }

    static LettuceConnectionFactory lettuce(String address) {
        URI uri = URI.create(address);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    private static LockSubject registry(String id, String label, String address, RedisLockRegistry.RedisLockType type) {
        LettuceConnectionFactory factory = lettuce(address);
        RedisLockRegistry registry = new RedisLockRegistry(factory, id.replace('/', '-'), LEASE);
        registry.setRedisLockType(type);
        return SimpleSubject.of(id, label, Role.PEER, true, (key, wait) -> {
            Lock lock = registry.obtain(key);
            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
        }, factory::destroy, registry::destroy);
    }

    private static LockSubject shedlock(String id, String address) {
        LettuceConnectionFactory factory = lettuce(address);
        RedisLockProvider provider = new RedisLockProvider(factory, "bench");
        // ShedLock never waits: a busy lock is skipped, so it takes part in uncontended runs only.
        return SimpleSubject.of(id, "ShedLock RedisLockProvider", Role.PEER, false, (key, wait) -> {
            Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), key, LEASE, Duration.ZERO));
            return lock.<Held>map(l -> l::unlock).orElse(null);
        }, factory::destroy);
    }

    /**
     * Mortise's acquire and release scripts, sent bare with EVALSHA through a Redisson client, with the
     * keys and arguments the backend sends ({@link BareExclusiveScripts}, from lock-redis's test jar).
     */
    private static LockSubject evalShaFloor(String id, String address) {
        RedissonClient client = redisson(address);
        RScript script = client.getScript(StringCodec.INSTANCE);
        String acquire = script.scriptLoad(BareExclusiveScripts.acquire("floor", "k", "o", LEASE).source());
        String release = script.scriptLoad(BareExclusiveScripts.release("floor", "k", "o").source());
        return SimpleSubject.of(id, "floor: 2 × EVALSHA", Role.FLOOR, false, (key, wait) -> {
            String owner = Thread.currentThread().getName();
            BareExclusiveScripts.Call take = BareExclusiveScripts.acquire("floor", key, owner, LEASE);
            script.evalSha(take.keys().get(0), RScript.Mode.READ_WRITE, acquire, RScript.ReturnType.LIST,
                    List.copyOf(take.keys()), take.args().toArray());
            BareExclusiveScripts.Call give = BareExclusiveScripts.release("floor", key, owner);
            return () -> script.evalSha(give.keys().get(0), RScript.Mode.READ_WRITE, release, RScript.ReturnType.LONG,
                    List.copyOf(give.keys()), give.args().toArray());
        }, client::shutdown);
    }

    /**
     * Mortise's acquire and release scripts, sent bare with EVALSHA over one shared Lettuce connection
     * (the floor of {@code redis/mortise-lettuce}), with the keys and arguments the backend sends
     * ({@link BareExclusiveScripts}).
     */
    private static LockSubject evalShaLettuceFloor(String id, String address) {
        RedisClient client = RedisClient.create(address);
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> redis = connection.sync();
        String acquire = redis.scriptLoad(BareExclusiveScripts.acquire("floor", "k", "o", LEASE).source());
        String release = redis.scriptLoad(BareExclusiveScripts.release("floor", "k", "o").source());
        return SimpleSubject.of(id, "floor: 2 × EVALSHA (Lettuce)", Role.FLOOR, false, (key, wait) -> {
            String owner = Thread.currentThread().getName();
            BareExclusiveScripts.Call take = BareExclusiveScripts.acquire("floor", key, owner, LEASE);
            redis.evalsha(acquire, ScriptOutputType.MULTI, take.keys().toArray(String[]::new),
                    take.args().toArray(String[]::new));
            BareExclusiveScripts.Call give = BareExclusiveScripts.release("floor", key, owner);
            return () -> redis.evalsha(release, ScriptOutputType.INTEGER, give.keys().toArray(String[]::new),
                    give.args().toArray(String[]::new));
        }, connection::close, client::shutdown);
    }

    private static LockSubject pingFloor(String id, String address) {
        RedissonClient client = redisson(address);
        RedisSingle nodes = client.getRedisNodes(RedisNodes.SINGLE);
        return SimpleSubject.of(id, "floor: 1 × PING", Role.FLOOR, false, (key, wait) -> {
            nodes.getInstance().ping();
            return () -> { };
        }, client::shutdown);
    }
}
