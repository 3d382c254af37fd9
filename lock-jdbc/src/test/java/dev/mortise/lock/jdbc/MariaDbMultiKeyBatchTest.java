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

    @Override
    protected String nowPlusSeconds(int seconds) {
        return "(UTC_TIMESTAMP(6) + INTERVAL " + seconds + " SECOND)";
    }

    @Override
    protected String lockWaits() {
        return "SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'";
    }

    @Override
    protected int statementsWhenAKeyIsTakenDuringTheBatch() {
        return 1;
    }
}
