package dev.mortise.lock.jdbc;

import javax.sql.DataSource;

class H2MultiKeyBatchTest extends JdbcMultiKeyBatchTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:batch;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    @Override
    protected int uncontendedBatchStatements() {
        return 1;
    }

    @Override
    protected boolean waitsForUncommittedRows() {
        return false;
    }

    @Override
    protected int refusedBatchStatements() {
        return 2;
    }

    @Override
    protected int busyAttemptStatements() {
        return 2;
    }

    @Override
    protected boolean batchesSharedParts() {
        return false;
    }

    @Override
    protected String nowPlusSeconds(int seconds) {
        return "DATEADD(SECOND, " + seconds + ", CURRENT_TIMESTAMP)";
    }

    @Override
    protected String lockWaits() {
        return "SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
    }

    @Override
    protected int statementsWhenAKeyIsTakenDuringTheBatch() {
        return 2;
    }
}
