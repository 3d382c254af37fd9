package dev.mortise.lock.fencing;

import javax.sql.DataSource;

/** The fence guard on a real MariaDB (REPEATABLE READ, the default: reads after the check see the newer commit). */
class MariaDbFenceGuardTest extends FenceGuardContract {

    @Override
    DataSource dataSource() {
        return FenceDatabases.mariadb();
    }

    @Override
    FenceDialect expectedDialect() {
        return FenceDialect.MYSQL;
    }
}
