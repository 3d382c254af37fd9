package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

/** The fenced transactions on a real PostgreSQL (started by the lock-tck launcher). */
class PostgresFencedTransactionTests extends FencedTransactionContract {

    private static PostgresServer server;
    private static PGSimpleDataSource dataSource;

    @BeforeAll
    static void start() {
        server = new PostgresServer();
        server.start();
        dataSource = new PGSimpleDataSource();
        dataSource.setURL(server.jdbcUrl());
        dataSource.setUser(server.user());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    DataSource dataSource() {
        return dataSource;
    }
}
