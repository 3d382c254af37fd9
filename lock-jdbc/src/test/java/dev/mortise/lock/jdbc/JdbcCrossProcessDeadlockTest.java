package dev.mortise.lock.jdbc;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.CrossProcessDeadlockContract;
import org.junit.jupiter.api.Nested;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Deadlocks between JVMs on the real PostgreSQL and MariaDB servers and on one H2 file in
 * {@code AUTO_SERVER} mode (the first owner to open it serves it to the others), each owner with a
 * pool of its own. (H2 in memory lives in one JVM: the contract test covers it.)
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

    /** Every database's owners build their backend with {@link Parties}. */
    abstract static class OnDatabase extends CrossProcessDeadlockContract {
        @Override
        protected Class<? extends Supplier<LockBackend>> factory() {
            return Parties.class;
        }
    }

    @Nested
    class OnPostgres extends OnDatabase {
        @Override
        protected Map<String, String> factoryProperties() {
            return Map.of("mortise.party.url", TestDatabases.postgresServer().jdbcUrl(),
                    "mortise.party.user", TestDatabases.postgresServer().user());
        }
    }

    @Nested
    class OnMariaDb extends OnDatabase {
        @Override
        protected Map<String, String> factoryProperties() {
            return Map.of("mortise.party.url", TestDatabases.mariadbServer().jdbcUrl(),
                    "mortise.party.user", TestDatabases.mariadbServer().user());
        }
    }

    @Nested
    class OnH2File extends OnDatabase {
        /** One file per test (a test instance each), shared by all its owners. */
        private final Map<String, String> properties = h2File();

        @Override
        protected Map<String, String> factoryProperties() {
            return properties;
        }

        private static Map<String, String> h2File() {
            try {
                java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("mortise-deadlock-h2");
                dir.toFile().deleteOnExit();
                return Map.of("mortise.party.url", "jdbc:h2:file:" + dir.resolve("locks") + ";AUTO_SERVER=TRUE",
                        "mortise.party.user", "sa");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
