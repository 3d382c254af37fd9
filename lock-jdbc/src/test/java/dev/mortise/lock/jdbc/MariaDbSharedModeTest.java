package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class MariaDbSharedModeTest extends JdbcSharedModeTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    protected String previousDdl(String table) {
        return "CREATE TABLE " + table + " (lock_key VARBINARY(255) NOT NULL PRIMARY KEY,"
                + " lock_owner VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, fencing_token BIGINT NOT NULL,"
                + " acquired_at DATETIME(6), expires_at DATETIME(6), original_key TEXT CHARACTER SET utf8mb4)"
                + " ENGINE = InnoDB";
    }
}
