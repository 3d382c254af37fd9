package dev.mortise.lock.jdbc;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.CrossProcessDeadlockContract;
import org.junit.jupiter.api.Nested;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Deadlocks between JVMs on the real PostgreSQL and MariaDB servers, each owner with a pool of its
 * own. (H2 in memory lives in one JVM; its file mode is one process's too.)
 */
class JdbcCrossProcessDeadlockTest {

    /** What each owner process builds its backend with: the database at {@code mortise.party.url}, as {@code mortise.party.user}. */
    public static final class Parties implements Supplier<LockBackend> {
        @Override
        public LockBackend get() {
            return JdbcLockBackend.builder(TestDatabases.pool("party", System.getProperty("mortise.party.url"),
                    System.getProperty("mortise.party.user"), 4)).createTableIfMissing(true).build();
        }
    }

    @Nested
    class OnPostgres extends CrossProcessDeadlockContract {
        @Override
        protected Class<? extends Supplier<LockBackend>> factory() {
            return Parties.class;
        }

        @Override
        protected Map<String, String> factoryProperties() {
            return Map.of("mortise.party.url", TestDatabases.postgresServer().jdbcUrl(),
                    "mortise.party.user", TestDatabases.postgresServer().user());
        }
    }

    @Nested
    class OnMariaDb extends CrossProcessDeadlockContract {
        @Override
        protected Class<? extends Supplier<LockBackend>> factory() {
            return Parties.class;
        }

        @Override
        protected Map<String, String> factoryProperties() {
            return Map.of("mortise.party.url", TestDatabases.mariadbServer().jdbcUrl(),
                    "mortise.party.user", TestDatabases.mariadbServer().user());
        }
    }
}
