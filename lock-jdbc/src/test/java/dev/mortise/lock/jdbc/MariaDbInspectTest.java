package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class MariaDbInspectTest extends JdbcInspectTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String previousDdl(String table) {
        return new MariaDbSharedModeTest().previousDdl(table);
    }
}
