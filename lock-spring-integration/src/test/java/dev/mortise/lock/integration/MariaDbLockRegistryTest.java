package dev.mortise.lock.integration;

import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.spi.LockBackend;

/** The registry and Spring Integration's components on JDBC, against a real MariaDB server. */
class MariaDbLockRegistryTest extends LockRegistrySuite {

    @Override
    protected LockBackend newBackend() {
        return JdbcLockBackend.builder(Servers.mariadb()).createTableIfMissing(true).build();
    }
}
