package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class MariaDbBehaviourTest extends JdbcBehaviourTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String nowPlusSeconds(int seconds) {
        return "(UTC_TIMESTAMP(6) + INTERVAL " + seconds + " SECOND)";
    }
}
