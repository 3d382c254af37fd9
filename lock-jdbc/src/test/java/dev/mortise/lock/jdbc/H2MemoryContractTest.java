package dev.mortise.lock.jdbc;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.FreePorts;
import org.h2.jdbcx.JdbcDataSource;

import javax.sql.DataSource;
import java.time.Duration;

/** The whole contract on H2 in memory, every backend on one named in-memory database. */
class H2MemoryContractTest extends JdbcContractTest {

    private static final JdbcDataSource DATA_SOURCE = h2("jdbc:h2:mem:contract;DB_CLOSE_DELAY=-1");

    static JdbcDataSource h2(String url) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        dataSource.setUser("sa");
        return dataSource;
    }

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    @Override
    protected String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        // An H2 TCP URL at a port nobody listens on: the connection is refused.
        JdbcDataSource closed = h2("jdbc:h2:tcp://127.0.0.1:" + FreePorts.next() + "/mem:nowhere");
        return JdbcLockBackend.builder(closed).dialect(JdbcDialect.H2).operationTimeout(operationTimeout).build();
    }
}
