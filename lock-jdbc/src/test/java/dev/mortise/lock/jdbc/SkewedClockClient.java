package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockClient;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

import java.time.Duration;

/**
 * The other process of {@link SkewedClockJvmTest}, started under {@code faketime} so its
 * wall clock is far off: prints {@code NOW <epoch millis>} as it sees it, then tries the
 * key once and prints {@code BUSY} or {@code FREE}.
 */
public final class SkewedClockClient {

    private SkewedClockClient() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String key = args[2];
        System.out.println("NOW " + System.currentTimeMillis());
        // The drivers' own unpooled data sources: HikariCP does not start under a faked wall clock.
        DataSource dataSource = dataSource(url, user);
        try (LockClient locks = LockClient.builder(JdbcLockBackend.builder(dataSource).build())
                     .defaultLease(Duration.ofSeconds(30)).build()) {
            System.out.println(locks.tryAcquire(key).map(lease -> {
                lease.close();
                return "FREE";
            }).orElse("BUSY"));
        }
        System.out.flush();
        System.exit(0);
    }

    private static DataSource dataSource(String url, String user) throws Exception {
        if (url.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource postgres = new PGSimpleDataSource();
            postgres.setUrl(url);
            postgres.setUser(user);
            return postgres;
        }
        MariaDbDataSource mariadb = new MariaDbDataSource(url);
        mariadb.setUser(user);
        return mariadb;
    }
}
