package dev.mortise.lock.fencing;

import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 29 item 1: {@link JdbcFenceGuard.Builder#prepareLazily(boolean)} builds a guard while
 * its database is down (nothing is asked of it), and the first check reads the dialect and
 * creates the table. A real PostgreSQL, not started when the guard is built.
 */
class LazyFenceGuardTest {

    private final PostgresServer server = new PostgresServer();

    @AfterEach
    void stop() {
        server.close();
    }

    private PGSimpleDataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(server.jdbcUrl());
        dataSource.setUser(server.user());
        dataSource.setConnectTimeout(1);
        return dataSource;
    }

    @Test
    void buildsWhileTheDatabaseIsDownAndPreparesAtTheFirstCheck() throws Exception {
        PGSimpleDataSource dataSource = dataSource();
        assertThatThrownBy(() -> JdbcFenceGuard.builder(dataSource).createTableIfMissing(true).build())
                .as("the eager build needs the database").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mortise_fences");

        JdbcFenceGuard guard = JdbcFenceGuard.builder(dataSource).tableName("lazy_fences")
                .createTableIfMissing(true).prepareLazily(true).build();
        assertThat(guard.dialect()).as("not read yet").isNull();

        server.start();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, "ledger:λ-7", 41);
            connection.commit();
            assertThat(guard.dialect()).isEqualTo(FenceDialect.POSTGRESQL);
            assertThatThrownBy(() -> guard.check(connection, "ledger:λ-7", 40))
                    .isInstanceOf(StaleFencingTokenException.class);
            connection.rollback();
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT token FROM lazy_fences")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getLong(1)).isEqualTo(41);
            }
        }
    }

    @Test
    void aTableThatCannotBeCreatedIsRefusedNamingTheTableTheDatabaseAndTheFixThenTriedAgain() throws Exception {
        server.start();
        PGSimpleDataSource dataSource = dataSource();
        try (Connection admin = dataSource.getConnection(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE fence_reader LOGIN");
            statement.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        }
        PGSimpleDataSource reader = dataSource();
        reader.setUser("fence_reader");
        JdbcFenceGuard guard = JdbcFenceGuard.builder(reader).dialect(FenceDialect.POSTGRESQL)
                .createTableIfMissing(true).prepareLazily(true).build();
        try (Connection connection = reader.getConnection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> guard.check(connection, "ledger:1", 1))
                    .isInstanceOf(FenceCheckException.class)
                    .hasMessageContaining("Could not create fence table mortise_fences")
                    .hasMessageContaining(server.jdbcUrl().substring("jdbc:".length()))
                    .hasMessageContaining("fences-postgresql.sql")
                    .hasMessageContaining("tried again at the next check");
            connection.rollback();

            try (Connection admin = dataSource.getConnection(); Statement statement = admin.createStatement()) {
                statement.execute("GRANT CREATE ON SCHEMA public TO fence_reader");
            }
            guard.check(connection, "ledger:1", 1);
            connection.commit();
            connection.setAutoCommit(true);
        }
    }
}
