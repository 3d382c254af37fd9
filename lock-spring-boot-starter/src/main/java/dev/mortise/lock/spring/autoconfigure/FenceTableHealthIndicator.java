package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.fencing.JdbcFenceGuard;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Health of the fence guard (lock-fencing): whether its table can be read. The guard asks the
 * database nothing at start-up, so this is where a missing fence table shows before the first
 * fenced call fails on it. Down when the database cannot be reached (fenced calls cannot run
 * then either), or when the table is missing and {@code mortise.lock.fence.create-table} is off;
 * up, noting it, when the table is missing but the first fence check will create it.
 */
final class FenceTableHealthIndicator extends AbstractHealthIndicator {

    private final JdbcFenceGuard guard;
    private final DataSource dataSource;
    private final boolean createTable;

    FenceTableHealthIndicator(JdbcFenceGuard guard, DataSource dataSource, boolean createTable) {
        super("Fence table health check failed");
        this.guard = guard;
        this.dataSource = dataSource;
        this.createTable = createTable;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        String table = guard.table();
        builder.withDetail("table", table);
        if (guard.dialect() != null) {
            builder.withDetail("dialect", guard.dialect().name().toLowerCase(java.util.Locale.ROOT));
        }
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            builder.down().withDetail("error", "Cannot reach the database of fence table " + table + ": "
                    + e.getMessage() + ". Fenced calls fail until it can be reached.");
            return;
        }
        try (connection; Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(5);
            statement.executeQuery("SELECT token FROM " + table + " WHERE 1 = 0").close();
            builder.up();
        } catch (SQLException e) {
            if (createTable) {
                builder.up().withDetail("created", "at the first fence check (mortise.lock.fence.create-table)");
            } else {
                builder.down().withDetail("error", "The fence table " + table + " cannot be read (" + e.getMessage()
                        + "): fenced calls fail on it. Create it with your schema tool (DDL in docs/fencing.md, "
                        + "or FenceDialect.ddl), or set mortise.lock.fence.create-table=true"
                        + (table.equals("mortise_fences") ? "" : ", or fix mortise.lock.fence.table-name") + ".");
            }
        }
    }
}
