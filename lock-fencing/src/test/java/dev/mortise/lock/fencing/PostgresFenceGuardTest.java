package dev.mortise.lock.fencing;

import javax.sql.DataSource;

/** The fence guard on a real PostgreSQL (READ COMMITTED, the default). */
class PostgresFenceGuardTest extends FenceGuardContract {

    @Override
    DataSource dataSource() {
        return FenceDatabases.postgres();
    }

    @Override
    FenceDialect expectedDialect() {
        return FenceDialect.POSTGRESQL;
    }
}
