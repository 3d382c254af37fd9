package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class PostgresBehaviourTest extends JdbcBehaviourTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    protected String nowPlusSeconds(int seconds) {
        return "(CURRENT_TIMESTAMP + INTERVAL '" + seconds + " seconds')";
    }
}
