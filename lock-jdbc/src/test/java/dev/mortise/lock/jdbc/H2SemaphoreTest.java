package dev.mortise.lock.jdbc;

import javax.sql.DataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Native semaphores on H2: a {@code VARCHAR ARRAY} {@code permits} column (the stored count, then each
 * hold's count as 10 digits followed by its owner) next to the readers' array.
 */
class H2SemaphoreTest extends JdbcSemaphoreTest {

    private static final DataSource DATA_SOURCE = H2MemoryContractTest.h2("jdbc:h2:mem:semaphores;DB_CLOSE_DELAY=-1");

    @Override
    protected DataSource dataSource() {
        return DATA_SOURCE;
    }

    /** The merge answers only a grant; a refusal's stored count and remaining time take a second read. */
    @Override
    protected int statementsOfARefusedAttempt() {
        return 2;
    }

    /** The column as {@code limit=N;count owner;…}, or null. */
    @Override
    protected String[] row(String key) throws Exception {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT permits, lock_owner FROM mortise_locks WHERE lock_key = ?")) {
            s.setString(1, JdbcContractTest.stored(key));
            try (ResultSet rows = s.executeQuery()) {
                if (!rows.next()) {
                    return null;
                }
                Array array = rows.getArray(1);
                String text = null;
                if (array != null) {
                    Object[] elements = (Object[]) array.getArray();
                    StringBuilder out = new StringBuilder("limit=").append(elements[0]);
                    for (int i = 1; i < elements.length; i++) {
                        out.append(';').append(elements[i]);
                    }
                    text = out.toString();
                }
                return new String[]{text, rows.getString(2)};
            }
        }
    }

    @Override
    protected int heldPermits(String permits) {
        if (permits == null) {
            return 0;
        }
        String[] parts = permits.split(";");
        int sum = 0;
        for (int i = 1; i < parts.length; i++) {
            sum += Integer.parseInt(parts[i].substring(0, 10));
        }
        return sum;
    }

    @Override
    protected String previousDdl(String table) {
        return "CREATE TABLE " + table + " (lock_key VARCHAR(255) NOT NULL PRIMARY KEY, lock_owner VARCHAR(255),"
                + " fencing_token BIGINT NOT NULL, acquired_at TIMESTAMP(6) WITH TIME ZONE,"
                + " expires_at TIMESTAMP(6) WITH TIME ZONE, original_key CHARACTER VARYING,"
                + " shared_holds CHARACTER VARYING ARRAY, waiting_writer VARCHAR(255),"
                + " writer_waits_until TIMESTAMP(6) WITH TIME ZONE)";
    }
}
