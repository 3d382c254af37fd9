package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.FreePorts;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;

/**
 * An H2 server down at start-up, then started on its port, with the lock table shipped by
 * the application's migrations (no create-table): the start-up table check leaves an
 * unreachable database to health and the calls.
 */
class H2ServerUnreachableServerTests extends UnreachableServerTestSupport {

    private final int port = FreePorts.next();
    private final JdbcDataSource dataSource = new JdbcDataSource();
    private Server server;

    H2ServerUnreachableServerTests() {
        dataSource.setURL("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:unreachable;DB_CLOSE_DELAY=-1");
        dataSource.setUser("sa");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Override
    String backend() {
        return "jdbc";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.jdbc.operation-timeout=1s"};
    }

    @Override
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner.withBean(DataSource.class, () -> dataSource);
    }

    /** Starts the server and runs the "migration" that ships the lock table. */
    @Override
    void startServer() throws Exception {
        server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(dev.mortise.lock.jdbc.internal.Schema.ddl(dev.mortise.lock.spi.SqlDatabase.H2,
                    dev.mortise.lock.jdbc.internal.TableName.of("mortise_locks")));
        }
    }
}
