package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import dev.mortise.lock.tck.server.ServerProcess;

import javax.sql.DataSource;

/**
 * One PostgreSQL and one MariaDB per test JVM, started on first use and shared by every
 * test class (the machine is small), each with one pool; both are killed and their
 * directories removed when the JVM exits.
 */
final class TestDatabases {

    private static PostgresServer postgres;
    private static MariaDbServer mariadb;
    private static HikariDataSource postgresPool;
    private static HikariDataSource mariadbPool;

    private TestDatabases() {
    }

    static synchronized PostgresServer postgresServer() {
        if (postgres == null) {
            postgres = closeAtExit(new PostgresServer());
            postgres.start();
        }
        return postgres;
    }

    static synchronized MariaDbServer mariadbServer() {
        if (mariadb == null) {
            mariadb = closeAtExit(new MariaDbServer());
            mariadb.start();
        }
        return mariadb;
    }

    static synchronized DataSource postgres() {
        if (postgresPool == null) {
            PostgresServer server = postgresServer();
            postgresPool = pool("pg", server.jdbcUrl(), server.user(), 40);
        }
        return postgresPool;
    }

    static synchronized DataSource mariadb() {
        if (mariadbPool == null) {
            MariaDbServer server = mariadbServer();
            mariadbPool = pool("mariadb", server.jdbcUrl(), server.user(), 40);
        }
        return mariadbPool;
    }

    /** A PostgreSQL data source at a port nobody listens on: connections are refused. */
    static javax.sql.DataSource unreachablePostgres(java.time.Duration operationTimeout) {
        org.postgresql.ds.PGSimpleDataSource closed = new org.postgresql.ds.PGSimpleDataSource();
        closed.setURL("jdbc:postgresql://127.0.0.1:" + dev.mortise.lock.tck.server.FreePorts.next() + "/postgres");
        closed.setUser("postgres");
        closed.setConnectTimeout((int) Math.max(1, operationTimeout.toSeconds()));
        return closed;
    }

    /** A MariaDB data source at a port nobody listens on: connections are refused. */
    static javax.sql.DataSource unreachableMariaDb(java.time.Duration operationTimeout) throws java.sql.SQLException {
        return new org.mariadb.jdbc.MariaDbDataSource("jdbc:mariadb://127.0.0.1:" + dev.mortise.lock.tck.server.FreePorts.next()
                + "/mortise?user=root&connectTimeout=" + operationTimeout.toMillis());
    }

    /** A pool that gives up waiting for a connection after {@code connectionTimeoutMillis}. */
    static HikariDataSource pool(String name, String url, String user, int size, long connectionTimeoutMillis) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("test-" + name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectionTimeoutMillis);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    static HikariDataSource pool(String name, String url, String user, int size) {
        return pool(name, url, user, size, 5000);
    }

    private static <S extends ServerProcess> S closeAtExit(S server) {
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "close-" + server));
        return server;
    }
}
