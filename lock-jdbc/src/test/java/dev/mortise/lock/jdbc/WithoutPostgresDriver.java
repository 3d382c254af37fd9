package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;

import java.time.Duration;

/**
 * Run by {@link OptionalDriverTest} in a JVM whose class path lacks the PostgreSQL driver:
 * the backend must work on H2 without ever touching {@code org.postgresql}.
 */
public final class WithoutPostgresDriver {

    private WithoutPostgresDriver() {
    }

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("org.postgresql.PGConnection");
            System.out.println("DRIVER PRESENT");
        } catch (ClassNotFoundException expected) {
            System.out.println("DRIVER ABSENT");
        }
        JdbcLockBackend backend = JdbcLockBackend.builder(H2MemoryContractTest.h2("jdbc:h2:mem:nodriver;DB_CLOSE_DELAY=-1"))
                .createTableIfMissing(true).build();
        try (LockClient locks = LockClient.builder(backend).build();
             LockLease lease = locks.acquire("no-driver", Duration.ofSeconds(5))) {
            System.out.println("LOCKED " + lease.fencingToken() + " " + locks.guarantees().wakeup());
        }
        System.out.flush();
        System.exit(0);
    }
}
