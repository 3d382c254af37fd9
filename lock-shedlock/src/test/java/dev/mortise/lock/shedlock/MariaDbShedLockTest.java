package dev.mortise.lock.shedlock;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.spi.LockBackend;

/** ShedLock's suite on JDBC, against a real MariaDB server. */
class MariaDbShedLockTest extends ShedLockSuite {

    @Override
    protected LockBackend newBackend() {
        return JdbcLockBackend.builder(Servers.mariadb()).createTableIfMissing(true).build();
    }
}
