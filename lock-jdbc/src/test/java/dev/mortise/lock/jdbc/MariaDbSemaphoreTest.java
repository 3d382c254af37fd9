package dev.mortise.lock.jdbc;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Native semaphores on a real MariaDB: a JSON {@code permits} column next to the readers' JSON array. */
class MariaDbSemaphoreTest extends JdbcSemaphoreTest {

    private static final Pattern HOLD = Pattern.compile("\\[\\s*\"(?:[^\"\\\\]|\\\\.)*\"\\s*,\\s*(\\d+)\\s*\\]");

    @Override
    protected DataSource dataSource() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String[] row(String key) throws Exception {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement(
                     "SELECT CAST(permits AS CHAR), lock_owner FROM mortise_locks WHERE lock_key = ?")) {
            s.setBytes(1, JdbcContractTest.stored(key).getBytes(StandardCharsets.UTF_8));
            try (ResultSet rows = s.executeQuery()) {
                return rows.next() ? new String[]{rows.getString(1), rows.getString(2)} : null;
            }
        }
    }

    /** Sums the counts of {@code "holds": [[owner, count], …]}. */
    @Override
    protected int heldPermits(String permits) {
        if (permits == null) {
            return 0;
        }
        String holds = permits.substring(permits.indexOf("\"holds\""));
        holds = holds.substring(0, holds.indexOf("]]") + 2);
        int sum = 0;
        Matcher m = HOLD.matcher(holds);
        while (m.find()) {
            sum += Integer.parseInt(m.group(1));
        }
        return sum;
    }

    @Override
    protected String previousDdl(String table) {
        return "CREATE TABLE " + table + " (lock_key VARBINARY(255) NOT NULL PRIMARY KEY,"
                + " lock_owner VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, fencing_token BIGINT NOT NULL,"
                + " acquired_at DATETIME(6), expires_at DATETIME(6), original_key TEXT CHARACTER SET utf8mb4,"
                + " shared_holds JSON, waiting_writer VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,"
                + " writer_waits_until DATETIME(6)) ENGINE = InnoDB";
    }
}
