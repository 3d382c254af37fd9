package dev.mortise.lock.jdbc;

import dev.mortise.lock.tck.server.FreePorts;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.time.Duration;

class PostgresWaitRecordsTest extends JdbcWaitRecordsTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    protected JdbcDialect dialect() {
        return JdbcDialect.POSTGRESQL;
    }

    @Override
    protected String aSecondAgo() {
        return "CURRENT_TIMESTAMP - INTERVAL '1 second'";
    }

    @Override
    protected DataSource unreachable(Duration timeout) {
        PGSimpleDataSource closed = new PGSimpleDataSource();
        closed.setURL("jdbc:postgresql://127.0.0.1:" + FreePorts.next() + "/postgres");
        closed.setUser("postgres");
        closed.setConnectTimeout((int) Math.max(1, timeout.toSeconds()));
        return closed;
    }

    /** The sweep rides in the write's own statement. */
    @Override
    protected int statementsPerWrite() {
        return 1;
    }
}
