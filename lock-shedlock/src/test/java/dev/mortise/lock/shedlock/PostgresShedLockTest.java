package dev.mortise.lock.shedlock;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.spi.LockBackend;

/** ShedLock's suite on JDBC, against a real PostgreSQL server. */
class PostgresShedLockTest extends ShedLockSuite {

    @Override
    protected LockBackend newBackend() {
        return JdbcLockBackend.builder(Servers.postgres()).createTableIfMissing(true).build();
    }
}
