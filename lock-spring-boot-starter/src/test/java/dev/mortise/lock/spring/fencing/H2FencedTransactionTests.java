package dev.mortise.lock.spring.fencing;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;
import java.util.UUID;

/** The fenced transactions on H2 in memory (kept open between the two instances' connections). */
class H2FencedTransactionTests extends FencedTransactionContract {

    private static JdbcDataSource dataSource;

    @BeforeAll
    static void create() {
        dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:fenced-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @Override
    DataSource dataSource() {
        return dataSource;
    }
}
