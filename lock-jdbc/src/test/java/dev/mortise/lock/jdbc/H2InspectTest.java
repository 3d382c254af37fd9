package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class H2InspectTest extends JdbcInspectTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:inspect;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    @Override
    protected String previousDdl(String table) {
        return new H2SharedModeTest().previousDdl(table);
    }
}
