package dev.mortise.lock.jdbc;

import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The whole contract on a real MariaDB server, through the MySQL dialect (detected from the metadata). */
class MariaDbContractTest extends JdbcContractTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    @Override
    protected int wirePort() {
        return TestDatabases.mariadbServer().port();
    }

    @Override
    protected LockBackend newBackendAt(int port) {
        return backendOnPool("jdbc:mariadb://127.0.0.1:" + port + "/mortise", TestDatabases.mariadbServer().user());
    }

    @Override
    protected String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) throws SQLException {
        return JdbcLockBackend.builder(TestDatabases.unreachableMariaDb(operationTimeout)).dialect(JdbcDialect.MYSQL).operationTimeout(operationTimeout).build();
    }

    @Test
    void dialectIsDetectedFromTheMetadata() throws Exception {
        try (JdbcLockBackend backend = JdbcLockBackend.builder(dataSource()).build()) {
            assertThat(backend.dialect()).isEqualTo(JdbcDialect.MYSQL);
        }
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy to {@link #wirePort()}, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(MariaDbContractTest.this);
        }
    }
}
