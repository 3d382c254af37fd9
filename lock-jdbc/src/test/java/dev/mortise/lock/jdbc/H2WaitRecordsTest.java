package dev.mortise.lock.jdbc;

import dev.mortise.lock.tck.server.FreePorts;

import javax.sql.DataSource;
import java.time.Duration;

class H2WaitRecordsTest extends JdbcWaitRecordsTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:waitrecords;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    @Override
    protected JdbcDialect dialect() {
        return JdbcDialect.H2;
    }

    @Override
    protected String aSecondAgo() {
        return "DATEADD(SECOND, -1, CURRENT_TIMESTAMP)";
    }

    @Override
    protected DataSource unreachable(Duration timeout) {
        return H2MemoryContractTest.h2("jdbc:h2:tcp://127.0.0.1:" + FreePorts.next() + "/mem:nowhere");
    }

    @Override
    protected int statementsPerWrite() {
        return 2;
    }
}
