package dev.mortise.lock.jdbc;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;

class MariaDbWaitRecordsTest extends JdbcWaitRecordsTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    @Override
    protected JdbcDialect dialect() {
        return JdbcDialect.MYSQL;
    }

    @Override
    protected String aSecondAgo() {
        return "UTC_TIMESTAMP(6) - INTERVAL 1 SECOND";
    }

    @Override
    protected DataSource unreachable(Duration timeout) throws SQLException {
        return TestDatabases.unreachableMariaDb(timeout);
    }

    @Override
    protected int statementsPerWrite() {
        return 2;
    }
}
