package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class PostgresResendTest extends ResendTest {

    private static final DataSource DATA_SOURCE = TestDatabases.postgres();

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }
}
