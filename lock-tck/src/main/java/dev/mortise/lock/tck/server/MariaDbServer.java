package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A private MariaDB server (Debian package {@code mariadb-server}): its own data
 * directory made by {@code mariadb-install-db}, {@code mariadbd} on a free loopback port,
 * user {@code root} without a password, database {@code mortise}, durability relaxed for
 * speed.
 */
public final class MariaDbServer extends ServerProcess {

    private final Path installDb = Binaries.require("mariadb-install-db", "mariadb-server");
    private final Path mariadbd = Binaries.require("mariadbd", "mariadb-server");
    private final Path client = Binaries.require("mariadb", "mariadb-client");

    public MariaDbServer() {
        super("mariadb", FreePorts.next());
    }

    /** {@code jdbc:mariadb://127.0.0.1:port/mortise}. */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/mortise";
    }

    public String user() {
        return "root";
    }

    @Override
    protected void prepare() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(installDb.toString(), "--no-defaults",
                "--datadir=" + dir.resolve("data"), "--auth-root-authentication-method=normal", "--skip-test-db"));
        if (RunAs.isRoot()) {
            command.add("--user=root");
        }
        run(command, Duration.ofSeconds(120));
    }

    @Override
    protected List<String> command() {
        List<String> command = new ArrayList<>(List.of(mariadbd.toString(), "--no-defaults",
                "--datadir=" + dir.resolve("data"), "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"),
                "--innodb-flush-log-at-trx-commit=0", "--innodb-buffer-pool-size=64M", "--skip-log-bin",
                "--max-connections=300", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin"));
        if (RunAs.isRoot()) {
            command.add("--user=root");
        }
        return command;
    }

    @Override
    protected boolean isReady() {
        return succeeds(List.of(client.toString(), "--protocol=tcp", "-h", "127.0.0.1", "-P", Integer.toString(port),
                "-u", "root", "--connect-timeout=1", "-e", "CREATE DATABASE IF NOT EXISTS mortise"));
    }
}
