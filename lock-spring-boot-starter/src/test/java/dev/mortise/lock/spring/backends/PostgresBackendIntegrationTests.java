package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;

/** The starter on the JDBC backend over a real PostgreSQL {@link DataSource}. */
class PostgresBackendIntegrationTests extends BackendIntegrationTestSupport {

    private static PostgresServer server;

    @BeforeAll
    static void start() {
        server = new PostgresServer();
        server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    String backend() {
        return "jdbc";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.jdbc.create-table=true"};
    }

    @Override
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner.withBean(DataSource.class, () -> {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(server.jdbcUrl());
            dataSource.setUser(server.user());
            return dataSource;
        });
    }
}
