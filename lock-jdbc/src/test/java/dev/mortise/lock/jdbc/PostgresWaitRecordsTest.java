package dev.mortise.lock.jdbc;

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
        return TestDatabases.unreachablePostgres(timeout);
    }

    /** The sweep rides in the write's own statement. */
    @Override
    protected int statementsPerWrite() {
        return 1;
    }
}
