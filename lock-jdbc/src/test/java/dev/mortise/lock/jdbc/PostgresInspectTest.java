package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class PostgresInspectTest extends JdbcInspectTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    protected String previousDdl(String table) {
        return new PostgresSharedModeTest().previousDdl(table);
    }
}
