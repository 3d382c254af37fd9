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

    @Override
    protected String nowPlusSeconds(int seconds) {
        return "(CURRENT_TIMESTAMP + INTERVAL '" + seconds + " seconds')";
    }

    @Override
    protected String lockWaits() {
        return "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
    }

    @Override
    protected int statementsWhenAKeyIsTakenDuringTheBatch() {
        return 2;
    }
}
