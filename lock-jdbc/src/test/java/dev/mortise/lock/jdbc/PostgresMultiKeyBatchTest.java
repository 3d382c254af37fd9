package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class PostgresMultiKeyBatchTest extends JdbcMultiKeyBatchTest {

    @Override
    protected DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    protected int uncontendedBatchStatements() {
        return 1;
    }

    @Override
    protected boolean batchesSharedParts() {
        return true;
    }
}
