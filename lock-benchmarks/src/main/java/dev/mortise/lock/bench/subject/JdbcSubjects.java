package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The JDBC subjects on PostgreSQL or MariaDB: Mortise, Spring Integration's
 * {@code JdbcLockRegistry}, ShedLock's {@code JdbcTemplateLockProvider}, and the floor of two
 * autocommit statements (an upsert that takes the row, an update that clears it). Each has
 * its own HikariCP pool of the same size.
 */
public final class JdbcSubjects {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int POOL_SIZE = 12;

    private JdbcSubjects() {
    }

    /** Ids in report order for {@code database} ({@code postgres} or {@code mariadb}). */
    public static List<String> ids(String database) {
        return List.of(database + "/mortise", database + "/si-registry", database + "/shedlock",
                database + "/floor-statements");
    }

    public static LockSubject create(String id, String jdbcUrl, String user) throws SQLException {
        String database = id.substring(0, id.indexOf('/'));
        boolean postgres = database.equals("postgres");
        HikariDataSource pool = pool(id, jdbcUrl, user);
        try {
            return switch (id.substring(id.indexOf('/') + 1)) {
                case "mortise" -> MortiseSubjects.over(id, JdbcLockBackend.builder(pool).createTableIfMissing(true)
                        .build(), pool);
                case "si-registry" -> registry(id, pool, postgres);
                case "shedlock" -> shedlock(id, pool, postgres);
                case "floor-statements" -> floor(id, pool, postgres);
                default -> throw new IllegalArgumentException("unknown subject " + id);
            };
        } catch (RuntimeException | SQLException e) {
            pool.close();
            throw e;
        }
    }

    static HikariDataSource pool(String name, String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("bench-" + name.replace('/', '-'));
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        return new HikariDataSource(config);
    }

    private static void execute(HikariDataSource pool, String sql) throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static LockSubject registry(String id, HikariDataSource pool, boolean postgres) throws SQLException {
        // The DDL of spring-integration-jdbc's schema-postgresql.sql / schema-mysql.sql.
        String time = postgres ? "TIMESTAMP" : "DATETIME(6)";
        execute(pool, "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, "
                + "CLIENT_ID CHAR(36), CREATED_DATE " + time + " NOT NULL, EXPIRED_AFTER " + time + " NOT NULL, "
                + "constraint INT_LOCK_PK primary key (LOCK_KEY, REGION))");
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setTransactionManager(new JdbcTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository, LEASE);
        return SimpleSubject.of(id, "Spring Integration JdbcLockRegistry", Role.PEER, true, (key, wait) -> {
            Lock lock = registry.obtain(key);
            return lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS) ? lock::unlock : null;
        }, pool, repository::close);
    }

    private static LockSubject shedlock(String id, HikariDataSource pool, boolean postgres) throws SQLException {
        String time = postgres ? "TIMESTAMP" : "TIMESTAMP(3)";
        execute(pool, "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until " + time
                + " NOT NULL, locked_at " + time + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration
                .builder().withJdbcTemplate(new JdbcTemplate(pool)).usingDbTime().build());
        // ShedLock never waits: a busy lock is skipped, so it takes part in uncontended runs only.
        return SimpleSubject.of(id, "ShedLock JdbcTemplateLockProvider", Role.PEER, false, (key, wait) -> {
            Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), key, LEASE, Duration.ZERO));
            return lock.<Held>map(l -> l::unlock).orElse(null);
        }, pool);
    }

    private static LockSubject floor(String id, HikariDataSource pool, boolean postgres) throws SQLException {
        execute(pool, "CREATE TABLE IF NOT EXISTS bench_floor (k VARCHAR(255) NOT NULL PRIMARY KEY, owner VARCHAR(64))");
        String take = postgres
                ? "INSERT INTO bench_floor (k, owner) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET owner = EXCLUDED.owner"
                : "INSERT INTO bench_floor (k, owner) VALUES (?, ?) ON DUPLICATE KEY UPDATE owner = VALUES(owner)";
        String clear = "UPDATE bench_floor SET owner = NULL WHERE k = ? AND owner = ?";
        return SimpleSubject.of(id, "floor: 2 autocommit statements", Role.FLOOR, false, (key, wait) -> {
            String owner = Thread.currentThread().getName();
            update(pool, take, key, owner);
            return () -> update(pool, clear, key, owner);
        }, pool);
    }

    private static void update(HikariDataSource pool, String sql, String a, String b) throws SQLException {
        try (Connection connection = pool.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, a);
            statement.setString(2, b);
            statement.executeUpdate();
        }
    }
}
