package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.FencingTokens;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * Settings of the JDBC lock backend ({@code mortise.lock.jdbc.*}). It uses the
 * application's {@code DataSource} (the primary one if several).
 */
@ConfigurationProperties("mortise.lock.jdbc")
public class JdbcLockProperties {

    /**
     * Whether to configure the JDBC backend when it is asked for (mortise.lock.backend=jdbc,
     * these properties, a DataSource bean, or lock-jdbc as the only backend module).
     */
    private boolean enabled = true;

    /**
     * Name of the lock table; defaults to the backend's (mortise_locks).
     */
    private String tableName;

    /**
     * Whether to create the lock table at start-up if it is missing. Off by default: ship the
     * DDL (schema-<dialect>.sql in lock-jdbc) with your migrations.
     */
    private boolean createTable = false;

    /**
     * SQL dialect: postgresql, mysql (also MariaDB) or h2. Defaults to the one the
     * DataSource's JDBC URL names, else the database is asked at start-up (which then needs it up).
     */
    private String dialect;

    /**
     * Longest a single statement may take before failing; defaults to the backend's (5s).
     */
    private Duration operationTimeout;

    /**
     * Whether waiters are woken by PostgreSQL LISTEN/NOTIFY; defaults to the backend's (true).
     */
    private Boolean listenForReleases;

    /**
     * How fencing tokens are numbered: server-clock (the default; max(token + 1, the database's
     * clock in microseconds), so tokens keep increasing after the database loses the lock row or
     * its latest writes in a crash, failover or restore) or counter (1, 2, 3... per key, which
     * repeat after such a loss). See docs/jdbc.md, "Fencing tokens".
     */
    private FencingTokens fencingTokens = FencingTokens.SERVER_CLOCK;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    public boolean isCreateTable() {
        return createTable;
    }

    public void setCreateTable(boolean createTable) {
        this.createTable = createTable;
    }

    public String getDialect() {
        return dialect;
    }

    public void setDialect(String dialect) {
        this.dialect = dialect;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public Boolean getListenForReleases() {
        return listenForReleases;
    }

    public void setListenForReleases(Boolean listenForReleases) {
        this.listenForReleases = listenForReleases;
    }

    public FencingTokens getFencingTokens() {
        return fencingTokens;
    }

    public void setFencingTokens(FencingTokens fencingTokens) {
        this.fencingTokens = fencingTokens;
    }
}
