package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;

/**
 * PostgreSQL down at start-up, then started on its port; the lock table is created by
 * {@code create-table} once the database is there.
 */
class PostgresUnreachableServerTests extends UnreachableServerTestSupport {

    private final PostgresServer server = new PostgresServer();

    @AfterEach
    void stop() {
        server.close();
    }

    @Override
    String backend() {
        return "jdbc";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.jdbc.create-table=true", "mortise.lock.jdbc.operation-timeout=1s"};
    }

    @Override
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner.withBean(DataSource.class, () -> {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(server.jdbcUrl());
            dataSource.setUser(server.user());
            dataSource.setConnectTimeout(1);
            return dataSource;
        });
    }

    @Override
    void startServer() {
        server.start();
    }
}
