package dev.mortise.lock.shedlock;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.spi.LockBackend;
import org.h2.jdbcx.JdbcDataSource;

/** ShedLock's suite on JDBC, against H2 in memory (one named database both clients share). */
class H2ShedLockTest extends ShedLockSuite {

    private static final JdbcDataSource DATA_SOURCE = new JdbcDataSource();

    static {
        DATA_SOURCE.setURL("jdbc:h2:mem:shedlock;DB_CLOSE_DELAY=-1");
        DATA_SOURCE.setUser("sa");
    }

    @Override
    protected LockBackend newBackend() {
        return JdbcLockBackend.builder(DATA_SOURCE).createTableIfMissing(true).build();
    }
}
