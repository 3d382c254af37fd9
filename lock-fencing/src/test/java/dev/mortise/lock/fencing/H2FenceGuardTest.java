package dev.mortise.lock.fencing;

import javax.sql.DataSource;

/** The fence guard on H2 2.x in memory (MVStore, READ COMMITTED). */
class H2FenceGuardTest extends FenceGuardContract {

    @Override
    DataSource dataSource() {
        return FenceDatabases.h2();
    }

    @Override
    FenceDialect expectedDialect() {
        return FenceDialect.H2;
    }
}
