package dev.mortise.lock.integration;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.spi.LockBackend;
import org.h2.jdbcx.JdbcDataSource;

/** The registry and Spring Integration's components on JDBC, against H2 in memory (one named database both clients share). */
class H2LockRegistryTest extends LockRegistrySuite {

    private static final JdbcDataSource DATA_SOURCE = new JdbcDataSource();

    static {
        DATA_SOURCE.setURL("jdbc:h2:mem:spring-integration;DB_CLOSE_DELAY=-1");
        DATA_SOURCE.setUser("sa");
    }

    @Override
    protected LockBackend newBackend() {
        return JdbcLockBackend.builder(DATA_SOURCE).createTableIfMissing(true).build();
    }
}
