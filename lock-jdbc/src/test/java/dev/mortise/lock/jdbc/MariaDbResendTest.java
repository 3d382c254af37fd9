package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class MariaDbResendTest extends ResendTest {

    private static final DataSource DATA_SOURCE = TestDatabases.mariadb();

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }
}
