package dev.mortise.lock.jdbc;

import dev.mortise.lock.tck.server.FreePorts;
import org.mariadb.jdbc.MariaDbDataSource;

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
        return new MariaDbDataSource("jdbc:mariadb://127.0.0.1:" + FreePorts.next()
                + "/mortise?user=root&connectTimeout=" + timeout.toMillis());
    }

    @Override
    protected int statementsPerWrite() {
        return 2;
    }
}
