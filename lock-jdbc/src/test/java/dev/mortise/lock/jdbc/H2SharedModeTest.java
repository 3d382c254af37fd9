package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class H2SharedModeTest extends JdbcSharedModeTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:shared;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    @Override
    protected String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    protected String previousDdl(String table) {
        return "CREATE TABLE " + table + " (lock_key VARCHAR(255) NOT NULL PRIMARY KEY, lock_owner VARCHAR(255),"
                + " fencing_token BIGINT NOT NULL, acquired_at TIMESTAMP(6) WITH TIME ZONE,"
                + " expires_at TIMESTAMP(6) WITH TIME ZONE, original_key CHARACTER VARYING)";
    }
}
