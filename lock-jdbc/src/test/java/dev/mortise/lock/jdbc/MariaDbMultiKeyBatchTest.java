package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class MariaDbMultiKeyBatchTest extends JdbcMultiKeyBatchTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    /** The write, then the read of the tokens (no RETURNING). */
    @Override
    protected int uncontendedBatchStatements() {
        return 2;
    }

    @Override
    protected boolean batchesSharedParts() {
        return false;
    }
}
