package dev.mortise.lock.fencing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The fence dialect known without a connection, as lock-jdbc knows its own (both from {@code SqlDatabase}). */
class FenceDialectTest {

    @Test
    void dialectsAreKnownByJdbcUrl() {
        assertThat(FenceDialect.forJdbcUrl("JDBC:PostgreSQL://db/app")).contains(FenceDialect.POSTGRESQL);
        assertThat(FenceDialect.forJdbcUrl("jdbc:mysql://db:3306/app")).contains(FenceDialect.MYSQL);
        assertThat(FenceDialect.forJdbcUrl("jdbc:mariadb://db/app")).contains(FenceDialect.MYSQL);
        assertThat(FenceDialect.forJdbcUrl("jdbc:h2:mem:app")).contains(FenceDialect.H2);
        assertThat(FenceDialect.forJdbcUrl("jdbc:p6spy:postgresql://db/app")).isEmpty();
        assertThat(FenceDialect.forJdbcUrl(null)).isEmpty();
    }

    @Test
    void dialectsAreKnownByProductName() {
        assertThat(FenceDialect.forProductName("PostgreSQL")).contains(FenceDialect.POSTGRESQL);
        assertThat(FenceDialect.forProductName("MariaDB")).contains(FenceDialect.MYSQL);
        assertThat(FenceDialect.forProductName("H2")).contains(FenceDialect.H2);
        assertThat(FenceDialect.forProductName("Oracle")).isEmpty();
    }
}
