package dev.mortise.lock.fencing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.ServerProcess;

import javax.sql.DataSource;

/**
 * One real PostgreSQL and one real MariaDB per test JVM (lock-tck launchers), started on
 * first use, plus an in-memory H2; each with one pool. The servers are killed and their
 * directories removed when the JVM exits.
 */
final class FenceDatabases {

    private static HikariDataSource postgres;
    private static HikariDataSource mariadb;
    private static HikariDataSource h2;

    private FenceDatabases() {
    }

    static synchronized DataSource postgres() {
        if (postgres == null) {
            PostgresServer server = closeAtExit(new PostgresServer());
            server.start();
            postgres = pool("pg", server.jdbcUrl(), server.user());
        }
        return postgres;
    }

    static synchronized DataSource mariadb() {
        if (mariadb == null) {
            MariaDbServer server = closeAtExit(new MariaDbServer());
            server.start();
            mariadb = pool("mariadb", server.jdbcUrl(), server.user());
        }
        return mariadb;
    }

    static synchronized DataSource h2() {
        if (h2 == null) {
            h2 = pool("h2", "jdbc:h2:mem:fencing;DB_CLOSE_DELAY=-1", "sa");
        }
        return h2;
    }

    private static HikariDataSource pool(String name, String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("fence-" + name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(16);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    private static <S extends ServerProcess> S closeAtExit(S server) {
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "close-" + server));
        return server;
    }
}
