package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class H2BehaviourTest extends JdbcBehaviourTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:behaviour;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    @Override
    protected String nowPlusSeconds(int seconds) {
        return "DATEADD(SECOND, " + seconds + ", CURRENT_TIMESTAMP)";
    }
}
