package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.TableName;
import dev.mortise.lock.spi.SqlDatabase;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JdbcLockBackendBuilderTest {

    private final JdbcDataSource h2 = H2MemoryContractTest.h2("jdbc:h2:mem:builder;DB_CLOSE_DELAY=-1");

    @Test
    void everySettingIsValidated() {
        assertThatThrownBy(() -> JdbcLockBackend.builder(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource");
        JdbcLockBackendBuilder builder = JdbcLockBackend.builder(h2);
        assertThatThrownBy(() -> builder.operationTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> builder.operationTimeout(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.pushedPollInterval(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pushedPollInterval");
        assertThatThrownBy(() -> builder.keyColumnBytes(10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyColumnBytes");
        assertThatThrownBy(() -> builder.tableName("locks; DROP TABLE users")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tableName");
        assertThatThrownBy(() -> builder.dialect(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void dialectIsDetectedAndATableOfAnyValidNameIsCreated() {
        try (JdbcLockBackend backend = JdbcLockBackend.builder(h2).tableName("PUBLIC.team_locks")
                .createTableIfMissing(true).build();
             LockClient client = LockClient.builder(backend).build()) {
            assertThat(backend.dialect()).isEqualTo(JdbcDialect.H2);
            assertThat(backend.tableName()).isEqualTo("PUBLIC.team_locks");
            client.tryAcquire("builder:k").orElseThrow().close();
        }
    }

    @Test
    void dialectsAreKnownByJdbcUrl() {
        assertThat(JdbcDialect.forJdbcUrl("jdbc:postgresql://db:5432/app")).contains(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialect.forJdbcUrl("JDBC:PostgreSQL://db/app")).contains(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialect.forJdbcUrl("jdbc:mysql://db:3306/app")).contains(JdbcDialect.MYSQL);
        assertThat(JdbcDialect.forJdbcUrl("jdbc:mariadb://db/app")).contains(JdbcDialect.MYSQL);
        assertThat(JdbcDialect.forJdbcUrl("jdbc:h2:mem:app")).contains(JdbcDialect.H2);
        assertThat(JdbcDialect.forJdbcUrl("jdbc:h2:tcp://db/app")).contains(JdbcDialect.H2);
        assertThat(JdbcDialect.forJdbcUrl("jdbc:oracle:thin:@db:1521:app")).isEmpty();
        assertThat(JdbcDialect.forJdbcUrl("jdbc:p6spy:postgresql://db/app")).isEmpty();
        assertThat(JdbcDialect.forJdbcUrl(null)).isEmpty();
    }

    /**
     * Issue 15 item 11: with the dialect set, a database that is down at build() does not
     * fail it; the table is created by the first operation that reaches the database.
     */
    @Test
    void aTableThatCannotBeCreatedAtBuildIsCreatedOnceTheDatabaseIsThere() throws Exception {
        int port = dev.mortise.lock.tck.server.FreePorts.next();
        JdbcDataSource remote = H2MemoryContractTest.h2("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:deferred;DB_CLOSE_DELAY=-1");
        try (JdbcLockBackend backend = JdbcLockBackend.builder(remote).dialect(JdbcDialect.H2)
                .operationTimeout(Duration.ofSeconds(1)).createTableIfMissing(true).build();
             LockClient client = LockClient.builder(backend).build()) {
            assertThatThrownBy(() -> client.tryAcquire("builder:deferred")).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("builder:deferred");
            org.h2.tools.Server server = org.h2.tools.Server.createTcpServer("-tcpPort", Integer.toString(port),
                    "-ifNotExists").start();
            try {
                client.tryAcquire("builder:deferred").orElseThrow().close();
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void aMissingTableIsAnErrorThatNamesTheFix() {
        try (LockClient client = LockClient.builder(JdbcLockBackend.builder(h2).tableName("no_such_table").build()).build()) {
            assertThatThrownBy(() -> client.tryAcquire("builder:missing")).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("builder:missing").hasMessageContaining("no_such_table")
                    .hasMessageContaining("createTableIfMissing");
        }
    }

    @Test
    void shippedDdlIsThereForEveryDialect() {
        for (JdbcDialect dialect : JdbcDialect.values()) {
            assertThat(Schema.ddl(SqlDatabase.valueOf(dialect.name()), TableName.of("t"))).startsWith("CREATE TABLE IF NOT EXISTS t (")
                    .contains("lock_key", "lock_owner", "fencing_token", "acquired_at", "expires_at", "original_key")
                    .doesNotContain("${table}");
        }
    }

    @Test
    void dialectsAreKnownByProductName() {
        assertThat(JdbcDialect.forProductName("PostgreSQL")).contains(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialect.forProductName("MariaDB")).contains(JdbcDialect.MYSQL);
        assertThat(JdbcDialect.forProductName("MySQL")).contains(JdbcDialect.MYSQL);
        assertThat(JdbcDialect.forProductName("H2")).contains(JdbcDialect.H2);
        assertThat(JdbcDialect.forProductName("Oracle")).isEmpty();
    }
}
