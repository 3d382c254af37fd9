package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;

import java.time.Duration;

/**
 * The other process of {@link H2FileTwoJvmTest}: opens the same H2 file with
 * {@code AUTO_SERVER=TRUE} (so it talks to the first JVM's embedded server) and either
 * probes a key ({@code probe}: prints {@code BUSY} or {@code FREE}) or runs rounds of
 * locked read-increment-write on a shared counter ({@code rounds}: prints each token).
 * In {@code serve} mode it opens the file first, so that it is the one serving it, prints
 * {@code READY} and keeps the database open until its standard input closes
 * ({@link H2FileContractTest}).
 */
public final class SecondJvm {

    private SecondJvm() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String mode = args[1];
        String key = args[2];
        try (HikariDataSource pool = TestDatabases.pool("second-jvm", url, "sa", 4);
             LockClient locks = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true)
                     // the plain counter: the test counts grants by the gaps between tokens
                     .fencingTokens(FencingTokens.COUNTER).build())
                     .defaultLease(Duration.ofSeconds(2)).build()) {
            if (mode.equals("serve")) {
                locks.ping();
                System.out.println("READY");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // serve until the test closes our standard input
                }
            } else if (mode.equals("probe")) {
                System.out.println(locks.tryAcquire(key).map(lease -> {
                    lease.close();
                    return "FREE";
                }).orElse("BUSY"));
            } else {
                int rounds = Integer.parseInt(args[3]);
                locks.ping();
                // the lock path and the counter's read run once, so the rounds start at speed and really contend
                try (LockLease warm = locks.acquire(key + ":warm", Duration.ofSeconds(60))) {
                    H2FileTwoJvmTest.counter(pool);
                }
                System.out.println("READY");
                System.out.flush();
                for (int i = 0; i < rounds; i++) {
                    try (LockLease lease = locks.acquire(key, Duration.ofSeconds(60))) {
                        H2FileTwoJvmTest.incrementSlowly(pool);
                        System.out.println("TOKEN " + lease.fencingToken());
                    }
                    Thread.sleep(20);
                }
            }
        }
        System.out.println("DONE");
        System.out.flush();
        System.exit(0);
    }
}
