package dev.mortise.lock.jdbc;

import dev.mortise.lock.spi.LockBackend;

import javax.sql.DataSource;
import java.time.Duration;

/** The whole contract on a real PostgreSQL server, waiters woken by LISTEN/NOTIFY. */
class PostgresContractTest extends JdbcContractTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    protected int wirePort() {
        return TestDatabases.postgresServer().port();
    }

    @Override
    protected LockBackend newBackendAt(int port) {
        return backendOnPool("jdbc:postgresql://127.0.0.1:" + port + "/postgres", TestDatabases.postgresServer().user());
    }

    @Override
    protected String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return JdbcLockBackend.builder(TestDatabases.unreachablePostgres(operationTimeout)).dialect(JdbcDialect.POSTGRESQL).operationTimeout(operationTimeout).build();
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy to {@link #wirePort()}, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(PostgresContractTest.this);
        }
    }
}
