package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import io.lettuce.core.RedisClient;

import java.time.Duration;

/**
 * Run by {@link OptionalRedissonTest} in a JVM whose class path lacks Redisson: args are the
 * addresses of three Redis servers (the first for the single-server backend, all three for
 * Redlock). Prints what happened, one line per step.
 */
public final class WithoutRedisson {

    private WithoutRedisson() {
    }

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("org.redisson.api.RedissonClient");
            System.out.println("REDISSON PRESENT");
        } catch (ClassNotFoundException expected) {
            System.out.println("REDISSON ABSENT");
        }
        try (LockClient locks = LockClient.builder(RedisLockBackend.builder().driver(RedisDriver.LETTUCE)
                .address(args[0]).build()).build();
             LockLease lease = locks.acquire("no-redisson", Duration.ofSeconds(5))) {
            System.out.println("OWN LOCKED " + lease.fencingToken());
        }
        RedisClient client = RedisClient.create(args[0]);
        try (LockClient locks = LockClient.builder(RedisLockBackend.builder().lettuce(client).build()).build();
             LockLease lease = locks.acquire("no-redisson", Duration.ofSeconds(5))) {
            System.out.println("SUPPLIED LOCKED " + lease.fencingToken());
        } finally {
            client.shutdown();
        }
        try (LockClient locks = LockClient.builder(RedlockBackend.builder().driver(RedisDriver.LETTUCE)
                .nodes(args).build()).build();
             LockLease lease = locks.acquire("no-redisson", Duration.ofSeconds(5))) {
            System.out.println("REDLOCK LOCKED " + lease.fencingToken());
        }
        try {
            RedisLockBackend.builder().address(args[0]).build().close();
            System.out.println("DEFAULT DRIVER BUILT");
        } catch (IllegalStateException e) {
            System.out.println("DEFAULT DRIVER REFUSED: " + e.getMessage());
        }
        try {
            RedlockBackend.builder().nodes(args).build().close();
            System.out.println("REDLOCK DEFAULT DRIVER BUILT");
        } catch (IllegalStateException e) {
            System.out.println("REDLOCK DEFAULT DRIVER REFUSED: " + e.getMessage());
        }
        System.out.flush();
        System.exit(0);
    }
}
