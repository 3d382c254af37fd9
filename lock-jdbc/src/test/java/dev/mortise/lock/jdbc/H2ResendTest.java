package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class H2ResendTest extends ResendTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:resend;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }
}
