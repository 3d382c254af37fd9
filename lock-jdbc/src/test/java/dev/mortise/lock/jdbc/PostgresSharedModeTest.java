package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class PostgresSharedModeTest extends JdbcSharedModeTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    protected String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    protected String previousDdl(String table) {
        return "CREATE TABLE " + table + " (lock_key VARCHAR(255) COLLATE \"C\" NOT NULL PRIMARY KEY,"
                + " lock_owner VARCHAR(255), fencing_token BIGINT NOT NULL, acquired_at TIMESTAMP(6) WITH TIME ZONE,"
                + " expires_at TIMESTAMP(6) WITH TIME ZONE, original_key TEXT)";
    }
}
